// Scenarios that run on the calling thread: callbacks on PromiseCore's InlineContext,
// NIO futures on an EmbeddedEventLoop. No thread hops, so the counts are exact.
import NIOCore
import NIOEmbedded
import PromiseCore

// MARK: - resolved-then-inline

/// A fulfilled promise and one inline `then`.
@inline(never)
func resolvedThenPromise(_ context: InlineContext) {
    blackHole(Promise(1).then(on: context) { value in value + 1 })
}

/// A succeeded future and one `map`.
@inline(never)
func resolvedThenNIO(_ loop: EmbeddedEventLoop) {
    blackHole(loop.makeSucceededFuture(1).map { value in value + 1 })
}

// MARK: - pending-3-inline-fulfil

/// A pending promise, three inline `then`s, then `fulfill`.
@inline(never)
func pendingThreePromise(_ context: InlineContext) {
    let source = Promise<Int>.pending()
    let last = source
        .then(on: context) { value in value + 1 }
        .then(on: context) { value in value + 1 }
        .then(on: context) { value in value + 1 }
    source.fulfill(1)
    blackHole(last)
}

/// A pending promise, three `map`s on its future, then `succeed`.
@inline(never)
func pendingThreeNIO(_ loop: EmbeddedEventLoop) {
    let source = loop.makePromise(of: Int.self)
    let last = source.futureResult
        .map { value in value + 1 }
        .map { value in value + 1 }
        .map { value in value + 1 }
    source.succeed(1)
    blackHole(last)
}

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

/// A pending promise with one inline `then`; both are kept.
@inline(never)
func keptPromise(_ context: InlineContext, _ kept: Kept<(Promise<Int>, Promise<Int>)>) {
    let source = Promise<Int>.pending()
    let child = source.then(on: context) { value in value + 1 }
    kept.keep((source, child))
}

/// A pending promise whose future has one `whenComplete`; the promise is kept.
@inline(never)
func keptNIO(_ loop: EmbeddedEventLoop, _ kept: Kept<EventLoopPromise<Int>>) {
    let promise = loop.makePromise(of: Int.self)
    promise.futureResult.whenComplete { result in blackHole(result) }
    kept.keep(promise)
}

// MARK: - Variants

/// `resolved-then-inline` and `pending-3-inline-fulfil`, PromiseCore and NIO.
func inlineVariants() -> [Variant] {
    [
        Variant("resolved-then-inline/promise") {
            let context = InlineContext()
            return { resolvedThenPromise(context) }
        },
        Variant("resolved-then-inline/nio") {
            let loop = EmbeddedEventLoop()
            return { resolvedThenNIO(loop) }
        },
        Variant("pending-3-inline-fulfil/promise") {
            let context = InlineContext()
            return { pendingThreePromise(context) }
        },
        Variant("pending-3-inline-fulfil/nio") {
            let loop = EmbeddedEventLoop()
            return { pendingThreeNIO(loop) }
        },
    ]
}

/// `pending-1-callback-kept`, PromiseCore and NIO: the cost of a pending promise with one
/// callback that stays alive.
func keptVariants() -> [Variant] {
    [
        Variant("pending-1-callback-kept/promise") {
            let context = InlineContext()
            let kept = Kept<(Promise<Int>, Promise<Int>)>()
            return { keptPromise(context, kept) }
        },
        Variant("pending-1-callback-kept/nio") {
            let loop = EmbeddedEventLoop()
            let kept = Kept<EventLoopPromise<Int>>()
            return { keptNIO(loop, kept) }
        },
    ]
}
