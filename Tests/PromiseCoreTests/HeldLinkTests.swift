import Dispatch
@testable import PromiseCore
import Synchronization
import Testing

/// One way the core derives a promise that waits for another, applied to a source.
private struct LinkingOperator: Sendable, CustomTestStringConvertible {
    let name: String
    let derive: @Sendable (Promise<Int>, DispatchQueue) -> Promise<Int>

    var testDescription: String { name }
}

/// Every operator that links what it returns to the promise it waits for: through a callback
/// (`then`, `recover`, `always`, `timeout`, `delay`), an adopted promise, a combinator's
/// `Combination`, or a `retry`'s attempt.
private let linkingOperators: [LinkingOperator] = [
    LinkingOperator(name: "then") { source, queue in source.then(on: queue) { $0 + 1 } },
    LinkingOperator(name: "then adopting a pending promise") { source, queue in
        source.then(on: queue) { value in
            let (inner, innerResolver) = Promise<Int>.pending()
            queue.async { innerResolver.fulfill(value) }
            return inner
        }
    },
    LinkingOperator(name: "recover") { source, queue in source.recover(on: queue) { _ in 0 } },
    LinkingOperator(name: "always") { source, queue in source.always(on: queue) {} },
    LinkingOperator(name: "timeout") { source, queue in source.timeout(on: queue, .seconds(60)) },
    LinkingOperator(name: "delay") { source, queue in source.delay(on: queue, .milliseconds(1)) },
    LinkingOperator(name: "all") { source, _ in all([source]).then(on: .inline) { $0[0] } },
    LinkingOperator(name: "race") { source, _ in race([source]) },
    LinkingOperator(name: "allSettled") { source, _ in allSettled([source]).then(on: .inline) { _ in 0 } },
    // Inline, so that the attempt is subscribed to before `retry` returns; the attempt is
    // handed over once, so that the retry does not hold it.
    LinkingOperator(name: "retry") { source, _ in
        let attempt = Lock<Promise<Int>?>(source)
        return retry(on: .inline, attempts: 0) { attempt.withLock { $0.take()! } }
    },
]

/// Weak references to a source and what an operator derived from it, for checking that both
/// are released.
private struct Released {
    weak var source: AnyObject?
    weak var derived: AnyObject?

    init(source: AnyObject, derived: AnyObject) {
        self.source = source
        self.derived = derived
    }

    /// Whether both are gone within two seconds (a callback on a queue may hold them a moment
    /// after the promise settled).
    var both: Bool {
        pollUntil { source == nil && derived == nil }
    }
}

/// A derived promise holds the promise it waits for (`Internal/UpstreamLink.swift`), which
/// makes a cycle with the source's callback while both are pending. These check that every
/// linking operator ends the cycle whichever way the pair settles, so nothing leaks, and that
/// an adapter's promise, which consumers link to weakly, is still cancelled through the link.
@Suite struct HeldLinkTests {
    init() { DiagnosticsProbe.install }

    @Test(arguments: linkingOperators)
    fileprivate func aSourceSettledByItsResolverIsReleasedWithWhatWaitedForIt(_ op: LinkingOperator) throws {
        let queue = DispatchQueue(label: "held-link-settled")
        let released: Released
        do {
            let (source, resolver) = Promise<Int>.pending()
            let derived = op.derive(source, queue)
            released = Released(source: source, derived: derived)
            resolver.fulfill(1)
            #expect(throws: Never.self) { try outcome(of: derived).get() }
        }
        #expect(released.both, "\(op.name): the source or its derived promise was kept alive")
    }

