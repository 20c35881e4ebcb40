import Dispatch
import PromiseCore
import PromiseTesting
import Testing

@Suite struct WaitForPromisesTests {
    init() { startTrackingPromises() }

    /// `waitForPromises` waits for every promise in the process, and the other suites of this
    /// run keep promise work in flight for many seconds; so the chain runs in a process of its
    /// own (an exit test), where it is the only work.
    @Test func waitsForChainsOnTheDefaultContextAndOtherQueues() async {
        await #expect(processExitsWith: .success) {
            startTrackingPromises()
            let order = Lock<[Int]>([])
            let queue = DispatchQueue(label: "wait-for-promises")
            Promise(1)
                .then { value in
                    order.withLock { $0.append(value) }; return value + 1
                }
                .then(on: queue) { value in
                    order.withLock { $0.append(value) }; return value + 1
                }
                .delay(.milliseconds(30))
                .then { value in order.withLock { $0.append(value) } }
            #expect(waitForPromises(timeout: .seconds(5)))
            #expect(order.withLock { $0 } == [1, 2, 3])
        }
    }

    /// A wait inside an adapter's batched turn (an `InlineContext` callback on PromiseCurl's
    /// driver) hands over the callbacks the turn holds for its end, which would otherwise count
    /// as work in flight until the wait gives up.
    @Test func aWaitInsideABatchedTurnHandsItsHeldCallbacksOver() async {
        await #expect(processExitsWith: .success) {
            startTrackingPromises()
            let (source, resolver) = Promise<Int>.pending()
            let derived = source.then { $0 + 1 }
            let finished = Lock(false)
            AdapterSupport.runBatchedTurn(nil) {
                source.resolveFromLibrary(.success(1))
                let idle = waitForPromises(timeout: .seconds(5))
                finished.withLock { $0 = idle }
            }
            #expect(finished.withLock { $0 })
            #expect(derived.value == 2)
            withExtendedLifetime(resolver) {}
        }
    }

    /// A promise of async work (`Promise { try await … }`) counts until it settles, and so does
    /// a chain on it.
    @Test func waitsForPromisesOfAsyncWork() async {
        await #expect(processExitsWith: .success) {
            startTrackingPromises()
            let queue = DispatchQueue(label: "after-async-work")
            let chained = Promise { () async throws -> Int in
                try await Task.sleep(for: .milliseconds(200))
                return 1
            }.then(on: queue) { $0 + 1 }
            #expect(waitForPromises(timeout: .seconds(5)))
            #expect(chained.value == 2)
        }
    }

    @Test func waitsForPromisesResolvedByHandFromAnotherThread() async {
        await #expect(processExitsWith: .success) {
            startTrackingPromises()
            let made = Promise<Int> { fulfill, _ in
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(150)) { fulfill(1) }
            }
            let (pending, pendingResolver) = Promise<Int>.pending()
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(200)) { pendingResolver.fulfill(2) }
            #expect(waitForPromises(timeout: .seconds(5)))
            #expect(made.value == 1)
            #expect(pending.value == 2)
            // A promise nobody resolves keeps it waiting until the timeout; dropping its resolver
            // ends that.
            var forgotten: PromiseResolver<Int>? = Promise<Int>.pending().resolver
            #expect(!waitForPromises(timeout: .milliseconds(50)))
            #expect(forgotten?.isPending == true)
            forgotten = nil
            #expect(waitForPromises(timeout: .seconds(5)))
        }
    }

    /// google/promises' `testPromiseRetryNoDeallocUntilResolved` and its `delay` twin: once
    /// `waitForPromises` returns, a settled `retry` or `delay` holds nothing (its timer, its
    /// state, its promise), so the promise the test dropped is gone. Repeated, because the
    /// context releases a finished job's closure a moment after running it.
    @Test func aSettledRetryOrDelayIsReleasedBeforeTheWaitReturns() async {
        await #expect(processExitsWith: .success) {
            startTrackingPromises()
            Promises.diagnosticsHandler = { _ in }
            struct Refused: Error {}
            for round in 0..<50 {
                weak var fulfilled: Promise<Int>?
                weak var rejected: Promise<Int>?
                weak var delayed: Promise<Int>?
                do {
                    let first = retry(attempts: 1, delay: .milliseconds(1)) { Promise(42) }
                    let second = retry(attempts: 1, delay: .milliseconds(1)) { Promise<Int>(Refused()) }
                    let third = Promise(7).delay(.milliseconds(1))
                    fulfilled = first
                    rejected = second
                    delayed = third
                }
                #expect(waitForPromises(timeout: .seconds(10)), "round \(round)")
                #expect(fulfilled == nil, "round \(round): the fulfilled retry is still held")
                #expect(rejected == nil, "round \(round): the rejected retry is still held")
                #expect(delayed == nil, "round \(round): the delay is still held")
            }
        }
    }

    @Test func returnsFalseWhenWorkOutlastsTheTimeout() {
        let (gate, gateResolver) = Promise<Int>.pending()
        let slow = gate.delay(.seconds(2))
        gateResolver.fulfill(1)
        #expect(!waitForPromises(timeout: .milliseconds(50)))
        slow.cancel()
    }

    /// A promise stops counting only once its callbacks are handed to their contexts, whose
    /// jobs count from then on: the count never touches zero between the two, so a wait that
    /// returns has seen the `then` run. 100 000 rounds of a source fulfilled from another
    /// thread while the test waits.
    @Test func aWaitReturnsOnlyAfterTheCallbacksOfASettledPromiseRan() async {
        await #expect(processExitsWith: .success) {
            startTrackingPromises()
            let queue = DispatchQueue(label: "wait-for-promises-handover")
            var early = 0
            var timedOut = 0
            for _ in 0..<100_000 {
                let (source, sourceResolver) = Promise<Int>.pending()
                let next = source.then(on: queue) { $0 + 1 }
                DispatchQueue.global().async { sourceResolver.fulfill(1) }
                if !waitForPromises(timeout: .seconds(5)) { timedOut += 1 }
                if next.isPending { early += 1 }
            }
            #expect(early == 0, "waitForPromises returned \(early) times before the callback ran")
            #expect(timedOut == 0)
        }
    }
}
