import Dispatch
import PromiseCore
import Synchronization
import Testing

private struct ReleasedResolverMarker: Sendable {}
private struct ReleasedElsewhereMarker: Sendable {}
private struct SettledResolverMarker: Sendable {}

/// `Promise.pending()` and its `PromiseResolver`: the only way to settle a promise one makes by
/// hand, and what happens when the resolver goes away.
@Suite struct ResolverTests {
    init() { DiagnosticsProbe.install }

    @Test func theResolverSettlesItsPromiseOnceOnly() throws {
        let (promise, resolver) = Promise<Int>.pending()
        #expect(resolver.isPending && promise.isPending)
        resolver.fulfill(1)
        resolver.fulfill(2)
        resolver.reject(SampleError(tag: 3))
        resolver.resolve(.success(4))
        #expect(promise.value == 1)
        #expect(!resolver.isPending)
    }

    @Test func eachWayToSettleReachesThePromise() throws {
        let (rejected, rejecter) = Promise<Int>.pending()
        rejecter.reject(SampleError(tag: 5))
        #expect(rejected.error as? SampleError == SampleError(tag: 5))
        let (resolved, resolver) = Promise<String>.pending()
        resolver.resolve(.success("five"))
        #expect(resolved.value == "five")
        let (done, doneResolver) = Promise<Void>.pending()
        doneResolver.fulfill()
        #expect(done.isFulfilled)
    }

    @Test func aReleasedResolverBreaksThePromiseWhileAConsumerHoldsIt() throws {
        let held: Promise<ReleasedResolverMarker>
        let chained: Promise<Int>
        do {
            let (promise, resolver) = Promise<ReleasedResolverMarker>.pending()
            held = promise
            chained = promise.then(on: .inline) { _ in 1 }
            #expect(resolver.isPending)
        }
        let error = try #require(held.error as? PromiseError)
        #expect(error.code == .brokenPromise)
        #expect(error.message.contains("the resolver of a Promise<ReleasedResolverMarker> was released without settling it"))
        #expect((outcome(of: chained).failureValue as? PromiseError)?.code == .brokenPromise)
        let reports = DiagnosticsProbe.reports(about: ReleasedResolverMarker.self)
        #expect(reports.count == 1)
        #expect(reports.first?.kind == .brokenPromise)
    }

    @Test func aResolverKeepsItsPromiseAliveAfterEveryConsumerLetGo() throws {
        weak var watched: Promise<Int>?
        let resolver: PromiseResolver<Int>
        let chained: Promise<Int>
        do {
            let pair = Promise<Int>.pending()
            watched = pair.promise
            resolver = pair.resolver
            chained = pair.promise.then(on: .inline) { $0 * 2 }
        }
        #expect(watched != nil, "the promise went while its resolver could still settle it")
        resolver.fulfill(21)
        #expect(try awaitPromise(chained, timeout: .seconds(5)) == 42)
    }

    @Test func aResolverReleasedAfterSettlingReportsNothing() {
        do {
            let (promise, resolver) = Promise<SettledResolverMarker>.pending()
            resolver.fulfill(SettledResolverMarker())
            #expect(promise.isFulfilled)
        }
        do {
            let (promise, resolver) = Promise<SettledResolverMarker>.pending()
            promise.cancel()  // a consumer cancelled: the resolver is not needed any more
            #expect(!resolver.isPending)
            resolver.fulfill(SettledResolverMarker())
            #expect(promise.isCancelled)
        }
        #expect(DiagnosticsProbe.reports(about: SettledResolverMarker.self).isEmpty)
    }

    @Test func aWaiterOnAnotherThreadSeesTheBreakInsteadOfHanging() throws {
        let (promise, holder) = Self.pendingWithHeldResolver()
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) { holder.release() }
        let error = #expect(throws: PromiseError.self) { try awaitPromise(promise, timeout: .seconds(10)) }
        #expect(error?.code == .brokenPromise)
    }

    @Test func manyThreadsSettlingAtOnceSettleItOnce() throws {
        for _ in 0..<50 {
            let (promise, resolver) = Promise<Int>.pending()
            let runs = Atomic<Int>(0)
            // `always` runs whichever settlement wins, so it must run exactly once.
            let chained = promise.always(on: .inline) { runs.add(1, ordering: .relaxed) }
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                if index % 2 == 0 { resolver.fulfill(index) } else { resolver.reject(SampleError(tag: index)) }
            }
            let result = outcome(of: chained)
            switch result {
            case .success(let value): #expect(value % 2 == 0 && promise.value == value)
            case .failure(let error): #expect((error as? SampleError).map { $0.tag % 2 == 1 } == true)
            }
            #expect(runs.load(ordering: .relaxed) == 1)
        }
    }

    /// A pending promise, and its resolver held by nothing but the returned holder.
    private static func pendingWithHeldResolver() -> (Promise<ReleasedElsewhereMarker>, ResolverHolder) {
        let (promise, resolver) = Promise<ReleasedElsewhereMarker>.pending()
        return (promise, ResolverHolder(resolver))
    }

    private final class ResolverHolder: Sendable {
        private let slot: Lock<PromiseResolver<ReleasedElsewhereMarker>?>
        init(_ resolver: PromiseResolver<ReleasedElsewhereMarker>) { slot = Lock(resolver) }
        func release() { slot.withLock { $0 = nil } }
    }
}
