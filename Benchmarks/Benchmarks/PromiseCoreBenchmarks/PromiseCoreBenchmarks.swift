// PromiseCore against GCD and SwiftNIO EventLoopFuture doing the same work, in one run.
//
// Scenarios are google/promises' own performance tests:
//   S1  resolved promise + 1/2/3 `then`s on a serial queue, block until the last resolves
//   S2  10 000 pending promises, each with a `then` on a concurrent queue; fulfil all, wait
//   S3a resolved promise + one inline `then`
//   S3b pending promise + three inline `then`s, then fulfil
//
// Names are "<scenario> — <candidate>" so that baselines sort next to the PromiseCore row.
// `Benchmarks/ratios.sh` turns a run into medians, min/max and candidate/baseline ratios.

import Benchmark
import Dispatch
import NIOCore
import NIOEmbedded
import NIOPosix
import PromiseCore
import PromiseCoreScenarios

// MARK: - Shared fixtures

/// One NIO event loop thread, used by every NIO baseline (never shut down: the process exits).
let nioGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let nioLoop = nioGroup.next()

/// Promises waiting in S2 at once.
let pendingCount = 10_000

// MARK: - S1: chained thens on a serial queue

/// NIO, chain built on the benchmark thread (each `map` from off the loop is an `execute`).
@inline(never)
func s1NIO(depth: Int, loop: any EventLoop, semaphore: DispatchSemaphore) {
    var future = loop.makeSucceededFuture(1)
    for _ in 0..<depth {
        future = future.map { value in value + 1 }
    }
    future.whenSuccess { value in
        blackHole(value)
        semaphore.signal()
    }
    semaphore.wait()
}

// MARK: - S2: 10 000 pending promises on a concurrent queue

@inline(never)
func s2Promise(queue: DispatchQueue) {
    let group = DispatchGroup()
    var promises: [Promise<Int>] = []
    promises.reserveCapacity(pendingCount)
    for _ in 0..<pendingCount {
        let promise = Promise<Int>.pending()
        group.enter()
        _ = promise.then(on: queue) { value in
            blackHole(value)
            group.leave()
        }
        promises.append(promise)
    }
    for promise in promises {
        promise.fulfill(1)
    }
    group.wait()
}

@inline(never)
func s2GCD(queue: DispatchQueue) {
    let group = DispatchGroup()
    for index in 0..<pendingCount {
        group.enter()
        queue.async {
            blackHole(index)
            group.leave()
        }
    }
    group.wait()
}

/// NIO from the benchmark thread: every `map` and every `succeed` is an `execute` onto the loop.
@inline(never)
func s2NIO(loop: any EventLoop) {
    let group = DispatchGroup()
    var promises: [EventLoopPromise<Int>] = []
    promises.reserveCapacity(pendingCount)
    for _ in 0..<pendingCount {
        let promise = loop.makePromise(of: Int.self)
        group.enter()
        promise.futureResult.map { value in value + 1 }.whenSuccess { value in
            blackHole(value)
            group.leave()
        }
        promises.append(promise)
    }
    for promise in promises {
        promise.succeed(1)
    }
    group.wait()
}

/// NIO with the whole workload submitted to the loop in one `execute`: no per-promise hops.
@inline(never)
func s2NIOOnLoop(loop: any EventLoop) {
    let semaphore = DispatchSemaphore(value: 0)
    loop.execute {
        let remaining = NIOLoopBoundBox(pendingCount, eventLoop: loop)
        var promises: [EventLoopPromise<Int>] = []
        promises.reserveCapacity(pendingCount)
        for _ in 0..<pendingCount {
            let promise = loop.makePromise(of: Int.self)
            promise.futureResult.map { value in value + 1 }.whenSuccess { value in
                blackHole(value)
                remaining.value -= 1
                if remaining.value == 0 { semaphore.signal() }
            }
            promises.append(promise)
        }
        for promise in promises {
            promise.succeed(1)
        }
    }
    semaphore.wait()
}

// MARK: - S3: inline

/// Raw closure calls: the floor for "run this callback now".
@inline(never)
func callOpaque(_ closure: (Int) -> Int, _ value: Int) -> Int {
    closure(value)
}

// MARK: - Registration

