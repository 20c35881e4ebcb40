import Dispatch
import Glibc
import PromiseCore
import PromiseUV
import Testing

@Suite struct BlockingWaitTests {
    /// Three threads wait on one loop that no thread runs: one of them drives it, and when its
    /// own promise has settled another waiting thread takes the loop over, so every timer fires.
    @Test func severalThreadsWaitingOnALoopNobodyRunsAllSeeTheirPromisesSettle() async throws {
        let loop = try UVLoop()
        let waits = [50, 200, 400].map { milliseconds in
            onNewThread { () -> (Result<Int, any Error>, Double) in
                let started = nowMilliseconds()
                let outcome = Result {
                    try awaitPromise(
                        loop.after(.milliseconds(milliseconds)).then(on: loop) { milliseconds },
                        timeout: .seconds(5)
                    )
                }
                return (outcome, nowMilliseconds() - started)
            }
        }
        for (index, wait) in waits.enumerated() {
            let (outcome, elapsed) = try await wait.get()
            #expect(try outcome.get() == [50, 200, 400][index])
            #expect(elapsed < 3000, "waiter \(index) took \(Int(elapsed)) ms")
        }
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
        let (short, elapsed) = try await onNewThread { () -> (Result<Void, any Error>, Double) in
            let started = nowMilliseconds()
            let outcome = Result { try awaitPromise(loop.after(.milliseconds(20)), timeout: .seconds(5)) }
            return (outcome, nowMilliseconds() - started)
        }.get()
        #expect(throws: Never.self) { try short.get() }
        #expect(elapsed < 3000, "the short wait took \(Int(elapsed)) ms")
        let longOutcome = try await long.get()
        #expect(throws: Never.self) { try longOutcome.get() }
        try await loop.shutdown().get()
    }
}

extension BlockingWaitTests {
    /// A waiter whose promise settles in the first phase of a `uv_run` pass (a timer that an
    /// earlier wait started, due by the time this wait begins) returns at once, instead of
    /// polling until the loop's next timer or its own timeout.
    @Test(arguments: [false, true])
    func aPromiseSettledBeforeThePollEndsTheWaitAtOnce(chainedOnTheLoop: Bool) async throws {
        let loop = try UVLoop()
        let elapsed = try await onNewThread { () -> Result<Double, any Error> in
            Result {
                let due = loop.after(.milliseconds(10))
                let later = loop.after(.seconds(60))  // what the loop would poll for
                try awaitPromise(loop.after(.milliseconds(1)), timeout: .seconds(20))  // starts all three
                usleep(50_000)  // `due` is overdue now; nobody runs the loop
                let started = nowMilliseconds()
                if chainedOnTheLoop {
                    _ = try awaitPromise(due.then(on: loop) { 1 }, timeout: .seconds(20))
                } else {
                    try awaitPromise(due, timeout: .seconds(20))
                }
                later.cancel()
                return nowMilliseconds() - started
            }
        }.get().get()
        #expect(elapsed < 10_000, "the wait took \(Int(elapsed)) ms")
        try await loop.shutdown().get()
    }
}

extension BlockingWaitTests {
    /// A thread running the loop in `awaitPromise` for a chain that waits for a promise settled
    /// elsewhere, when another thread shuts the loop down: the wait goes on until that promise
    /// settles and ends with the chain's outcome (its callback refused by the closed loop),
    /// never with `timedOut` before its timeout has passed (a day: a busy machine may keep
    /// this test from going on for minutes).
    @Test(arguments: [nil, Duration.seconds(86_400)] as [Duration?])
    func aWaitRunningTheLoopOutlivesTheLoopsShutdown(timeout: Duration?) async throws {
        let loop = try UVLoop()
        let (source, resolver) = Promise<Int>.pending()
        let chained = source.then(on: loop) { $0 + 1 }
        let waiter = onNewThread { Result { try awaitPromise(chained, timeout: timeout) } }
        // Fires only once the waiting thread runs the loop.
        try await loop.after(.zero).get()
        try await loop.shutdown().get()
        #expect(waiter.isPending, "the wait ended with the shutdown, before its promise settled")
        resolver.fulfill(1)
        let outcome = try await waiter.get()
        let refusal = try #require(chained.error)
        #expect(throws: (any Error).self) { try outcome.get() }
        if case .failure(let error) = outcome {
            #expect("\(error)" == "\(refusal)")
            #expect((error as? PromiseError)?.code != .timedOut, "\(error)")
        }
    }
}

/// The loop's timers given durations past `Int64.max` seconds (which `Duration` holds) wait as
/// long as a libuv timer can and stop when cancelled, never crashing.
@Suite struct ExtremeLoopDurationTests {
    @Test(arguments: [Duration(attoseconds: .max), .seconds(1e20)])
    func theLoopsTimersTakeTheLongestDurations(_ interval: Duration) async throws {
        let loop = try UVLoop()
        let runner = onNewThread { loop.run() }
        let timer = loop.after(interval)
        let (source, resolver) = Promise<Int>.pending()
        let timed = source.timeout(on: loop, interval)
        let retried = retry(on: loop, attempts: 1, delay: interval) { Promise<Int>(PromiseError(.invalidArgument, message: "fails")) }
        let ticks = loop.every(interval, keepsLoopAlive: false) { _ in }
        try await Promise(()).delay(.milliseconds(20)).get()
        for promise in [timer.then { 0 }, timed, retried] {
            #expect(promise.isPending)
            promise.cancel()
            await #expect(throws: CancellationError.self) { try await promise.get() }
        }
        ticks.cancel()
        resolver.fulfill(1)
        try await loop.shutdown().get()
        try await runner.get()
    }
}
