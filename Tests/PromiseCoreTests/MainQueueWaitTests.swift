import PromiseTestSupport
import Testing

/// `awaitPromise` and the main queue, which on Linux runs only while the main thread calls
/// `dispatchMain()` or `RunLoop.main.run()`. Each case runs in a helper process of its own
/// (`Tests/PromiseCoreHelper`), since only a process's own main thread shows the behaviour.
@Suite struct MainQueueWaitTests {
    /// The helper's one line for `mode`; a hang is reported by `runHelperProgram` after 20 s.
    private func line(_ mode: String) async throws -> String {
        let result = try await runHelperProgram("promise-core-helper", [mode], timeout: .seconds(20))
        #expect(result.status == 0, "promise-core-helper \(mode) exited with \(result.status): \(result.output)")
        return result.output.split(separator: "\n").last.map(String.init) ?? ""
    }

    @Test func waitingOnTheMainThreadForTheMainQueueAsDefaultContextThrowsDeadlock() async throws {
        let output = try await line("default-main")
        #expect(output.hasPrefix("deadlock:"), "\(output)")
        #expect(output.contains("dispatchMain()"), "\(output)")
        #expect(output.contains("RunLoop.main.run()"), "\(output)")
    }

    @Test func aWaitWithATimeoutOnTheMainThreadThrowsDeadlockAtOnce() async throws {
        let output = try await line("timed-main")
        #expect(output.hasPrefix("deadlock:"), "\(output)")
    }

    @Test func waitingInAMainQueueBlockForTheMainQueueThrowsDeadlock() async throws {
        let output = try await line("main-queue-block")
        #expect(output.hasPrefix("deadlock:"), "\(output)")
    }

    @Test func aWaitOnAnotherThreadTimesOutSayingTheMainQueueMayNotRun() async throws {
        let output = try await line("other-thread")
        #expect(output.hasPrefix("timedOut:"), "\(output)")
        #expect(output.contains("DispatchQueue.main"), "\(output)")
        #expect(output.contains("dispatchMain()"), "\(output)")
    }

    @Test func aWaitOnAnotherThreadWhileTheMainThreadDrainsTheQueueSucceeds() async throws {
        #expect(try await line("drained") == "value 21")
    }
}
