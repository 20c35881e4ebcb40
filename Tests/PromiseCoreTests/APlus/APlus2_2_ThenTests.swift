import Dispatch
import PromiseCore
import PromiseTesting
import Testing

/// Promises/A+ 2.2: the `then` method, clauses 2.2.1 to 2.2.5.
/// 2.2.6 (ordering) and 2.2.7 (the returned promise) are in `APlus2_2_6_OrderTests.swift`
/// and `APlus2_2_7_ReturnedPromiseTests.swift`.
///
/// Our API splits A+'s `then(onFulfilled, onRejected)` into `then` (fulfilment) and
/// `catch` / `recover` (rejection); "argument omitted" (2.2.1) means using only one of them.
@Suite("A+ 2.2 then: callbacks")
struct APlus2_2_ThenTests {
    // MARK: 2.2.1 both callbacks are optional

    @Test("2.2.1.1 without a rejection handler, a rejection passes through then unchanged")
    func rejectionPassesThroughThen() {
        let context = ManualContext()
        let (source, sourceResolver) = Promise<Int>.pending()
        let ran = APlusRecorder<String>()
        let end =
            source
            .then(on: context) { value -> Int in
                ran.record("then1")
                return value + 1
            }
            .then(on: context) { (value: Int) -> Promise<String> in
                ran.record("then2")
                return Promise(String(value))
            }
        let caught = APlusRecorder<Int>()
        end.catch(on: context) { caught.record(($0 as? APlusError)?.id ?? -1) }
        sourceResolver.reject(APlusError(11))
        context.runUntilIdle()
        #expect(ran.events.isEmpty)
        #expect(caught.events == [11])
        #expect(end.aplusError == APlusError(11))
    }

    @Test("2.2.1.2 without a fulfilment handler, a value passes through catch and recover unchanged")
    func valuePassesThroughCatchAndRecover() {
        let context = ManualContext()
        let token = APlusToken(1)
        let (source, sourceResolver) = Promise<APlusToken>.pending()
        let ran = APlusRecorder<String>()
        let end =
            source
            .catch(on: context) { _ in ran.record("catch") }
            .recover(on: context) { _ -> APlusToken in
                ran.record("recover")
                return APlusToken(2)
            }
            .recover(on: context) { _ -> Promise<APlusToken> in
                ran.record("recover-promise")
                return Promise(APlusToken(3))
            }
        let seen = APlusRecorder<Int>()
        end.then(on: context) { seen.record($0.id) }
        sourceResolver.fulfill(token)
        context.runUntilIdle()
        #expect(ran.events.isEmpty)
        #expect(seen.events == [1])
        #expect(end.value === token)
    }

    // MARK: 2.2.2 onFulfilled

    @Test("2.2.2 then's callback runs once, after fulfilment, with the value")
    func thenCallbackRunsOnceAfterFulfilment() {
        let context = ManualContext()
        let (promise, resolver) = Promise<Int>.pending()
        let seen = APlusRecorder<Int>()
        promise.then(on: context) { seen.record($0) }
        context.runUntilIdle()
        #expect(seen.events.isEmpty)  // 2.2.2.2 not before fulfilment
        resolver.fulfill(42)
        context.runUntilIdle()
        #expect(seen.events == [42])  // 2.2.2.1 with the value
        resolver.fulfill(43)
        resolver.reject(APlusError(1))
        promise.cancel()
        context.runUntilIdle()
        #expect(seen.events == [42])  // 2.2.2.3 not more than once
    }

    @Test("2.2.2 then's callback never runs for a rejected or cancelled promise")
    func thenCallbackSkipsRejection() {
        let context = ManualContext()
        let (rejected, rejectedResolver) = Promise<Int>.pending()
        let (cancelled, cancelledResolver) = Promise<Int>.pending()
        let seen = APlusRecorder<Int>()
        let a = rejected.then(on: context) { seen.record($0) }
        let b = cancelled.then(on: context) { seen.record($0) }
        rejectedResolver.reject(APlusError(1))
        cancelled.cancel()
        rejectedResolver.fulfill(1)
        cancelledResolver.fulfill(2)
        context.runUntilIdle()
        #expect(seen.events.isEmpty)
        #expect(a.aplusError == APlusError(1))
        #expect(b.isCancelled)
    }

    @Test("2.2.2 a then registered on an already fulfilled promise runs once with its value")
    func thenOnFulfilledRunsOnce() {
        let context = ManualContext()
        let (promise, resolver) = Promise<Int>.pending()
        resolver.fulfill(9)
        let seen = APlusRecorder<Int>()
        promise.then(on: context) { seen.record($0) }
        context.runUntilIdle()
        resolver.fulfill(10)
        context.runUntilIdle()
        #expect(seen.events == [9])
    }

