import Foundation
import PromiseTestSupport
@testable import PromiseUV
import PromiseCore
import Synchronization
import Testing

/// A temporary directory of its own for one test, removed when dropped.
final class TemporaryDirectory: Sendable {
    let path: String
    init() throws {
        var template = Array((NSTemporaryDirectory() + "/promise-uv-spawn-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp failed") }
        path = String(cString: made)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// Processes whose parent is this process and that are zombies (exited, not reaped), by pid;
/// with `command`, only those whose command name (`/proc/PID/stat`) is `command`.
func zombieChildren(running command: String? = nil) -> Set<Int32> {
    let me = getpid()
    var zombies: Set<Int32> = []
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
        guard let pid = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { continue }
        // After "pid (comm) ": state, then the parent's pid.
        let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
        guard fields.count > 1, fields[0] == "Z", Int32(fields[1]) == me else { continue }
        // The command name sits between the parentheses after the pid.
        if let command, let open = stat.firstIndex(of: "("), stat[stat.index(after: open)..<close] != command[...] { continue }
        zombies.insert(pid)
    }
    return zombies
}

/// The in-memory files of standard input this process has open.
func inputMemfdCount() -> Int {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return entries.filter { entry in
        let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)")
        return target?.contains("promise-uv-stdin") == true
    }.count
}

/// The libuv handles open on `loop` (read on its thread): `LoopStateMachine.ownHandleCount`
/// when no child or pipe is left. Each pipe's descriptor closes with its handle.
func openHandleCount(_ loop: UVLoop) async throws -> Int {
    try await Promise<Int>(on: loop) { loop.core.openHandles }.get()
}

/// Whether process `pid` still exists (a reaped child's pid is gone until reused).
func processExists(_ pid: Int32) -> Bool { kill(pid, 0) == 0 }

