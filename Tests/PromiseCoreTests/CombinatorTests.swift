import Dispatch
import PromiseCore
import PromiseTesting
import Testing

@Suite struct CombinatorTests {
    @Test func allKeepsInputOrderWhateverOrderTheyResolveIn() throws {
        let inputs = (0..<5).map { _ in Promise<Int>.pending() }
        let combined = all(inputs.map(\.promise))
        for index in [3, 1, 4, 0, 2] { inputs[index].resolver.fulfill(index * 10) }
        #expect(try awaitPromise(combined) == [0, 10, 20, 30, 40])
    }

    @Test func allTakesTheSamePromiseTwice() throws {
        let (shared, sharedResolver) = Promise<Int>.pending()
        let (other, otherResolver) = Promise<Int>.pending()
        let combined = all([shared, other, shared])
        otherResolver.fulfill(2)
        sharedResolver.fulfill(7)
        #expect(try awaitPromise(combined) == [7, 2, 7])
    }

    @Test func allGathersValuesFulfilledFromManyThreadsAtOnce() throws {
        let count = 64
        let pending = (0..<count).map { _ in Promise<[Int]>.pending() }
        let inputs = pending.map(\.promise)
        let resolvers = pending.map(\.resolver)
        let combined = all(inputs)
        DispatchQueue.concurrentPerform(iterations: count) { index in
            resolvers[index].fulfill([index, index * index])
        }
        #expect(try awaitPromise(combined) == (0..<count).map { [$0, $0 * $0] })
        let outcomes = allSettled(inputs)
        #expect(try awaitPromise(outcomes).map { try $0.get() } == (0..<count).map { [$0, $0 * $0] })
    }

    @Test func valuesGatheredBeforeARejectionAreReleased() {
        let released = Counter()
        var combined: Promise<[Tracked]>? = nil
        do {
            let (first, firstResolver) = Promise<Tracked>.pending()
            let (second, secondResolver) = Promise<Tracked>.pending()
            let (third, thirdResolver) = Promise<Tracked>.pending()
            combined = all([first, second, third])
            firstResolver.fulfill(Tracked(released))
            secondResolver.reject(SampleError(tag: 1))
            thirdResolver.fulfill(Tracked(released))
        }
        #expect(combined?.error as? SampleError == SampleError(tag: 1))
        combined = nil
        #expect(released.value == 2)
    }

    @Test func allOfNothingFulfilsWithAnEmptyArray() throws {
        #expect(try awaitPromise(all([Promise<Int>]())) == [])
    }

    @Test func allRejectsWithTheFirstRejection() {
        let (a, aResolver) = Promise<Int>.pending()
        let (b, bResolver) = Promise<Int>.pending()
        let combined = all([a, b])
        bResolver.reject(SampleError(tag: 2))
        aResolver.reject(SampleError(tag: 1))
        #expect(combined.error as? SampleError == SampleError(tag: 2))
    }

    @Test func heterogeneousAllReturnsATuple() throws {
        let (number, numberResolver) = Promise<Int>.pending()
        let (text, textResolver) = Promise<String>.pending()
        let flag = Promise(true)
        let combined = all(number, text, flag)
        textResolver.fulfill("b")
        numberResolver.fulfill(1)
        let (n, t, f) = try awaitPromise(combined)
        #expect(n == 1 && t == "b" && f)
    }

    @Test func heterogeneousAllRejects() {
        let combined = all(Promise(1), Promise<String>(SampleError(tag: 4)))
        #expect(outcome(of: combined).failureValue as? SampleError == SampleError(tag: 4))
    }

    @Test func anySettlesWithEveryOutcome() throws {
        let outcomes = try awaitPromise(any([Promise(1), Promise<Int>(SampleError(tag: 1)), Promise(3)]))
        #expect(outcomes.count == 3)
        #expect(try outcomes[0].get() == 1)
        #expect(outcomes[1].failureValue as? SampleError == SampleError(tag: 1))
        #expect(try outcomes[2].get() == 3)
    }

    @Test func anyRejectsOnlyWhenEveryInputRejects() {
        let combined = any([Promise<Int>(SampleError(tag: 1)), Promise<Int>(SampleError(tag: 2))])
        #expect(outcome(of: combined).failureValue as? SampleError == SampleError(tag: 1))
    }

