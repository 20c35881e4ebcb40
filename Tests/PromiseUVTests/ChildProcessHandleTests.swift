import Foundation
import PromiseCore
import PromiseTestSupport
import Synchronization
import Testing

@testable import PromiseUV

/// `UVLoop.start(_:)`: a running child's pid, signals, exit and result.
@Suite struct ChildProcessHandleTests {
    @Test func thePidComesFirstThenASignalEndsTheChildAndItsExitAndResultFollow() async throws {
        let loop = try startedLoop("uv-handle")
        defer { loop.shutdown() }
        let printed = Lock<Int32>(0)
        let child = loop.start(
            UVCommand(
                "/bin/sh", arguments: ["-c", "echo $$; exec sleep 3600"],
                standardOutput: .lines(on: loop) { line in printed.withLock { $0 = Int32(String(decoding: line, as: UTF8.self)) ?? -1 } }))
        let pid = try await child.processID.get()
        #expect(pid > 0)
        #expect(try await eventually { printed.withLock { $0 } == pid }, "the pid is not the child's")
        #expect(child.exit.isPending)
        try await child.send(.terminate).get()
        #expect(try await child.exit.get() == .signaled(SIGTERM))
        let result = try await child.result.get()
        #expect(result.exit == .signaled(SIGTERM))
        #expect(result.processID == pid)
    }

    @Test func aSignalAskedForBeforeTheSpawnGoesOutOnceItIsSpawned() async throws {
        let loop = try UVLoop()  // not running yet: the spawn and the signal wait in its queue
        let child = loop.start(UVCommand("sleep", arguments: ["3600"]))
        let sent = child.send(.user1)
        #expect(child.processID.isPending)
        let exit = try await offCooperativePool { try loop.run(until: child.exit) }
        #expect(exit == .signaled(SIGUSR1), "the queued signal did not end the child")
        #expect(sent.isFulfilled)
        try await offCooperativePool { try awaitPromise(loop.shutdown()) }
    }

    @Test func aSignalForAReapedChildIsRefusedAndNothingIsSent() async throws {
        let loop = try startedLoop("uv-handle-reaped")
        defer { loop.shutdown() }
        let child = loop.start(UVCommand("true"))
        #expect(try await child.exit.get() == .exited(0))
        let pid = try await child.processID.get()
        let error = try await #require(throws: UVError.self) { try await child.send(.terminate).get() }
        #expect(error.name == "ESRCH")
        #expect(error.operation == "kill")
        #expect(error.message.contains("(pid \(pid)) has exited"), "\(error.message)")
    }

    /// A number that is no signal is refused with `kill`'s `EINVAL`, not reported as sent, and
    /// the child goes on running.
    @Test(arguments: [Int32(999), -1, 65])
    func aNumberThatIsNoSignalIsRefusedByKill(number: Int32) async throws {
        let loop = try startedLoop("uv-handle-bad-signal")
        defer { loop.shutdown() }
        let child = loop.start(UVCommand("sleep", arguments: ["3600"]))
        _ = try await child.processID.get()
        let error = try await #require(throws: UVError.self) { try await child.send(UVSignal(rawValue: number)).get() }
        #expect(error.name == "EINVAL", "\(error)")
        #expect(error.operation == "kill")
        #expect(child.exit.isPending, "the child must still run")
        try await child.send(.terminate).get()
        #expect(try await child.exit.get() == .signaled(SIGTERM))
    }

    /// Whether this process may make a user and pid namespace (`unshare -r --pid`).
    static let pidNamespaces = system("/usr/bin/unshare -r --pid --fork --mount-proc /bin/true >/dev/null 2>&1") == 0

    /// The pid of a reaped child given to another process: a helper in a pid namespace of its
    /// own hands the pid out again (`ns_last_pid`), and the old handle's signal is refused
    /// without reaching the new holder.
    @Test(.enabled(if: pidNamespaces, "cannot make a pid namespace here (unshare -r --pid)"))
    func aSignalThroughTheHandleOfAReapedChildNeverReachesTheNextHolderOfItsPid() async throws {
        let (status, output) = try await runHelper(["pid-reuse"])
        #expect(status == 0, "\(output)")
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("refused: ") && $0.contains("ESRCH") }, "\(output)")
        #expect(lines.contains("bystander alive"), "\(output)")
    }

    @Test func aRefusedCommandRejectsEveryPromiseWithItsError() async throws {
        let loop = try startedLoop("uv-handle-refused")
        defer { loop.shutdown() }
        let child = loop.start(UVCommand("no-such-program-\(getpid())"))
        await expectUVError(.noSuchFileOrDirectory) { _ = try await child.processID.get() }
        await expectUVError(.noSuchFileOrDirectory) { _ = try await child.exit.get() }
        await expectUVError(.noSuchFileOrDirectory) { _ = try await child.result.get() }
        await expectUVError(.noSuchFileOrDirectory) { try await child.send(.terminate).get() }
    }

    @Test func theExitComesBeforeThePipesOfAGrandchildClose() async throws {
        let loop = try startedLoop("uv-handle-pipes")
        defer { loop.shutdown() }
        // Its own session, so the grandchild can be killed with its group at the end.
        var command = UVCommand("/bin/sh", arguments: ["-c", "echo early; (sleep 3600; echo late) & exit 3"])
        command.processGroup = .ownSession
        let child = loop.start(command)
        let pid = try await child.processID.get()
        defer { kill(-pid, SIGKILL) }
        #expect(try await child.exit.get() == .exited(3))
        #expect(child.result.isPending, "the result settled while a grandchild held the output open")
        // Cancelled after the exit, the result is the child's own, with the output read so far.
        child.result.cancel()
        let result = try await child.result.get()
        #expect(result.exit == .exited(3))
        #expect(result.outputText == "early\n")
    }

    @Test func cancellingTheResultRunsTheTeardownAndTheExitSaysHowItEnded() async throws {
        let loop = try startedLoop("uv-handle-cancel")
        defer { loop.shutdown() }
        let child = loop.start(UVCommand("sleep", arguments: ["3600"]))
        _ = try await child.processID.get()
        child.result.cancel()
        #expect(try await child.exit.get() == .signaled(SIGTERM))
        await #expect(throws: CancellationError.self) { try await child.result.get() }
        // Cancelling the milestones stops nothing: they are observers.
        let other = loop.start(UVCommand("/bin/sh", arguments: ["-c", "sleep 0.2; exit 4"]))
        other.processID.cancel()
        other.exit.cancel()
        #expect(try await other.result.get().exit == .exited(4))
    }

    @Test func signalsFromManyThreadsAtOnceAllGoOut() async throws {
        let loop = try startedLoop("uv-handle-threads")
        defer { loop.shutdown() }
        let lines = CollectedLines()
        let child = loop.start(
            UVCommand(
                "/bin/sh", arguments: ["-c", "trap 'echo hup' HUP; echo ready; \(idleShellLoop)"],
                standardOutput: lines.output(on: loop), terminationGrace: .zero))
        #expect(try await eventually { lines.all == ["ready"] }, "the trap was not set")
        let sent = Lock<[Promise<Void>]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let promise = child.send(.hangup)
            sent.withLock { $0.append(promise) }
        }
        for promise in sent.withLock({ $0 }) { try await promise.get() }
        // Signals of one kind merge while pending, so at least one, at most eight, arrive.
        #expect(try await eventually { lines.all.contains("hup") })
        #expect(lines.all.count { $0 == "hup" } <= 8)
        child.result.cancel()
        await #expect(throws: CancellationError.self) { try await child.result.get() }
    }
}