    @Test(arguments: linkingOperators)
    fileprivate func cancellingWhatWaitsCancelsTheSourceAndReleasesBoth(_ op: LinkingOperator) throws {
        let queue = DispatchQueue(label: "held-link-cancelled")
        let released: Released
        let stopped = Counter()
        do {
            let (source, resolver) = Promise<Int>.pending()
            source.onCancel(on: .inline) { stopped.increment() }
            let derived = op.derive(source, queue)
            released = Released(source: source, derived: derived)
            derived.cancel()
            #expect(outcome(of: derived).failureValue is CancellationError)
            #expect(source.isCancelled, "\(op.name): cancelling the derived promise left its source running")
            withExtendedLifetime(resolver) {}
        }
        #expect(stopped.value == 1)
        #expect(released.both, "\(op.name): the source or its derived promise was kept alive")
    }

    @Test(arguments: linkingOperators)
    fileprivate func aDroppedConsumerIsReleasedWhenTheResolverGoes(_ op: LinkingOperator) {
        let queue = DispatchQueue(label: "held-link-dropped")
        let released: Released
        do {
            let (source, resolver) = Promise<Int>.pending()
            released = Released(source: source, derived: op.derive(source, queue))
            // Nobody holds what was derived but its source's callback, and the source is held
            // by the derived promise's link and the resolver, which goes now, unsettled.
            withExtendedLifetime(resolver) {}
        }
        #expect(released.both, "\(op.name): a pending pair outlived the resolver that could settle it")
    }

    @Test(arguments: linkingOperators)
    fileprivate func cancellingWhatWaitsForAnAdaptersPromiseCancelsIt(_ op: LinkingOperator) {
        let queue = DispatchQueue(label: "watched-link-cancelled")
        let released: Released
        let stopped = Counter()
        do {
            let source = Promise<Int>.pending(resolvedOn: nil)
            source.onCancelFromLibrary { stopped.increment() }
            let derived = op.derive(source, queue)
            released = Released(source: source, derived: derived)
            derived.cancel()
            #expect(outcome(of: derived).failureValue is CancellationError)
            #expect(source.isCancelled, "\(op.name): the weak link to an adapter's promise did not reach it")
        }
        #expect(stopped.value == 1)
        #expect(released.both, "\(op.name): the source or its derived promise was kept alive")
    }

    @Test(arguments: linkingOperators)
    fileprivate func anAdaptersPromiseDroppedUnsettledBreaksWhatWaitsForIt(_ op: LinkingOperator) {
        let queue = DispatchQueue(label: "watched-link-dropped")
        var source: Promise<Int>? = Promise<Int>.pending(resolvedOn: nil)
        weak let watched = source
        let derived = op.derive(source!, queue)
        source = nil
        #expect(watched == nil, "\(op.name): a consumer's link kept an adapter's promise alive")
        // `recover` and `allSettled` turn the rejection into a value; the others pass it on.
        if case .failure(let error) = outcome(of: derived) {
            #expect((error as? PromiseError)?.code == .brokenPromise, "\(op.name): \(error)")
        }
        #expect(!derived.isPending, "\(op.name): what waited for a dropped adapter's promise stayed pending")
    }

    @Test func aTimeoutOfAnAdaptersPromiseSaysTheWorkWasToldToStop() throws {
        let queue = DispatchQueue(label: "watched-link-timeout")
        let source = Promise<Int>.pending(resolvedOn: nil)
        let stopped = Counter()
        source.onCancelFromLibrary { stopped.increment() }
        let limited = source.timeout(on: queue, .milliseconds(1))
        let error = try #require(outcome(of: limited).failureValue as? PromiseError)
        #expect(error.code == .timedOut)
        #expect(error.message.contains("the work behind it was told to stop"), "\(error.message)")
        #expect(source.isCancelled)
        #expect(stopped.value == 1)
    }

    @Test func onlyAnAdaptersPromiseIsLinkedWeakly() {
        let (made, resolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(resolver) {} }
        #expect(made.linkage == .held)
        #expect(Promise<Int>.pending(resolvedOn: nil).linkage == .watched)
        #expect(made.then(on: .inline) { $0 }.linkage == .held)
        #expect(Promise(1).linkage == .held)
        #expect(Promise<Int> { 1 }.linkage == .held)
        #expect(all([made]).linkage == .held)
    }
}
