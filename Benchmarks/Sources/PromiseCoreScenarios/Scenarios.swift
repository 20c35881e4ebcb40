// The PromiseCore workloads and their GCD and SwiftNIO baselines, written once and run by
// both PromiseCoreBenchmarks (wall time, package-benchmark) and PromiseCoreCounts
// (instructions and allocations under valgrind), so the two measure the same code.

import Dispatch
import NIOCore
import PromiseCore

/// Uses `value` in a way the optimizer cannot see through, so the work producing it stays.
@inline(never)
public func opaqueUse(_ value: some Any) {
    withExtendedLifetime(value) {}
}

// MARK: - A chain on a serial queue (S1, queue-3-then)

/// `Promise(1).then(on: queue)` `depth` times, then an inline observer signals; waits.
@inline(never)
public func promiseChainOnQueue(depth: Int, queue: DispatchQueue, semaphore: DispatchSemaphore) {
    var promise = Promise(1)
    for _ in 0..<depth {
        promise = promise.then(on: queue) { value in value + 1 }
    }
    _ = promise.then(on: InlineContext()) { value in
        opaqueUse(value)
        semaphore.signal()
    }
    semaphore.wait()
}

/// `depth` nested `queue.async` hops, the innermost signals; waits.
@inline(never)
public func gcdNestedHops(depth: Int, queue: DispatchQueue, semaphore: DispatchSemaphore) {
    hop(queue, remaining: depth, value: 1, semaphore: semaphore)
    semaphore.wait()
}

@Sendable
private func hop(_ queue: DispatchQueue, remaining: Int, value: Int, semaphore: DispatchSemaphore) {
    queue.async {
        let next = value + 1
        if remaining == 1 {
            opaqueUse(next)
            semaphore.signal()
        } else {
            hop(queue, remaining: remaining - 1, value: next, semaphore: semaphore)
        }
    }
}

/// One `execute` onto the loop that builds a succeeded future and `depth` `map`s there, with a
/// `whenSuccess` that signals (NIO's on-loop fast path); waits.
@inline(never)
public func nioChainOnLoop(depth: Int, loop: any EventLoop, semaphore: DispatchSemaphore) {
    loop.execute {
        var future = loop.makeSucceededFuture(1)
        for _ in 0..<depth {
            future = future.map { value in value + 1 }
        }
        future.whenSuccess { value in
            opaqueUse(value)
            semaphore.signal()
        }
    }
    semaphore.wait()
}

// MARK: - Inline chains (S3a, S3b, resolved-then-inline, pending-3-inline-fulfil)

/// A resolved promise and one inline `then`.
@inline(never)
public func promiseResolvedThen(_ context: InlineContext) {
    opaqueUse(Promise(1).then(on: context) { value in value + 1 })
}

/// A succeeded future and one `map`. Inlinable, so it is specialized for the caller's loop
/// type (an `EmbeddedEventLoop` is called directly, not through the protocol).
@inlinable
@inline(never)
public func nioResolvedMap<Loop: EventLoop>(_ loop: Loop) {
    opaqueUse(loop.makeSucceededFuture(1).map { value in value + 1 })
}

/// A pending promise, three inline `then`s, then `fulfill`.
@inline(never)
public func promisePendingChain(_ context: InlineContext) {
    let (source, resolver) = Promise<Int>.pending()
    let last =
        source
        .then(on: context) { value in value + 1 }
        .then(on: context) { value in value + 1 }
        .then(on: context) { value in value + 1 }
    resolver.fulfill(1)
    opaqueUse(last)
}

/// A pending promise, three `map`s on its future, then `succeed`. Inlinable for the same
/// reason as ``nioResolvedMap(_:)``.
@inlinable
@inline(never)
public func nioPendingChain<Loop: EventLoop>(_ loop: Loop) {
    let source = loop.makePromise(of: Int.self)
    let last = source.futureResult
        .map { value in value + 1 }
        .map { value in value + 1 }
        .map { value in value + 1 }
    source.succeed(1)
    opaqueUse(last)
}
