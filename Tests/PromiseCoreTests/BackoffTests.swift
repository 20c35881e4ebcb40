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

    /// Delays past what `Int64` nanoseconds hold (about 292 years) come back whole, up to
    /// the longest `Duration`, and never trap.
    @Test func delaysPastInt64NanosecondsSaturateInsteadOfTrapping() {
        var none = FixedGenerator(raw: 0)
        var most = FixedGenerator(raw: .max)
        let trillion = Duration.seconds(1_000_000_000_000)
        #expect(Backoff.constant(trillion).delay(beforeRetry: 1, using: &none) == trillion)
        #expect(Backoff.constant(trillion).delay(beforeRetry: .max, using: &most) == trillion)
        let longest = Duration(attoseconds: .max)
        let unbounded = Backoff.exponential(initial: .seconds(1), multiplier: 10, maximum: longest, jitter: 0)
        let exa = unbounded.delay(beforeRetry: 19, using: &none) / .seconds(1_000_000_000_000_000_000)
        #expect(abs(exa - 1) < 1e-12, "10^18 s to 53 bits")
        #expect(unbounded.delay(beforeRetry: 100, using: &none) == longest)
        #expect(unbounded.delay(beforeRetry: .max, using: &none) == longest)
        #expect(Backoff.constant(longest).delay(beforeRetry: 3, using: &none) == longest)
        let jittered = Backoff.exponential(initial: .seconds(1), multiplier: 1e300, maximum: longest, jitter: 1)
        #expect(jittered.delay(beforeRetry: 2, using: &none) == longest)
        let shortest = jittered.delay(beforeRetry: 2, using: &most)
        #expect(shortest > .zero && shortest < .seconds(100_000), "longest / 2^53: \(shortest)")
        var random = SystemRandomNumberGenerator()
        for retry in [1, 2, 3, 64, 1_000, .max] {
            let delay = jittered.delay(beforeRetry: retry, using: &random)
            #expect(delay >= .zero && delay <= longest)
        }
    }

    /// "Retry forever" costs the same at the billionth retry as at the first: the delay is
    /// found without a step per retry, even when it never reaches the maximum.
    @Test func theDelayTakesConstantTimeForAnyRetryNumber() {
        var generator = FixedGenerator(raw: 0)
        let flat = Backoff.exponential(initial: .milliseconds(1), multiplier: 1, maximum: .seconds(30))
        #expect(flat.delay(beforeRetry: .max, using: &generator) == .milliseconds(1))
        let zero = Backoff.exponential(initial: .zero, multiplier: 2, maximum: .seconds(30))
        #expect(zero.delay(beforeRetry: .max, using: &generator) == .zero)
        let slow = Backoff.exponential(initial: .milliseconds(1), multiplier: 1.000_000_001, maximum: .seconds(30), jitter: 0)
        #expect(slow.delay(beforeRetry: .max, using: &generator) == .seconds(30))
        #expect(slow.delay(beforeRetry: 1_000_000_001, using: &generator) > .microseconds(2_718))
        #expect(slow.delay(beforeRetry: 1_000_000_001, using: &generator) < .microseconds(2_719))
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            for retry in stride(from: Int.max, to: Int.max - 10_000, by: -1) {
                _ = flat.delay(beforeRetry: retry, using: &generator)
                _ = slow.delay(beforeRetry: retry / 2, using: &generator)
            }
        }
        #expect(elapsed < .seconds(10), "\(elapsed) for 20 000 delays")
    }

    /// The smallest inputs: zero and sub-nanosecond durations, retry numbers below 1, jitter
    /// at its bounds and out of them.
    @Test func extremeParametersAreClampedNotTrapped() {
        var none = FixedGenerator(raw: 0)
        var most = FixedGenerator(raw: .max)
        #expect(Backoff.constant(.zero).delay(beforeRetry: 1, using: &most) == .zero)
        let tiny = Duration(attoseconds: 7)
        #expect(Backoff.constant(tiny).delay(beforeRetry: 5, using: &none) == tiny)
        let nanos = Backoff.exponential(initial: .nanoseconds(1), multiplier: 2, maximum: .nanoseconds(1_000), jitter: 0)
        #expect((1...11).map { nanos.delay(beforeRetry: $0, using: &none) } == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1_000].map { .nanoseconds($0) })
        for retry in [0, -1, .min] {
            #expect(nanos.delay(beforeRetry: retry, using: &none) == .nanoseconds(1))
        }
        let full = Backoff.exponential(initial: .seconds(8), maximum: .seconds(8), jitter: 1)
        #expect(full.delay(beforeRetry: 1, using: &none) == .seconds(8))
        #expect(full.delay(beforeRetry: 1, using: &most) < .nanoseconds(10))
        let noJitter = Backoff.exponential(initial: .seconds(8), maximum: .seconds(8), jitter: 0)
        #expect(noJitter.delay(beforeRetry: 1, using: &most) == .seconds(8))
        #expect(Backoff.exponential(jitter: .nan).jitter == 0)
        #expect(Backoff.exponential(jitter: -.infinity).jitter == 0)
        #expect(Backoff.exponential(jitter: .infinity).jitter == 1)
        #expect(Backoff.exponential(jitter: -0.5).jitter == 0)
        #expect(Backoff.exponential(multiplier: .nan).multiplier == 1)
        #expect(Backoff.exponential(multiplier: -.infinity).multiplier == 1)
        let jump = Backoff.exponential(initial: .seconds(1), multiplier: .infinity, maximum: .seconds(9), jitter: 0)
        #expect(jump.delay(beforeRetry: 1, using: &none) == .seconds(1))
        #expect(jump.delay(beforeRetry: 2, using: &none) == .seconds(9))
        #expect(jump.delay(beforeRetry: .max, using: &none) == .seconds(9))
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

    @Test func theConditionSeesTheRetriesLeftAndTheLastErrorWins() {
        let context = ManualContext()
        let seen = Recorder<Int>()
        let result = retry(
            on: context, attempts: 5, backoff: .constant(.zero),
            condition: { remainingAttempts, error in
                seen.append(remainingAttempts)
                return (error as? SampleError)?.tag != 3
            }
        ) { attempt -> Promise<Int> in
            Promise(SampleError(tag: attempt))
        }
        context.advance(by: .seconds(1))
        #expect(seen.events == [5, 4, 3])
        #expect(result.error as? SampleError == SampleError(tag: 3))
    }

    /// Both forms of `retry` give `condition` the same thing, google/promises' remaining
    /// attempts: the retries still allowed after the attempt that failed.
    @Test func bothFormsGiveTheConditionTheRetriesLeft() {
        let context = ManualContext()
        let byDelay = Recorder<Int>()
        let byBackoff = Recorder<Int>()
        let delayed = retry(
            on: context, attempts: 3, delay: .zero,
            condition: { left, _ in
                byDelay.append(left); return true
            }
        ) {
            () -> Promise<Int> in Promise(SampleError())
        }
        let backedOff = retry(
            on: context, attempts: 3, backoff: .constant(.zero),
            condition: { left, _ in
                byBackoff.append(left); return true
            }
        ) {
            _ -> Promise<Int> in Promise(SampleError())
        }
        context.advance(by: .seconds(1))
        #expect(byDelay.events == [3, 2, 1])
        #expect(byBackoff.events == byDelay.events)
        #expect(delayed.error != nil && backedOff.error != nil)
    }

    /// `retry` through a backoff whose delays do not fit in `Int64` nanoseconds waits them,
    /// and "retry forever" (`attempts: .max`) counts down from `Int.max` without overflow.
    @Test func retryWaitsHugeDelaysAndCountsDownFromIntMax() {
        let context = ManualContext()
        let left = Recorder<Int>()
        let result = retry(
            on: context, attempts: .max, backoff: .constant(.seconds(1_000_000_000_000)),
            condition: { remainingAttempts, _ in
                left.append(remainingAttempts); return true
            }
        ) { attempt -> Promise<Int> in
            attempt < 3 ? Promise(SampleError(tag: attempt)) : Promise(attempt)
        }
        context.runUntilIdle()
        #expect(context.pendingTimerCount == 1)
        context.advance(by: .seconds(999_999_999_999))
        #expect(result.isPending)
        context.advance(by: .seconds(1))
        context.advance(by: .seconds(1_000_000_000_000))
        #expect(result.value == 3)
        #expect(left.events == [.max, .max - 1])
    }

    @Test func cancellingStopsTheTimerAndTheAttemptInProgress() {
        let context = ManualContext()
        let current = Recorder<(promise: Promise<Int>, resolver: PromiseResolver<Int>)>()
        let result = retry(on: context, attempts: 9, backoff: .exponential(initial: .seconds(1))) { _ -> Promise<Int> in
            let (attempt, attemptResolver) = Promise<Int>.pending()
            current.append((attempt, attemptResolver))
            return attempt
        }
        context.runUntilIdle()
        current.events[0].resolver.reject(SampleError())
        context.advance(by: .seconds(1))
        #expect(current.count == 2, "the first delay is at most one second")
        current.events[1].resolver.reject(SampleError())
        context.runUntilIdle()
        #expect(context.pendingTimerCount == 1)
        result.cancel()
        #expect(context.pendingTimerCount == 0)
        context.advance(by: .seconds(60))
        #expect(current.count == 2)
        #expect(result.isCancelled)
    }
}
