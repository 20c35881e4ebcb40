import Dispatch
import PromiseCore
import PromiseUV
import Testing

@Suite struct BlockingWaitTests {
    /// Three threads wait on one loop that no thread runs: one of them drives it, and when its
    /// own promise has settled another waiting thread takes the loop over, so every timer fires.
    @Test func severalThreadsWaitingOnALoopNobodyRunsAllSeeTheirPromisesSettle() async throws {
        let loop = try UVLoop()
        let started = nowMilliseconds()
        let waits = [50, 200, 400].map { milliseconds in
            onNewThread { () -> Result<Int, any Error> in
                Result {
                    try awaitPromise(
                        loop.after(.milliseconds(milliseconds)).then(on: loop) { milliseconds },
                        timeout: .seconds(5)
                    )
                }
            }
        }
        for (index, wait) in waits.enumerated() {
            let expected = [50, 200, 400][index]
            #expect(try await wait.get().get() == expected)
        }
        let elapsed = nowMilliseconds() - started
        #expect(elapsed < 3000, "the last waiter took \(Int(elapsed)) ms")
        try await onNewThread { loop.run() }.get()
        try await loop.shutdown().get()
    }

    /// The thread driving the loop is the one with the longest wait: the others see their
    /// promises settle while it drives, and leave.
    @Test func waitersWhosePromisesSettleWhileAnotherDrivesReturnAtOnce() async throws {
        let loop = try UVLoop()
        let long = onNewThread { () -> Result<Void, any Error> in
            Result { try awaitPromise(loop.after(.milliseconds(300)), timeout: .seconds(5)) }
        }
        try await Task.sleep(for: .milliseconds(50))
        let started = nowMilliseconds()
        let short = try await onNewThread { () -> Result<Void, any Error> in
            Result { try awaitPromise(loop.after(.milliseconds(20)), timeout: .seconds(5)) }
        }.get()
        #expect(throws: Never.self) { try short.get() }
        #expect(nowMilliseconds() - started < 250)
        let longOutcome = try await long.get()
        #expect(throws: Never.self) { try longOutcome.get() }
        try await loop.shutdown().get()
    }
}