    @Test func raceSettlesLikeTheFirstToSettle() {
        let (a, aResolver) = Promise<Int>.pending()
        let (b, bResolver) = Promise<Int>.pending()
        let winner = race([a, b])
        bResolver.reject(SampleError(tag: 9))
        aResolver.fulfill(1)
        #expect(winner.error as? SampleError == SampleError(tag: 9))
    }

    @Test func raceOfNothingRejectsInsteadOfHanging() {
        let empty = race([Promise<Int>]())
        #expect((empty.error as? PromiseError)?.code == .invalidArgument)
    }
}

/// A value that reports its release to a ``Counter``.
private final class Tracked: Sendable {
    let counter: Counter
    init(_ counter: Counter) { self.counter = counter }
    deinit { counter.increment() }
}

@Suite struct RetryTests {
    @Test func retriesUntilSuccess() throws {
        let context = ManualContext()
        let attempts = Counter()
        let result = retry(on: context, attempts: 3, delay: .seconds(1)) { () -> Promise<Int> in
            let attempt = attempts.increment()
            return attempt < 3 ? Promise(SampleError(tag: attempt)) : Promise(attempt)
        }
        context.runUntilIdle()
        #expect(attempts.value == 1)
        context.advance(by: .seconds(1))
        #expect(attempts.value == 2)
        context.advance(by: .seconds(1))
        #expect(result.value == 3)
    }

    /// Each attempt's work runs with its number in `AdapterSupport.retryAttempt`, where the
    /// adapters' spans read it; outside the work it is `nil`.
    @Test func eachAttemptsWorkSeesItsNumber() {
        let context = ManualContext()
        let seen = Recorder<Int?>()
        let result = retry(on: context, attempts: 2, delay: .milliseconds(10)) { () -> Promise<Int> in
            seen.append(AdapterSupport.retryAttempt)
            return Promise(SampleError(tag: 0))
        }
        context.advance(by: .seconds(1))
        #expect(result.error is SampleError)
        #expect(seen.events == [1, 2, 3])
        #expect(AdapterSupport.retryAttempt == nil)
        let backedOff = Recorder<Int?>()
        _ = retry(on: context, attempts: 1, backoff: .constant(.milliseconds(1))) { attempt -> Promise<Int> in
            backedOff.append(AdapterSupport.retryAttempt.map { $0 - attempt })
            return Promise(SampleError(tag: attempt))
        }
        context.advance(by: .seconds(1))
        #expect(backedOff.events == [0, 0])
    }

    @Test func givesUpAfterTheLastAttemptWithItsError() {
        let context = ManualContext()
        let attempts = Counter()
        let result = retry(on: context, attempts: 2, delay: .milliseconds(10)) { () -> Promise<Int> in
            Promise(SampleError(tag: attempts.increment()))
        }
        context.advance(by: .seconds(1))
        #expect(attempts.value == 3)
        #expect(result.error as? SampleError == SampleError(tag: 3))
    }

    @Test func theConditionSeesRemainingAttemptsAndCanStop() {
        let context = ManualContext()
        let seen = Recorder<Int>()
        let result = retry(
            on: context, attempts: 5, delay: .zero,
            condition: { remaining, error in
                seen.append(remaining)
                return (error as? SampleError)?.tag != 2
            }
        ) { () -> Promise<Int> in
            Promise(SampleError(tag: seen.count + 1))
        }
        context.advance(by: .seconds(1))
        #expect(seen.events == [5, 4])
        #expect(result.error as? SampleError == SampleError(tag: 2))
    }

    @Test func defaultsAreOneRetryAfterOneSecond() {
        let context = ManualContext()
        let attempts = Counter()
        let result = retry(on: context) { () -> Promise<Int> in
            Promise(SampleError(tag: attempts.increment()))
        }
        context.advance(by: .milliseconds(999))
        #expect(attempts.value == 1)
        context.advance(by: .milliseconds(1))
        #expect(attempts.value == 2)
        #expect(result.error as? SampleError == SampleError(tag: 2))
    }

