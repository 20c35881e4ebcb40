// PromiseNIO's bridge, on an EmbeddedEventLoop (every call is on the loop, so no thread hops
// and the counts are exact): a pending promise handed to a future and back to a promise,
// against a future alone.
import NIOCore
import NIOEmbedded
import PromiseCoreScenarios
import PromiseNIO

/// A pending promise, bridged to a future of `loop` and back (`eventLoopFuture(on:)`, then
/// `Promise(future)`), one inline `then`, then `fulfill`.
@inline(never)
func promiseBridgedRoundTrip(_ loop: EmbeddedEventLoop) {
    let (source, resolver) = Promise<Int>.pending()
    let back = Promise(source.eventLoopFuture(on: loop)).then(on: .inline) { value in value + 1 }
    resolver.fulfill(1)
    opaqueUse(back)
}

/// What the bridge stands beside: a pending future, one `map`, then `succeed`.
@inline(never)
func nioFutureAlone(_ loop: EmbeddedEventLoop) {
    let promise = loop.makePromise(of: Int.self)
    let mapped = promise.futureResult.map { value in value + 1 }
    promise.succeed(1)
    opaqueUse(mapped)
}

/// `bridge-round-trip`, PromiseNIO and NIO.
func bridgeVariants() -> [Variant] {
    [
        Variant("bridge-round-trip/promise") {
            let loop = EmbeddedEventLoop()
            return { promiseBridgedRoundTrip(loop) }
        },
        Variant("bridge-round-trip/nio") {
            let loop = EmbeddedEventLoop()
            return { nioFutureAlone(loop) }
        },
    ]
}
