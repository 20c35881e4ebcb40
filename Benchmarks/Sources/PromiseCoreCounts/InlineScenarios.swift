// Scenarios that run on the calling thread: callbacks on PromiseCore's InlineContext,
// NIO futures on an EmbeddedEventLoop. No thread hops, so the counts are exact.
import NIOCore
import NIOEmbedded
import PromiseCore
import PromiseCoreScenarios

// MARK: - pending-1-callback-kept

/// Storage for what each iteration keeps alive, allocated once at a fixed capacity so that
/// runs with different iteration counts allocate the same storage and only the kept objects
/// differ.
final class Kept<Element> {
    /// Iterations (the warm-up one included) one run may keep.
    static var capacity: Int { 1 << 17 }

    private var items: [Element] = []

    init() {
        items.reserveCapacity(Self.capacity)
    }

    /// Keeps `item` alive until the process exits.
    func keep(_ item: Element) {
        precondition(items.count < Self.capacity, "more than \(Self.capacity) iterations")
        items.append(item)
    }
}

/// A pending promise with one inline `then`; its resolver (which holds it) and the child are
/// kept, as NIO's scenario keeps its promise.
@inline(never)
func keptPromise(_ context: InlineContext, _ kept: Kept<(PromiseResolver<Int>, Promise<Int>)>) {
    let (source, resolver) = Promise<Int>.pending()
    let child = source.then(on: context) { value in value + 1 }
    kept.keep((resolver, child))
}

/// A pending promise whose future has one `whenComplete`; the promise is kept.
@inline(never)
func keptNIO(_ loop: EmbeddedEventLoop, _ kept: Kept<EventLoopPromise<Int>>) {
    let promise = loop.makePromise(of: Int.self)
    promise.futureResult.whenComplete { result in opaqueUse(result) }
    kept.keep(promise)
}

// MARK: - Variants

/// `resolved-then-inline` and `pending-3-inline-fulfil`, PromiseCore and NIO.
func inlineVariants() -> [Variant] {
    [
        Variant("resolved-then-inline/promise") {
            let context = InlineContext()
            return { promiseResolvedThen(context) }
        },
        Variant("resolved-then-inline/nio") {
            let loop = EmbeddedEventLoop()
            return { nioResolvedMap(loop) }
        },
        Variant("pending-3-inline-fulfil/promise") {
            let context = InlineContext()
            return { promisePendingChain(context) }
        },
        Variant("pending-3-inline-fulfil/nio") {
            let loop = EmbeddedEventLoop()
            return { nioPendingChain(loop) }
        },
    ]
}

/// `pending-1-callback-kept`, PromiseCore and NIO: the cost of a pending promise with one
/// callback that stays alive.
func keptVariants() -> [Variant] {
    [
        Variant("pending-1-callback-kept/promise") {
            let context = InlineContext()
            let kept = Kept<(PromiseResolver<Int>, Promise<Int>)>()
            return { keptPromise(context, kept) }
        },
        Variant("pending-1-callback-kept/nio") {
            let loop = EmbeddedEventLoop()
            let kept = Kept<EventLoopPromise<Int>>()
            return { keptNIO(loop, kept) }
        },
    ]
}