extension ProcessTests {
    @Test func cancellationSendsTermAndSettlesWhenReaped() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        let pid = Lock<Int32>(0)
        let child = loop.spawn(
            UVCommand(
                "/bin/sh", arguments: ["-c", "echo $$; exec sleep 3600"],
                standardOutput: .lines(on: loop) { line in
                    pid.withLock { $0 = Int32(String(decoding: line, as: UTF8.self)) ?? 0 }
                }))
        #expect(try await eventually { pid.withLock { $0 } != 0 })
        let start = ContinuousClock.now
        let settled = SettleTime(of: child)
        child.cancel()
        #expect(child.isPending || child.isRejected)  // settles only once the child is reaped
        await #expect(throws: CancellationError.self) { try await child.get() }
        expectTimeLimit(settled.since(start), under: .seconds(20), "a cancelled sleep settling (it runs an hour otherwise)")
        #expect(!processExists(pid.withLock { $0 }))
        #expect(!zombieChildren().contains(pid.withLock { $0 }))
    }

    @Test func childIgnoringTermIsKilledAfterTheGracePeriod() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        let ready = Lock(false)
        let command = UVCommand(
            "/bin/sh", arguments: ["-c", "trap '' TERM; echo ready; exec sleep 3600"],
            standardOutput: .lines(on: loop) { _ in ready.withLock { $0 = true } }, terminationGrace: .milliseconds(300))
        let child = loop.spawn(command)
        #expect(try await eventually { ready.withLock { $0 } })
        let start = ContinuousClock.now
        let settled = SettleTime(of: child)
        child.cancel()
        child.cancel()  // a second request does not restart the grace period
        await #expect(throws: CancellationError.self) { try await child.get() }
        let took = try #require(settled.since(start))
        #expect(took >= .milliseconds(250), "SIGKILL came before the grace period: \(took)")
        expectTimeLimit(took, under: .seconds(20), "a child ignoring SIGTERM being killed after 300 ms of grace")
    }

    @Test func zeroGraceKillsAtOnce() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        let child = loop.spawn(UVCommand("/bin/sh", arguments: ["-c", "trap '' TERM; exec sleep 3600"], terminationGrace: .zero))
        try await Task.sleep(for: .milliseconds(50))
        child.cancel()
        await #expect(throws: CancellationError.self) { try await child.get() }
    }

    @Test func cancellationBeforeTheChildStartsSpawnsNothing() async throws {
        let loop = try UVLoop()  // not running yet: the spawn waits in the queue
        let child = loop.spawn(UVCommand("sleep", arguments: ["30"]))
        child.cancel()
        try await offCooperativePool { try loop.run(until: loop.after(.milliseconds(1))) }
        await #expect(throws: CancellationError.self) { try await child.get() }
        try await offCooperativePool { try awaitPromise(loop.shutdown()) }
    }

    @Test func cancellationStormLeavesNoZombieAndNoDescriptor() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        // Other tests of this process run `sleep` too, and their children, like the helpers
        // and the sqlite3 shell of other suites, are zombies for a moment between their exit
        // and their parent's waitpid. This test's children run `sleep` through a link with a
        // name of their own, which the kernel takes as their command name, so only they count.
        let directory = try TemporaryDirectory()
        let program = directory.path + "/storm-sleep"
        guard symlink("/usr/bin/sleep", program) == 0 else { throw TestFailure("symlink failed: errno \(errno)") }
        let children = (0..<40).map { index in
            loop.spawn(UVCommand(program, arguments: ["3600"], standardInput: .bytes([1]), terminationGrace: .milliseconds(index % 3 == 0 ? 0 : 50)))
        }
        try await Task.sleep(for: .milliseconds(20))
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for child in children { child.cancel() }
        }
        for child in children {
            await #expect(throws: CancellationError.self) { try await child.get() }
        }
        #expect(zombieChildren(running: "storm-sleep").isEmpty)
        #expect(try await eventually { inputMemfdCount() == 0 })
        #expect(try await openHandleCount(loop) == LoopStateMachine.ownHandleCount)
    }

    @Test func thousandSpawnsLeaveNoDescriptorAndNoZombie() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        var pids: Set<Int32> = []
        for _ in 0..<20 {
            let batch = (0..<50).map { index in
                loop.spawn(UVCommand("/bin/sh", arguments: ["-c", "exit \(index % 2)"], standardInput: .bytes([UInt8(index)])))
            }
            for (index, child) in batch.enumerated() {
                let result = try await child.get()
                #expect(result.exit == .exited(Int32(index % 2)))
                pids.insert(result.processID)
            }
        }
        #expect(pids.count > 1)
        #expect(zombieChildren().intersection(pids).isEmpty)
        #expect(inputMemfdCount() == 0)
        #expect(try await openHandleCount(loop) == LoopStateMachine.ownHandleCount)
        // The SIGCHLD lease's count is the whole process's, which other suites' children share
        // meanwhile: ChildSignalOwnerTests checks it in processes of their own.
    }

    /// Spawns `sh` that starts `sleep 20` in the background, holding standard output open,
    /// prints its own pid and exits; returns once `sh` has been reaped.
    func spawnWithLingeringGrandchild(_ loop: UVLoop) async throws -> Promise<UVProcessResult> {
        let pid = Lock<Int32>(0)
        let child = loop.spawn(
            UVCommand(
                "/bin/sh", arguments: ["-c", "sleep 20 & echo $$"],
                standardOutput: .lines(on: loop) { line in
                    pid.withLock { $0 = Int32(String(decoding: line, as: UTF8.self)) ?? 0 }
                }))
        #expect(try await eventually { pid.withLock { $0 } != 0 })
        #expect(try await eventually { !processExists(pid.withLock { $0 }) })  // reaped
        return child
    }

    @Test func cancellingAfterTheExitStopsWaitingForAGrandchildsPipe() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        let child = try await spawnWithLingeringGrandchild(loop)
        #expect(child.isPending)  // the grandchild holds the pipe
        child.cancel()
        let result = try await child.get()  // the child's real outcome: it had exited
        #expect(result.exit == .exited(0))
    }

    @Test func shutdownDoesNotWaitForAGrandchildsPipe() async throws {
        let loop = try startedLoop()
        let child = try await spawnWithLingeringGrandchild(loop)
        let start = ContinuousClock.now
        try await loop.shutdown().get()
        expectTimeLimit(ContinuousClock.now - start, under: .seconds(15), "a shutdown while a grandchild holds a pipe for 20 s")
        await expectUVError(.loopClosed) { try await child.get() }
    }

    @Test func spawnsFromManyThreadsAtOnce() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        // A class holds the lock: a local lock captured by the threads' closure is, to
        // ThreadSanitizer, one variable modified from each of them. And the lock is `Lock`, not
        // `Mutex`: a contended Mutex hands over through a futex ThreadSanitizer cannot see.
        let promises = SpawnedChildren()
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<10 {
                let child = loop.spawn(UVCommand("/bin/sh", arguments: ["-c", "echo \(thread * 100 + index)"]))
                promises.list.withLock { $0.append(child) }
            }
        }
        let outputs = try await all(promises.list.withLock { $0 }).get().compactMap(\.outputText)
        #expect(Set(outputs) == Set((0..<8).flatMap { thread in (0..<10).map { "\(thread * 100 + $0)\n" } }))
    }

    @Test func cancellingASettledSpawnChangesNothing() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        let child = loop.spawn(UVCommand("/bin/sh", arguments: ["-c", "exit 2"]))
        #expect(try await child.get().exit == .exited(2))
        child.cancel()
        #expect(try await child.get().exit == .exited(2))
    }

    @Test func shutdownKillsRunningChildren() async throws {
        let loop = try startedLoop()
        let child = loop.spawn(UVCommand("/bin/sh", arguments: ["-c", "trap '' TERM; exec sleep 3600"]))
        try await Task.sleep(for: .milliseconds(50))
        let start = ContinuousClock.now
        try await loop.shutdown().get()
        expectTimeLimit(ContinuousClock.now - start, under: .seconds(20), "a shutdown killing a child that ignores SIGTERM")
        await expectUVError(.loopClosed) { try await child.get() }
        await expectUVError(.loopClosed) { try await loop.spawn(UVCommand("true")).get() }
    }

    @Test func droppedLoopKillsItsChildren() async throws {
        _ = NotShutDownRecorder.install
        // Nobody runs the loop: dropping it runs the queued spawn, then the shutdown, on this
        // thread, which kills the child and waits until it is reaped.
        let child: Promise<UVProcessResult> = try await offCooperativePool {
            let loop = try UVLoop()
            return loop.spawn(UVCommand("sleep", arguments: ["3600"]))
        }
        await expectUVError(.loopClosed) { try await child.get() }
        #expect(!NotShutDownRecorder.reports(mentioning: "running child process").isEmpty)
    }

    @Test func blockingWaitOnTheLoopThreadIsADeadlockError() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        let outcome = try await Promise<Bool>(on: loop) { () -> Bool in
            do {
                let child = loop.spawn(UVCommand("true"))
                defer { child.catch { _ in } }
                _ = try awaitPromise(child)
                return false
            } catch PromiseError.Code.deadlock {
                return true
            }
        }.get()
        #expect(outcome)
    }
}