let benchmarks: @Sendable () -> Void = {
    let timeMetrics: [BenchmarkMetric] = [.wallClock, .mallocCountTotal, .mallocBytesCount, .throughput]
    // Plain counts: automatic units would export 10 003 mallocs as "10 (K)".
    let countUnits: [BenchmarkMetric: BenchmarkUnits] = [
        .mallocCountTotal: .count, .mallocBytesCount: .count, .throughput: .count,
    ]

    // Budgets keep one pass over all 24 benchmarks at ~15 s (~40 s through the plugin); ratios.sh runs
    // several rounds and reports the median of the rounds' medians. Nanoseconds everywhere so
    // exported samples keep their precision.
    Benchmark.defaultConfiguration = .init(
        metrics: timeMetrics,
        timeUnits: .nanoseconds,
        units: countUnits,
        warmupIterations: 50,
        maxDuration: .milliseconds(400),
        maxIterations: 5_000
    )

    // S1 -------------------------------------------------------------------------------------
    let serialQueue = DispatchQueue(label: "bench.s1.serial")
    let s1Semaphore = DispatchSemaphore(value: 0)
    for depth in 1...3 {
        let scenario = "S1 then x\(depth) serial"
        Benchmark("\(scenario) — Promise") { benchmark in
            for _ in benchmark.scaledIterations {
                promiseChainOnQueue(depth: depth, queue: serialQueue, semaphore: s1Semaphore)
            }
        }
        Benchmark("\(scenario) — GCD") { benchmark in
            for _ in benchmark.scaledIterations {
                gcdNestedHops(depth: depth, queue: serialQueue, semaphore: s1Semaphore)
            }
        }
        Benchmark("\(scenario) — NIO") { benchmark in
            for _ in benchmark.scaledIterations {
                s1NIO(depth: depth, loop: nioLoop, semaphore: s1Semaphore)
            }
        }
        Benchmark("\(scenario) — NIO on-loop") { benchmark in
            for _ in benchmark.scaledIterations {
                nioChainOnLoop(depth: depth, loop: nioLoop, semaphore: s1Semaphore)
            }
        }
    }

    // S2 -------------------------------------------------------------------------------------
    let s2Configuration = Benchmark.Configuration(
        metrics: timeMetrics,
        timeUnits: .nanoseconds,
        units: countUnits,
        warmupIterations: 2,
        maxDuration: .seconds(1),
        maxIterations: 50
    )
    let concurrentQueue = DispatchQueue(label: "bench.s2.concurrent", attributes: .concurrent)
    let s2 = "S2 10k pending then concurrent"
    Benchmark("\(s2) — Promise", configuration: s2Configuration) { _ in
        s2Promise(queue: concurrentQueue)
    }
    Benchmark("\(s2) — GCD", configuration: s2Configuration) { _ in
        s2GCD(queue: concurrentQueue)
    }
    Benchmark("\(s2) — NIO", configuration: s2Configuration) { _ in
        s2NIO(loop: nioLoop)
    }
    Benchmark("\(s2) — NIO on-loop", configuration: s2Configuration) { _ in
        s2NIOOnLoop(loop: nioLoop)
    }

    // S3 -------------------------------------------------------------------------------------
    // 1 000 operations per measured iteration; reported figures are per operation.
    let inlineConfiguration = Benchmark.Configuration(
        metrics: timeMetrics,
        timeUnits: .nanoseconds,
        units: countUnits,
        warmupIterations: 5,
        scalingFactor: .kilo,
        maxDuration: .milliseconds(400),
        maxIterations: 2_000
    )
    let inline = InlineContext()
    let embedded = EmbeddedEventLoop()
    let addOne: (Int) -> Int = { value in value + 1 }

    let s3a = "S3a resolved + 1 inline then"
    Benchmark("\(s3a) — Promise", configuration: inlineConfiguration) { benchmark in
        for _ in benchmark.scaledIterations {
            promiseResolvedThen(inline)
        }
    }
    Benchmark("\(s3a) — NIO Embedded", configuration: inlineConfiguration) { benchmark in
        for _ in benchmark.scaledIterations {
            nioResolvedMap(embedded)
        }
    }
    Benchmark("\(s3a) — NIO on-loop", configuration: inlineConfiguration) { benchmark in
        let count = benchmark.scaledIterations.count
        // One hop onto the loop per 1 000 operations (amortised: a few ns per operation).
        try! nioLoop.submit {
            for _ in 0..<count {
                nioResolvedMap(nioLoop)
            }
        }.wait()
    }
    Benchmark("\(s3a) — raw closure", configuration: inlineConfiguration) { benchmark in
        for index in benchmark.scaledIterations {
            blackHole(callOpaque(addOne, index))
        }
    }

    let s3b = "S3b pending + 3 inline thens + fulfil"
    Benchmark("\(s3b) — Promise", configuration: inlineConfiguration) { benchmark in
        for _ in benchmark.scaledIterations {
            promisePendingChain(inline)
        }
    }
    Benchmark("\(s3b) — NIO Embedded", configuration: inlineConfiguration) { benchmark in
        for _ in benchmark.scaledIterations {
            nioPendingChain(embedded)
        }
    }
    Benchmark("\(s3b) — NIO on-loop", configuration: inlineConfiguration) { benchmark in
        let count = benchmark.scaledIterations.count
        try! nioLoop.submit {
            for _ in 0..<count {
                nioPendingChain(nioLoop)
            }
        }.wait()
    }
    Benchmark("\(s3b) — raw closure", configuration: inlineConfiguration) { benchmark in
        for index in benchmark.scaledIterations {
            blackHole(callOpaque(addOne, callOpaque(addOne, callOpaque(addOne, index))))
        }
    }
}
