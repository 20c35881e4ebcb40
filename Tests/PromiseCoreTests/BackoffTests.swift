import PromiseCore
import PromiseTesting
import Testing

/// Returns the same raw value every time: 0 makes the jitter draw 0, `.max` makes it draw
/// just under 1.
struct FixedGenerator: RandomNumberGenerator {
    var raw: UInt64
    mutating func next() -> UInt64 { raw }
}

@Suite struct BackoffTests {
    @Test func exponentialDelaysGrowUpToTheMaximum() {
        let backoff = Backoff.exponential(initial: .milliseconds(100), multiplier: 2, maximum: .milliseconds(500), jitter: 0)
        var generator = FixedGenerator(raw: 0)
        let delays = (1...6).map { backoff.delay(beforeRetry: $0, using: &generator) }
        #expect(delays == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(500), .milliseconds(500), .milliseconds(500)])
        #expect(backoff.delay(beforeRetry: 10_000, using: &generator) == .milliseconds(500))
    }

    @Test func jitterShortensEachDelayByUpToItsFraction() {
        let backoff = Backoff.exponential(initial: .seconds(1), multiplier: 3, maximum: .seconds(60), jitter: 0.5)
        var none = FixedGenerator(raw: 0)
        var most = FixedGenerator(raw: .max)
        #expect(backoff.delay(beforeRetry: 2, using: &none) == .seconds(3))
        let shortest = backoff.delay(beforeRetry: 2, using: &most)
        #expect(shortest >= .milliseconds(1499) && shortest <= .milliseconds(1501))
        var random = SystemRandomNumberGenerator()
        for retry in 1...20 {
            let full = min(Duration.seconds(1) * Int(pow3(retry - 1)), .seconds(60))
            let delay = backoff.delay(beforeRetry: retry, using: &random)
            #expect(delay <= full && delay >= full / 2 - .milliseconds(1))
        }
    }

    @Test func constantAndClampedParameters() {
        var generator = FixedGenerator(raw: .max)
        let constant = Backoff.constant(.milliseconds(250))
        #expect((1...3).map { constant.delay(beforeRetry: $0, using: &generator) } == Array(repeating: .milliseconds(250), count: 3))
        #expect(constant.description == "constant(0.25 seconds)")
        let odd = Backoff.exponential(initial: .seconds(-1), multiplier: 0.5, maximum: .seconds(-5), jitter: 7)
        #expect(odd.initial == .zero && odd.multiplier == 1 && odd.maximum == .zero && odd.jitter == 1)
        #expect(odd.delay(beforeRetry: 3, using: &generator) == .zero)
    }

    private func pow3(_ n: Int) -> Int { n <= 0 ? 1 : 3 * pow3(n - 1) }
}

@Suite struct RetryBackoffTests {
    @Test func passesTheAttemptNumberAndWaitsTheBackoffsDelays() {
        let context = ManualContext()
        let attempts = Recorder<Int>()
        let backoff = Backoff.exponential(initial: .seconds(1), multiplier: 2, maximum: .seconds(60), jitter: 0)
        let result = retry(on: context, attempts: 3, backoff: backoff) { attempt -> Promise<String> in
            attempts.append(attempt)
            return attempt < 4 ? Promise(SampleError(tag: attempt)) : Promise("done on \(attempt)")
        }
        context.runUntilIdle()
        #expect(attempts.events == [1])
        context.advance(by: .milliseconds(999))
        #expect(attempts.events == [1])
        context.advance(by: .milliseconds(1))
        #expect(attempts.events == [1, 2])
        context.advance(by: .seconds(2))
        #expect(attempts.events == [1, 2, 3])
        context.advance(by: .milliseconds(3999))
        #expect(attempts.count == 3)
        context.advance(by: .milliseconds(1))
        #expect(result.value == "done on 4")
    }

    @Test func theConditionSeesTheFailedAttemptAndTheLastErrorWins() {
        let context = ManualContext()
        let seen = Recorder<Int>()
        let result = retry(
            on: context, attempts: 5, backoff: .constant(.zero),
            condition: { attempt, error in
                seen.append(attempt)
                return (error as? SampleError)?.tag != 3
            }
        ) { attempt -> Promise<Int> in
            Promise(SampleError(tag: attempt))
        }
        context.advance(by: .seconds(1))
        #expect(seen.events == [1, 2, 3])
        #expect(result.error as? SampleError == SampleError(tag: 3))
    }

    @Test func cancellingStopsTheTimerAndTheAttemptInProgress() {
        let context = ManualContext()
        let current = Recorder<Promise<Int>>()
        let result = retry(on: context, attempts: 9, backoff: .exponential(initial: .seconds(1))) { _ -> Promise<Int> in
            let attempt = Promise<Int>.pending()
            current.append(attempt)
            return attempt
        }
        context.runUntilIdle()
        current.events[0].reject(SampleError())
        context.advance(by: .seconds(1))
        #expect(current.count == 2, "the first delay is at most one second")
        current.events[1].reject(SampleError())
        context.runUntilIdle()
        #expect(context.pendingTimerCount == 1)
        result.cancel()
        #expect(context.pendingTimerCount == 0)
        context.advance(by: .seconds(60))
        #expect(current.count == 2)
        #expect(result.isCancelled)
    }
}
