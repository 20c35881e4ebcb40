import Foundation
import PromiseCore
import PromiseTestSupport
import Synchronization
import Testing

@testable import PromiseUV

/// Whether `pid` is a live process: it exists and is not a zombie waiting for its parent (a
/// grandchild reparented to a container's first process may never be reaped).
func isRunning(_ pid: Int32) -> Bool {
    guard pid > 0, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")")
    else { return false }
    return stat[stat.index(close, offsetBy: 2)...].first != "Z"
}

/// Teardown sequences and process groups: what a stop sends, in what order, and to whom.
@Suite struct ProcessTeardownTests {
    /// A shell that reports each signal it gets on standard output, then keeps running, except
    /// that `SIGTERM` makes it exit.
    static let reportingShell = "trap 'echo INT' INT; trap 'echo HUP' HUP; trap 'echo TERM; exit 7' TERM; echo ready; \(idleShellLoop)"

    @Test func aCancellationSendsEachStepsSignalAfterThePreviousWait() async throws {
        let loop = try startedLoop("uv-teardown")
        defer { loop.shutdown() }
        let lines = CollectedLines()
        var command = UVCommand("/bin/sh", arguments: ["-c", Self.reportingShell], standardOutput: lines.output(on: loop))
        command.teardown = [.signal(.interrupt, wait: .milliseconds(300)), .signal(.hangup, wait: .milliseconds(300)), .signal(.terminate, wait: .seconds(30))]
        #expect(command.terminationGrace == .milliseconds(30_600))
        let child = loop.spawn(command)
        #expect(try await eventually { lines.all == ["ready"] })
        let start = ContinuousClock.now
        child.cancel()
        await #expect(throws: CancellationError.self) { try await child.get() }
        let took = ContinuousClock.now - start
        // The line handlers run on the loop, where the last was queued before the promise
        // settled; this task may look before the loop has run it.
        #expect(try await eventually { lines.all.count >= 4 })
        #expect(lines.all == ["ready", "INT", "HUP", "TERM"])
        #expect(took >= .milliseconds(550), "the second and third signals came before their waits ended: \(took)")
        // Only a hang is caught here: the order above is the behaviour, and under ASan on a
        // busy machine the three signals and the reap have taken 44 s.
        expectTimeLimit(took, under: .seconds(180), "a three-step teardown whose last step ends the child")
    }

    @Test func aTeardownOfNoStepsKillsAtOnce() async throws {
        let loop = try startedLoop("uv-teardown-0")
        defer { loop.shutdown() }
        let lines = CollectedLines()
        var command = UVCommand("/bin/sh", arguments: ["-c", Self.reportingShell], standardOutput: lines.output(on: loop))
        command.teardown = []
        #expect(command.terminationGrace == .zero)
        let child = loop.spawn(command)
        #expect(try await eventually { lines.all == ["ready"] })
        child.cancel()
        await #expect(throws: CancellationError.self) { try await child.get() }
        #expect(lines.all == ["ready"], "a signal other than SIGKILL was sent")
    }

    @Test func aNegativeWaitIsRefusedNamingItsStep() async throws {
        let loop = try startedLoop("uv-teardown-bad")
        defer { loop.shutdown() }
        var command = UVCommand("true")
        command.teardown = [.signal(.interrupt, wait: .seconds(1)), .signal(.terminate, wait: .milliseconds(-1))]
        let error = try await #require(throws: UVError.self) { try await loop.spawn(command).get() }
        #expect(error.code == .invalidArgument)
        #expect(error.message.contains("teardown step 2 (SIGTERM)"), "\(error.message)")
    }

    @Test func settingTheGraceMakesAOneStepTeardown() {
        var command = UVCommand("true", terminationGrace: .seconds(2))
        #expect(command.teardown == [.signal(.terminate, wait: .seconds(2))])
        command.terminationGrace = .zero
        #expect(command.teardown.isEmpty)
        #expect(UVCommand("true").teardown == [.signal(.terminate, wait: .seconds(5))])
    }

    /// The child's pid, process group and session id, as it prints them.
    static func pidAndSession(_ group: UVCommand.ProcessGroup, on loop: UVLoop) async throws -> (pid: Int32, group: Int32, session: Int32) {
        var command = UVCommand("/bin/sh", arguments: ["-c", "echo $$ $(cut -d' ' -f5,6 /proc/$$/stat)"])
        command.processGroup = group
        let result = try await loop.spawn(command).get()
        let numbers = (result.outputText ?? "").split(whereSeparator: \.isWhitespace).compactMap { Int32($0) }
        try #require(numbers.count == 3, "\(result.outputText ?? "")")
        return (numbers[0], numbers[1], numbers[2])
    }

