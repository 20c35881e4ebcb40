// Scenarios whose callbacks run on other threads: a DispatchQueue for PromiseCore and GCD,
// a one-thread MultiThreadedEventLoopGroup for NIO. The main thread waits for each iteration
// to finish; valgrind counts every thread's instructions and allocations.
import Dispatch
import NIOCore
import NIOPosix
import PromiseCore
import PromiseCoreScenarios

/// Promises settled per iteration of `pending-10k-concurrent`.
let concurrentCount = 10_000

// MARK: - pending-10k-concurrent

/// 10 000 pending promises, each with a `then` on a concurrent queue; fulfil all, wait.
@inline(never)
func concurrentPromise(_ queue: DispatchQueue) {
    let group = DispatchGroup()
    var resolvers: [PromiseResolver<Int>] = []
    resolvers.reserveCapacity(concurrentCount)
    for _ in 0..<concurrentCount {
        let (promise, resolver) = Promise<Int>.pending()
        group.enter()
        _ = promise.then(on: queue) { value in
            let next = value + 1
            group.leave()
            return next
        }
        resolvers.append(resolver)
    }
    for resolver in resolvers {
        resolver.fulfill(1)
    }
    group.wait()
}

/// 10 000 NIO promises, each with a `map`, made and succeeded from the main thread (so each
/// `map` and each `succeed` is an `execute` onto the loop); wait for all.
@inline(never)
func concurrentNIO(_ loop: any EventLoop) {
    let group = DispatchGroup()
    var promises: [EventLoopPromise<Int>] = []
    promises.reserveCapacity(concurrentCount)
    for _ in 0..<concurrentCount {
        let promise = loop.makePromise(of: Int.self)
        group.enter()
        _ = promise.futureResult.map { value in
            let next = value + 1
            group.leave()
            return next
        }
        promises.append(promise)
    }
    for promise in promises {
        promise.succeed(1)
    }
    group.wait()
}

/// 10 000 blocks on a concurrent queue; wait for all.
@inline(never)
func concurrentGCD(_ queue: DispatchQueue) {
    let group = DispatchGroup()
    for index in 0..<concurrentCount {
        group.enter()
        queue.async {
            opaqueUse(index + 1)
            group.leave()
        }
    }
    group.wait()
}

// MARK: - Variants

/// `queue-3-then`: PromiseCore and GCD on a serial queue, NIO on its loop.
func queueVariants() -> [Variant] {
    [
        Variant("queue-3-then/promise", isThreaded: true) {
            let queue = DispatchQueue(label: "counts.queue-3-then")
            let semaphore = DispatchSemaphore(value: 0)
            return { promiseChainOnQueue(depth: 3, queue: queue, semaphore: semaphore) }
        },
        Variant("queue-3-then/nio", isThreaded: true) {
            let loop = MultiThreadedEventLoopGroup(numberOfThreads: 1).next()
            let semaphore = DispatchSemaphore(value: 0)
            return { nioChainOnLoop(depth: 3, loop: loop, semaphore: semaphore) }
        },
        Variant("queue-3-then/gcd", isThreaded: true) {
            let queue = DispatchQueue(label: "counts.queue-3-then")
            let semaphore = DispatchSemaphore(value: 0)
            return { gcdNestedHops(depth: 3, queue: queue, semaphore: semaphore) }
        },
    ]
}

/// `pending-10k-concurrent`: PromiseCore and GCD on a concurrent queue, NIO on its loop;
/// one operation is one promise (or block).
func concurrentVariants() -> [Variant] {
    [
        Variant("pending-10k-concurrent/promise", operationsPerIteration: concurrentCount, isThreaded: true) {
            let queue = DispatchQueue(label: "counts.pending-10k", attributes: .concurrent)
            return { concurrentPromise(queue) }
        },
        Variant("pending-10k-concurrent/nio", operationsPerIteration: concurrentCount, isThreaded: true) {
            let loop = MultiThreadedEventLoopGroup(numberOfThreads: 1).next()
            return { concurrentNIO(loop) }
        },
        Variant("pending-10k-concurrent/gcd", operationsPerIteration: concurrentCount, isThreaded: true) {
            let queue = DispatchQueue(label: "counts.pending-10k", attributes: .concurrent)
            return { concurrentGCD(queue) }
        },
    ]
}