    @Test func cancellingStopsTheTimerAndTheAttemptInProgress() {
        let context = ManualContext()
        let current = Recorder<(promise: Promise<Int>, resolver: PromiseResolver<Int>)>()
        let result = retry(on: context, attempts: 3, delay: .seconds(1)) { () -> Promise<Int> in
            let (attempt, attemptResolver) = Promise<Int>.pending()
            current.append((attempt, attemptResolver))
            return attempt
        }
        context.runUntilIdle()
        current.events[0].resolver.reject(SampleError())
        context.advance(by: .seconds(1))
        #expect(current.count == 2)
        result.cancel()
        #expect(current.events[1].promise.isCancelled)
        context.advance(by: .seconds(10))
        #expect(current.count == 2)
        #expect(result.isCancelled)
    }

    @Test func aThrowingAttemptCountsAsARejection() throws {
        let context = ManualContext()
        let attempts = Counter()
        let result = retry(on: context, attempts: 1, delay: .zero) { () -> Promise<Int> in
            if attempts.increment() == 1 { throw SampleError() }
            return Promise(2)
        }
        context.advance(by: .seconds(1))
        #expect(result.value == 2)
    }
}

@Suite struct WrapTests {
    func later(_ body: @escaping @Sendable () -> Void) { Promises.defaultQueue.async(execute: body) }

    @Test func wrapsEveryCompletionShape() throws {
        let plain = wrap { done in later { done() } }
        let value = wrap { (done: @escaping @Sendable (Int) -> Void) in later { done(4) } }
        let errorOnly = wrap { (done: @escaping @Sendable ((any Error)?) -> Void) in later { done(SampleError(tag: 5)) } }
        let pair = wrap { (done: @escaping @Sendable (String?, (any Error)?) -> Void) in later { done("x", nil) } }
        let neither = wrap { (done: @escaping @Sendable (String?, (any Error)?) -> Void) in later { done(nil, nil) } }
        let result = wrap { (done: @escaping @Sendable (Result<Int, SampleError>) -> Void) in later { done(.success(6)) } }
        try awaitPromise(plain)
        #expect(try awaitPromise(value) == 4)
        #expect(outcome(of: errorOnly).failureValue as? SampleError == SampleError(tag: 5))
        #expect(try awaitPromise(pair) == "x")
        #expect((outcome(of: neither).failureValue as? PromiseError)?.code == .invalidArgument)
        #expect(try awaitPromise(result) == 6)
    }

    @Test func onlyTheFirstCompletionCounts() throws {
        let value = wrap { (done: @escaping @Sendable (Int) -> Void) in
            done(1)
            done(2)
        }
        #expect(try awaitPromise(value) == 1)
    }

    @Test func aThrowingWorkClosureRejects() {
        let value = wrap { (_: @escaping @Sendable (Int) -> Void) in throw SampleError(tag: 8) }
        #expect(value.error as? SampleError == SampleError(tag: 8))
    }
}

@Suite struct MapTests {
    @Test func runsAtMostTheLimitAtOnceAndKeepsInputOrder() throws {
        let context = ManualContext()
        let started = Recorder<Int>()
        let gates = Recorder<(Int, PromiseResolver<Int>)>()
        let mapped = Promise.map(on: context, Array(0..<10), concurrency: 3) { item in
            started.append(item)
            let (gate, gateResolver) = Promise<Int>.pending()
            gates.append((item, gateResolver))
            return gate
        }
        context.runUntilIdle()
        #expect(started.events == [0, 1, 2])
        for step in 0..<10 {
            // Finish the newest running item first, to scramble completion order.
            let running = gates.events.filter { $0.1.isPending }
            #expect(running.count == min(3, 10 - step))
            let (item, gate) = running.last!
            gate.fulfill(item * item)
            context.runUntilIdle()
        }
        #expect(try awaitPromise(mapped) == (0..<10).map { $0 * $0 })
        #expect(started.events.sorted() == Array(0..<10))
    }