    @Test func aChildInItsOwnSessionLeadsIt() async throws {
        let loop = try startedLoop("uv-session")
        defer { loop.shutdown() }
        let own = try await Self.pidAndSession(.ownSession, on: loop)
        #expect(own.session == own.pid)
        #expect(own.group == own.pid)
        let inherited = try await Self.pidAndSession(.inherited, on: loop)
        #expect(inherited.session == getsid(0))
        #expect(inherited.session != inherited.pid)
        #expect(inherited.group == getpgid(0))
    }

    @Test func aChildInItsOwnGroupLeadsItInThisSession() async throws {
        let loop = try startedLoop("uv-group")
        defer { loop.shutdown() }
        let own = try await Self.pidAndSession(.ownGroup, on: loop)
        #expect(own.group == own.pid)
        #expect(own.group != getpgid(0))
        #expect(own.session == getsid(0))
    }

    /// Starts a shell that starts `sleep` in the background and prints its pid; returns the
    /// child's promise and that pid.
    static func shellWithGrandchild(_ group: UVCommand.ProcessGroup, on loop: UVLoop) async throws -> (Promise<UVProcessResult>, Int32) {
        let grandchild = Lock<Int32>(0)
        var command = UVCommand(
            "/bin/sh", arguments: ["-c", "sleep 3600 & echo $!; wait"],
            standardOutput: .lines(on: loop) { line in grandchild.withLock { $0 = Int32(String(decoding: line, as: UTF8.self)) ?? -1 } })
        command.processGroup = group
        let child = loop.spawn(command)
        #expect(try await eventually { grandchild.withLock { $0 } != 0 })
        return (child, grandchild.withLock { $0 })
    }

    @Test(arguments: [UVCommand.ProcessGroup.ownGroup, .ownSession])
    func cancellingAChildThatLeadsItsGroupStopsWhatItStarted(_ group: UVCommand.ProcessGroup) async throws {
        let loop = try startedLoop("uv-group-kill")
        defer { loop.shutdown() }
        let (child, grandchild) = try await Self.shellWithGrandchild(group, on: loop)
        #expect(isRunning(grandchild))
        child.cancel()
        await #expect(throws: CancellationError.self) { try await child.get() }
        #expect(try await eventually { !isRunning(grandchild) }, "the grandchild \(grandchild) outlived its group's teardown")
    }

    @Test func cancellingAChildInThisProcesssGroupLeavesWhatItStarted() async throws {
        let loop = try startedLoop("uv-group-keep")
        defer { loop.shutdown() }
        let (child, grandchild) = try await Self.shellWithGrandchild(.inherited, on: loop)
        defer { kill(grandchild, SIGKILL) }
        child.cancel()
        await #expect(throws: CancellationError.self) { try await child.get() }
        #expect(isRunning(grandchild), "only the child gets the signal when it shares this process's group")
    }

    @Test func aThousandChildrenInTheirOwnGroupsAreAllStoppedAndReaped() async throws {
        let loop = try startedLoop("uv-groups-1000")
        defer { loop.shutdown() }
        let directory = try TemporaryDirectory()
        // A name of their own, so that other suites' zombies are not counted.
        let program = directory.path + "/group-sleep"
        guard symlink("/usr/bin/sleep", program) == 0 else { throw TestFailure("symlink failed: errno \(errno)") }
        // Two waves of 500: each running child holds a pidfd, and with 1 300 or more
        // descriptors open, Foundation's `Process.run` (which other suites' servers start
        // with meanwhile) reads past the end of its `/proc/self/fd` listing, which
        // AddressSanitizer stops the test process for.
        for wave in 0..<2 {
            let children = (0..<500).map { index in
                var command = UVCommand(program, arguments: ["3600"], standardOutput: .discard, standardError: .discard)
                command.processGroup = (wave * 500 + index) % 3 == 0 ? .ownGroup : .ownSession
                command.teardown = index % 2 == 0 ? [] : [.signal(.terminate, wait: .seconds(30))]
                return loop.spawn(command)
            }
            try await Task.sleep(for: .milliseconds(50))
            for child in children { child.cancel() }
            for child in children {
                await #expect(throws: CancellationError.self) { try await child.get() }
            }
        }
        #expect(zombieChildren(running: "group-sleep").isEmpty)
    }
}