/// Expects `body` to throw a ``UVError`` with `code`, synchronously.
func expectUVErrorNow<T>(_ code: UVError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> T) {
    do {
        _ = try body()
        Issue.record("expected UVError.\(code), got a value", sourceLocation: sourceLocation)
    } catch {
        #expect((error as? UVError)?.code == code, "expected UVError.\(code), got \(error)", sourceLocation: sourceLocation)
    }
}

/// Child promises collected from several threads.
final class SpawnedChildren: Sendable {
    let list = Lock<[Promise<UVProcessResult>]>([])
}

extension ProcessTests {
    /// A line reaches its handler while the child still runs, whether it is delivered on a
    /// dispatch queue or on the loop that reads the pipe. (Not on the default context here: that
    /// is one serial queue for the whole test process, which tests running beside this one
    /// may keep busy.)
    @Test(arguments: ["queue", "loop"])
    func linesArriveWhileTheChildRuns(context name: String) async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        let context: any ExecutionContext = name == "queue" ? DispatchQueue(label: "lines") : loop
        let seen = Lock<[String]>([])
        let chunks = Lock(0)
        let child = loop.spawn(
            UVCommand(
                "/bin/sh", arguments: ["-c", "echo first; echo oops >&2; exec sleep 3600"],
                standardOutput: .lines(on: context) { line in seen.withLock { $0.append(String(decoding: line, as: UTF8.self)) } },
                standardError: .chunks(on: context) { chunk in chunks.withLock { $0 += chunk.count } },
                terminationGrace: .zero))
        #expect(try await eventually(.seconds(20)) { seen.withLock { $0 } == ["first"] && chunks.withLock { $0 } == 5 })
        #expect(child.isPending, "the child ran to its end before its first line was delivered")
        child.cancel()
        await #expect(throws: CancellationError.self) { try await child.get() }
    }
}