    @Test func theFirstFailureCancelsTheRestAndStartsNothingMore() {
        let context = ManualContext()
        let gates = Recorder<(promise: Promise<Int>, resolver: PromiseResolver<Int>)>()
        let mapped = Promise.map(on: context, Array(0..<10), concurrency: 2) { _ in
            let (gate, gateResolver) = Promise<Int>.pending()
            gates.append((gate, gateResolver))
            return gate
        }
        context.runUntilIdle()
        gates.events[0].resolver.reject(SampleError(tag: 0))
        context.runUntilIdle()
        #expect(mapped.error as? SampleError == SampleError(tag: 0))
        #expect(gates.events[1].promise.isCancelled)
        #expect(gates.count == 2)
    }

    @Test func cancellingTheResultCancelsRunningWork() {
        let context = ManualContext()
        let gates = Recorder<(promise: Promise<Int>, resolver: PromiseResolver<Int>)>()
        let mapped = Promise.map(on: context, [1, 2, 3], concurrency: 2) { _ in
            let (gate, gateResolver) = Promise<Int>.pending()
            gates.append((gate, gateResolver))
            return gate
        }
        context.runUntilIdle()
        mapped.cancel()
        context.runUntilIdle()
        #expect(gates.count == 2)
        #expect(gates.events.allSatisfy { $0.promise.isCancelled })
    }

    @Test func rejectsABadLimitAndHandlesNoItems() throws {
        let bad = Promise.map([1], concurrency: 0) { Promise($0) }
        #expect((bad.error as? PromiseError)?.code == .invalidArgument)
        #expect(try awaitPromise(Promise.map([Int](), concurrency: 4) { Promise($0) }) == [])
    }

    @Test func worksOnARealConcurrentQueue() throws {
        let queue = DispatchQueueFactory.concurrent()
        let mapped = Promise.map(on: queue, Array(0..<200), concurrency: 8) { item in
            Promise(on: queue) { item + 1 }
        }
        #expect(try awaitPromise(mapped, timeout: .seconds(10)) == Array(1...200))
    }
}

import Dispatch
enum DispatchQueueFactory {
    static func concurrent() -> DispatchQueue {
        DispatchQueue(label: "test.concurrent", attributes: .concurrent)
    }
}

@Suite struct WrapTwoValueTests {
    func later(_ body: @escaping @Sendable () -> Void) { Promises.defaultQueue.async(execute: body) }

    @Test func errorFirstHandlers() throws {
        let value = wrap { (done: @escaping @Sendable ((any Error)?, Int?) -> Void) in self.later { done(nil, 5) } }
        #expect(try awaitPromise(value, timeout: .seconds(5)) == 5)
        let failed = wrap { (done: @escaping @Sendable ((any Error)?, Int?) -> Void) in self.later { done(SampleError(tag: 1), 5) } }
        #expect(outcome(of: failed).failureValue as? SampleError == SampleError(tag: 1), "an error wins over a value")
        let neither = wrap { (done: @escaping @Sendable ((any Error)?, Int?) -> Void) in done(nil, nil) }
        #expect((outcome(of: neither).failureValue as? PromiseError)?.code == .invalidArgument)
    }

    @Test func twoValueHandlers() throws {
        let both = wrap { (done: @escaping @Sendable (Int?, String?, (any Error)?) -> Void) in self.later { done(1, "a", nil) } }
        let pair = try awaitPromise(both, timeout: .seconds(5))
        #expect(pair.0 == 1 && pair.1 == "a")
        let onlySecond = wrap { (done: @escaping @Sendable (Int?, String?, (any Error)?) -> Void) in done(nil, "b", nil) }
        let kept = try awaitPromise(onlySecond, timeout: .seconds(5))
        #expect(kept.0 == nil && kept.1 == "b")
        let failed = wrap { (done: @escaping @Sendable (Int?, String?, (any Error)?) -> Void) in done(1, "a", SampleError(tag: 2)) }
        #expect(outcome(of: failed).failureValue as? SampleError == SampleError(tag: 2))
        let neither = wrap { (done: @escaping @Sendable (Int?, String?, (any Error)?) -> Void) in done(nil, nil, nil) }
        #expect((outcome(of: neither).failureValue as? PromiseError)?.code == .invalidArgument)
        let thrown = wrap { (_: @escaping @Sendable (Int?, String?, (any Error)?) -> Void) in throw SampleError(tag: 3) }
        #expect(outcome(of: thrown).failureValue as? SampleError == SampleError(tag: 3))
    }
}