    @Test("2.2.2 fulfilment racing with registration from another thread: each callback runs exactly once")
    func fulfilmentRacingRegistration() throws {
        let queue = DispatchQueue(label: "aplus.2.2.2.race")
        let (promise, resolver) = Promise<Int>.pending()
        let seen = APlusRecorder<Int>()
        let children = APlusRecorder<Promise<Int>>()
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            if index == 0 {
                for id in 0..<500 {
                    children.record(
                        promise.then(on: queue) { (value: Int) -> Int in
                            seen.record(id)
                            return value
                        })
                }
            } else {
                resolver.fulfill(5)
            }
        }
        for child in children.events {
            #expect(try awaitPromise(child, timeout: .seconds(5)) == 5)
        }
        #expect(seen.count == 500)
        #expect(Set(seen.events).count == 500)
    }

    // MARK: 2.2.3 onRejected

    @Test("2.2.3 catch's callback runs once, after rejection, with the reason")
    func catchCallbackRunsOnceAfterRejection() {
        let context = ManualContext()
        let (promise, resolver) = Promise<Int>.pending()
        let seen = APlusRecorder<Int>()
        promise.catch(on: context) { seen.record(($0 as? APlusError)?.id ?? -1) }
        context.runUntilIdle()
        #expect(seen.events.isEmpty)  // 2.2.3.2 not before rejection
        resolver.reject(APlusError(7))
        context.runUntilIdle()
        #expect(seen.events == [7])  // 2.2.3.1 with the reason
        resolver.reject(APlusError(8))
        resolver.fulfill(1)
        context.runUntilIdle()
        #expect(seen.events == [7])  // 2.2.3.3 not more than once
    }

    @Test("2.2.3 recover's callback runs once, after rejection, with the reason")
    func recoverCallbackRunsOnceAfterRejection() {
        let context = ManualContext()
        let (promise, resolver) = Promise<Int>.pending()
        let seen = APlusRecorder<Int>()
        let recovered = promise.recover(on: context) { error -> Int in
            let id = (error as? APlusError)?.id ?? -1
            seen.record(id)
            return id * 10
        }
        context.runUntilIdle()
        #expect(seen.events.isEmpty)
        resolver.reject(APlusError(3))
        resolver.reject(APlusError(4))
        context.runUntilIdle()
        #expect(seen.events == [3])
        #expect(recovered.value == 30)
    }

    @Test("2.2.3 a rejection handled by catch is not reported as unhandled (DESIGN: Nothing hangs silently)")
    func rejectionHandledByCatchIsNotReported() {
        _ = APlusDiagnostics.install
        let context = ManualContext()
        let caught = APlusRecorder<Int>()
        do {
            // Control: nobody handles this one, so it must be reported (the probe works).
            _ = Promise<Int>(APlusError(9_223_001))
            let (promise, resolver) = Promise<Int>.pending()
            promise.catch(on: context) { caught.record(($0 as? APlusError)?.id ?? -1) }
            resolver.reject(APlusError(9_223_002))
            context.runUntilIdle()
        }
        #expect(caught.events == [9_223_002])
        #expect(APlusDiagnostics.reports(about: 9_223_001).count == 1)
        #expect(APlusDiagnostics.reports(about: 9_223_002).isEmpty, "catch handled it; nothing is unhandled")
    }

    @Test("2.2.3 catch's callback never runs for a fulfilled promise")
    func catchCallbackSkipsFulfilment() {
        let context = ManualContext()
        let (promise, resolver) = Promise<Int>.pending()
        let seen = APlusRecorder<Int>()
        let child = promise.catch(on: context) { _ in seen.record(0) }
        resolver.fulfill(1)
        resolver.reject(APlusError(2))
        context.runUntilIdle()
        #expect(seen.events.isEmpty)
        #expect(child.value == 1)
    }

    // MARK: 2.2.4 never before `then` returns, never inside fulfill/reject

    @Test("2.2.4 then on an already fulfilled promise does not run its callback before then returns")
    func thenOnResolvedDoesNotRunBeforeReturning() {
        let context = ManualContext()
        let promise = Promise(1)
        let seen = APlusRecorder<Int>()
        let child = promise.then(on: context) { seen.record($0) }
        #expect(seen.events.isEmpty)
        #expect(child.isPending)
        #expect(context.pendingCount == 1)
        context.runUntilIdle()
        #expect(seen.events == [1])
        #expect(child.value == 1)
    }

    @Test("2.2.4 catch on an already rejected promise does not run its callback before catch returns")
    func catchOnResolvedDoesNotRunBeforeReturning() {
        let context = ManualContext()
        let promise = Promise<Int>(APlusError(1))
        let seen = APlusRecorder<Int>()
        promise.catch(on: context) { _ in seen.record(1) }
        let recovered = promise.recover(on: context) { _ in
            seen.record(2)
            return 0
        }
        #expect(seen.events.isEmpty)
        #expect(recovered.isPending)
        context.runUntilIdle()
        #expect(seen.events == [1, 2])
        #expect(recovered.value == 0)
    }

    @Test("2.2.4 fulfill and reject return before any callback runs")
    func callbacksDoNotRunInsideFulfillOrReject() {
        let context = ManualContext()
        let (fulfilled, fulfilledResolver) = Promise<Int>.pending()
        let (rejected, rejectedResolver) = Promise<Int>.pending()
        let log = APlusRecorder<String>()
        fulfilled.then(on: context) { _ in log.record("then") }
        rejected.catch(on: context) { _ in log.record("catch") }
        fulfilledResolver.fulfill(1)
        rejectedResolver.reject(APlusError(1))
        log.record("returned")
        #expect(log.events == ["returned"])
        context.runUntilIdle()
        #expect(log.events == ["returned", "then", "catch"])
    }

    @Test("2.2.4 inside a callback, then on a resolved promise of the same context still waits")
    func thenInsideCallbackOnSameContextWaits() {
        let context = ManualContext()
        let resolved = Promise(5)
        let log = APlusRecorder<String>()
        let outer = Promise(0).then(on: context) { _ in
            resolved.then(on: context) { log.record("inner \($0)") }
            log.record("then returned")
        }
        context.runUntilIdle()
        #expect(outer.isFulfilled)
        #expect(log.events == ["then returned", "inner 5"])
    }

    @Test("2.2.4 inside a callback, fulfilling a promise of the same context runs its callbacks after the callback returns")
    func fulfillInsideCallbackOnSameContextWaits() {
        let context = ManualContext()
        let (inner, innerResolver) = Promise<Int>.pending()
        let log = APlusRecorder<String>()
        inner.then(on: context) { log.record("inner \($0)") }
        Promise(0).then(on: context) { _ in
            log.record("callback start")
            innerResolver.fulfill(3)
            log.record("fulfill returned")
        }
        context.runUntilIdle()
        #expect(log.events == ["callback start", "fulfill returned", "inner 3"])
    }

    @Test("2.2.4 on a real serial queue: then and fulfill inside a callback do not run callbacks early")
    func realQueueDoesNotRunCallbacksEarly() throws {
        let queue = DispatchQueue(label: "aplus.2.2.4")
        let resolved = Promise(1)
        let (pending, pendingResolver) = Promise<Int>.pending()
        let log = APlusRecorder<String>()
        let fromPending = pending.then(on: queue) { log.record("pending \($0)") }
        let outer = Promise<Promise<Int>>(on: queue) {
            let fromResolved = resolved.then(on: queue) { log.record("resolved \($0)") }
            log.record("then returned")
            pendingResolver.fulfill(2)
            log.record("fulfill returned")
            return fromResolved
        }
        let fromResolved = try awaitPromise(outer, timeout: .seconds(5))
        #expect(try awaitPromise(fromResolved, timeout: .seconds(5)) == 1)
        #expect(try awaitPromise(fromPending, timeout: .seconds(5)) == 2)
        let events = log.events
        #expect(events.count == 4)
        #expect(Array(events.prefix(2)) == ["then returned", "fulfill returned"])
        #expect(Set(events.suffix(2)) == ["resolved 1", "pending 2"])
    }

    @Test("2.2.4 exception: the inline context runs the callback before then returns")
    func inlineContextRunsBeforeThenReturns() {
        let promise = Promise(4)
        let log = APlusRecorder<String>()
        let child = promise.then(on: .inline) { (value: Int) -> Int in
            log.record("callback \(value)")
            return value * 2
        }
        log.record("then returned")
        #expect(log.events == ["callback 4", "then returned"])
        #expect(child.value == 8)
    }

    @Test("2.2.4 exception: the inline context runs callbacks inside fulfill and reject")
    func inlineContextRunsInsideFulfillAndReject() {
        let (fulfilled, fulfilledResolver) = Promise<Int>.pending()
        let (rejected, rejectedResolver) = Promise<Int>.pending()
        let log = APlusRecorder<String>()
        fulfilled.then(on: .inline) { log.record("then \($0)") }
        rejected.catch(on: .inline) { log.record("catch \(($0 as? APlusError)?.id ?? -1)") }
        #expect(log.events.isEmpty)
        fulfilledResolver.fulfill(1)
        log.record("fulfill returned")
        rejectedResolver.reject(APlusError(2))
        log.record("reject returned")
        #expect(log.events == ["then 1", "fulfill returned", "catch 2", "reject returned"])
    }

    // 2.2.5 (onFulfilled/onRejected called as functions, without `this`) has no Swift equivalent.
}
