import Dispatch
import PromiseCore
import PromiseTesting
import Testing

/// Promises/A+ 2.1: a promise is pending, then fulfilled or rejected, exactly once.
/// Cancellation (DESIGN.md) is a rejection with `CancellationError` and obeys the same rule.
@Suite("A+ 2.1 Promise states")
struct APlus2_1_StatesTests {
    // MARK: 2.1.1 pending

    @Test("2.1.1 a pending promise is neither fulfilled nor rejected")
    func pendingHasNoOutcome() {
        let (promise, resolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(resolver) {} }
        #expect(promise.isPending)
        #expect(!promise.isFulfilled)
        #expect(!promise.isRejected)
        #expect(!promise.isCancelled)
        #expect(promise.value == nil)
        #expect(promise.error == nil)
    }

    @Test("2.1.1.1 a pending promise may become fulfilled")
    func pendingMayBecomeFulfilled() {
        let (promise, resolver) = Promise<Int>.pending()
        resolver.fulfill(7)
        #expect(!promise.isPending)
        #expect(promise.isFulfilled)
        #expect(!promise.isRejected)
        #expect(promise.value == 7)
        #expect(promise.error == nil)
    }

    @Test("2.1.1.1 a pending promise may become rejected")
    func pendingMayBecomeRejected() {
        let (promise, resolver) = Promise<Int>.pending()
        resolver.reject(APlusError(1))
        #expect(!promise.isPending)
        #expect(!promise.isFulfilled)
        #expect(promise.isRejected)
        #expect(!promise.isCancelled)
        #expect(promise.value == nil)
        #expect(promise.aplusError == APlusError(1))
    }

    @Test("2.1.1.1 cancelling a pending promise rejects it with CancellationError")
    func pendingMayBeCancelled() {
        let (promise, resolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(resolver) {} }
        promise.cancel()
        #expect(promise.isRejected)
        #expect(promise.isCancelled)
        #expect(promise.error is CancellationError)
    }

    @Test("2.1.1.1 resolve(_:) with a Result moves to the matching state")
    func resolveWithResult() {
        let (fulfilled, fulfilledResolver) = Promise<Int>.pending()
        fulfilledResolver.resolve(.success(3))
        #expect(fulfilled.value == 3)
        let (rejected, rejectedResolver) = Promise<Int>.pending()
        rejectedResolver.resolve(.failure(APlusError(4)))
        #expect(rejected.aplusError == APlusError(4))
    }

    @Test("2.1.1 the resolved initialisers start out fulfilled or rejected")
    func resolvedInitialisers() {
        let fulfilled = Promise(5)
        #expect(fulfilled.isFulfilled && fulfilled.value == 5)
        let rejected = Promise<Int>(APlusError(6))
        #expect(rejected.isRejected && rejected.aplusError == APlusError(6))
    }

    // MARK: 2.1.2 fulfilled

    @Test("2.1.2 once fulfilled, later fulfill, reject, resolve and cancel are ignored")
    func fulfilledIgnoresLaterResolutions() {
        let first = APlusToken(1)
        let (promise, resolver) = Promise<APlusToken>.pending()
        let cancelHandlerRuns = APlusRecorder<Int>()
        promise.onCancel { cancelHandlerRuns.record(1) }
        resolver.fulfill(first)
        resolver.fulfill(APlusToken(2))
        resolver.reject(APlusError(3))
        resolver.resolve(.success(APlusToken(4)))
        resolver.resolve(.failure(APlusError(5)))
        promise.cancel()
        #expect(promise.isFulfilled)
        #expect(!promise.isRejected)
        #expect(!promise.isCancelled)
        #expect(promise.value === first)
        #expect(promise.error == nil)
        #expect(cancelHandlerRuns.count == 0)
    }

    @Test("2.1.2.2 callbacks added after later resolution attempts still see the first value")
    func fulfilledValueNeverChangesForCallbacks() {
        let context = ManualContext()
        let (promise, resolver) = Promise<Int>.pending()
        let seen = APlusRecorder<Int>()
        promise.then(on: context) { seen.record($0) }
        resolver.fulfill(1)
        resolver.fulfill(2)
        resolver.reject(APlusError(3))
        context.runUntilIdle()
        promise.then(on: context) { seen.record($0) }
        resolver.fulfill(4)
        context.runUntilIdle()
        #expect(seen.events == [1, 1])
        #expect(promise.value == 1)
    }

    @Test("2.1.2 the closure initialiser: only the first call of fulfill/reject counts")
    func closureInitialiserFirstCallWins() {
        let context = ManualContext()
        let promise = Promise<Int>(on: context) { fulfill, reject in
            fulfill(1)
            reject(APlusError(2))
            fulfill(3)
        }
        #expect(promise.isPending)
        context.runUntilIdle()
        #expect(promise.value == 1)
        #expect(promise.error == nil)
    }

    // MARK: 2.1.3 rejected

    @Test("2.1.3 once rejected, later fulfill, reject, resolve and cancel are ignored")
    func rejectedIgnoresLaterResolutions() {
        let (promise, resolver) = Promise<Int>.pending()
        let cancelHandlerRuns = APlusRecorder<Int>()
        promise.onCancel { cancelHandlerRuns.record(1) }
        resolver.reject(APlusError(1))
        resolver.fulfill(2)
        resolver.reject(APlusError(3))
        resolver.resolve(.success(4))
        promise.cancel()
        #expect(promise.isRejected)
        #expect(!promise.isFulfilled)
        #expect(!promise.isCancelled)
        #expect(promise.value == nil)
        #expect(promise.aplusError == APlusError(1))
        #expect(cancelHandlerRuns.count == 0)
    }

    @Test("2.1.3.2 callbacks see the first reason, however often rejection is attempted")
    func rejectedReasonNeverChangesForCallbacks() {
        let context = ManualContext()
        let (promise, resolver) = Promise<Int>.pending()
        let seen = APlusRecorder<Int>()
        promise.catch(on: context) { seen.record(($0 as? APlusError)?.id ?? -1) }
        resolver.reject(APlusError(1))
        resolver.reject(APlusError(2))
        resolver.fulfill(3)
        context.runUntilIdle()
        promise.catch(on: context) { seen.record(($0 as? APlusError)?.id ?? -1) }
        resolver.reject(APlusError(4))
        context.runUntilIdle()
        #expect(seen.events == [1, 1])
    }

    @Test("2.1.3 a cancelled promise stays cancelled: later fulfill and reject are ignored")
    func cancelledIgnoresLaterResolutions() {
        let (promise, resolver) = Promise<Int>.pending()
        let cancelHandlerRuns = APlusRecorder<Int>()
        promise.onCancel { cancelHandlerRuns.record(1) }
        promise.cancel()
        resolver.fulfill(1)
        resolver.reject(APlusError(2))
        promise.cancel()
        #expect(promise.isCancelled)
        #expect(promise.value == nil)
        #expect(promise.error is CancellationError)
        #expect(cancelHandlerRuns.count == 1)
    }

    @Test("2.1.3 cancelling a pending promise rejects its dependents with CancellationError")
    func cancellationReachesDependents() {
        let context = ManualContext()
        let (source, sourceResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(sourceResolver) {} }
        let ran = APlusRecorder<Int>()
        let child = source.then(on: context) { value -> Int in
            ran.record(value)
            return value
        }
        source.cancel()
        context.runUntilIdle()
        #expect(ran.count == 0)
        #expect(child.isCancelled)
    }

    // MARK: exactly once, under contention

    @Test("2.1 racing resolutions from many threads: exactly one wins and everyone sees it")
    func racingResolutionsSettleOnce() throws {
        for _ in 0..<20 {
            let queue = DispatchQueue(label: "aplus.2.1.race")
            let (promise, resolver) = Promise<Int>.pending()
            let seen = APlusRecorder<Int>()
            let observer = promise.then(on: queue) { seen.record($0) }
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                if index % 4 == 3 {
                    resolver.reject(APlusError(index))
                } else {
                    resolver.fulfill(index)
                }
            }
            let winner = promise.value
            let reason = promise.aplusError
            // Exactly one outcome.
            #expect((winner == nil) != (reason == nil))
            if let winner {
                #expect(try awaitPromise(observer, timeout: .seconds(5)) == winner)
                #expect(seen.events == [winner])
            } else {
                #expect(throws: APlusError.self) { try awaitPromise(observer, timeout: .seconds(5)) }
                #expect(seen.count == 0)
                #expect(observer.aplusError == reason)
            }
            // Still the same afterwards.
            resolver.fulfill(100)
            resolver.reject(APlusError(100))
            #expect(promise.value == winner)
            #expect(promise.aplusError == reason)
        }
    }
}
