// PromiseUV beside raw libuv C calls (UVRawBench) and PromiseCore on a serial DispatchQueue,
// in one process run; and the two Bluebird workloads, one per process (for peak RSS).
//
//   PromiseUVBench micro [ROUNDS]          timers, round trips, promise chains
//   PromiseUVBench madeup-parallel         Bluebird's madeup-parallel on a UVLoop
//   PromiseUVBench doxbee-sequential       Bluebird's doxbee-sequential on a UVLoop
//
// micro prints one line per workload and implementation: workload, implementation, median,
// min and max milliseconds, tab-separated. Each round runs every candidate once, back to back,
// rotating which one goes first. The Bluebird modes print: workload, implementation,
// milliseconds, peak RSS in KiB. Benchmarks/uv-ratios.sh runs it all and prints the table.
import Dispatch
import Glibc
import PromiseUV
import UVRawBench

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) * 1e3 + Double(ts.tv_nsec) / 1e6
}

func fail(_ message: String) -> Never {
    print("PromiseUVBench: \(message)")
    exit(1)
}

/// Loop-thread-only counter (each benchmark touches it from one thread at a time).
final class Counter: @unchecked Sendable {
    var value = 0
}

let timerCount = 1_000_000
let roundTrips = 20_000
let chainCount = 10_000
let chainLength = 5
/// Jobs per Bluebird workload (Bluebird's suites use 10 000); BENCH_JOBS overrides it.
let jobCount = getenv("BENCH_JOBS").flatMap { Int(String(cString: $0)) } ?? 10_000

// MARK: Timers: 1 000 000 timers due after 1 ms, scheduled and fired

func rawTimers() {
    guard uv_raw_timers(Int64(timerCount), 1) == Int64(timerCount) else { fail("raw timers") }
}

/// `loop.after` promises, each with a `then` on the loop: the public API's cost.
func promiseUVAfter() {
    let loop = try! UVLoop()
    let fired = Counter()
    let start = Promise<Void>(on: loop) { () -> Void in
        for _ in 0..<timerCount {
            _ = loop.after(.milliseconds(1)).then(on: loop) { fired.value += 1 }
        }
    }
    loop.run()
    guard start.isFulfilled, fired.value == timerCount else { fail("after: \(fired.value) fired") }
    try! awaitPromise(loop.shutdown())
}

/// `executeAfter`, the primitive PromiseCore's delay/timeout/retry use on a loop.
func promiseUVExecuteAfter() {
    let loop = try! UVLoop()
    let fired = Counter()
    loop.execute {
        for _ in 0..<timerCount {
            _ = loop.executeAfter(.milliseconds(1)) { fired.value += 1 }
        }
    }
    loop.run()
    guard fired.value == timerCount else { fail("executeAfter: \(fired.value) fired") }
    try! awaitPromise(loop.shutdown())
}

func dispatchTimers() {
    let queue = DispatchQueue(label: "bench.timers")
    let fired = Counter()
    let done = DispatchSemaphore(value: 0)
    queue.async {
        for _ in 0..<timerCount {
            queue.asyncAfter(deadline: .now() + .milliseconds(1)) {
                fired.value += 1
                if fired.value == timerCount { done.signal() }
            }
        }
    }
    done.wait()
}

// MARK: Round trips: this thread -> loop -> this thread

func rawRoundTrips() {
    guard uv_raw_round_trips(Int64(roundTrips)) == 0 else { fail("raw round trips") }
}

func promiseUVRoundTrips(_ loop: UVLoop) {
    let sem = uv_raw_sem_create()!
    defer { uv_raw_sem_destroy(sem) }
    let box = SemBox(sem)
    for _ in 0..<roundTrips {
        loop.execute { box.post() }
        uv_raw_sem_wait(sem)
    }
}

func dispatchRoundTrips(_ queue: DispatchQueue) {
    let sem = uv_raw_sem_create()!
    defer { uv_raw_sem_destroy(sem) }
    let box = SemBox(sem)
    for _ in 0..<roundTrips {
        queue.async { box.post() }
        uv_raw_sem_wait(sem)
    }
}

/// `@unchecked Sendable`: uv_sem_t is thread-safe; the pointer outlives every use.
struct SemBox: @unchecked Sendable {
    let sem: OpaquePointer
    init(_ sem: OpaquePointer) { self.sem = sem }
    func post() { uv_raw_sem_post(sem) }
}

// MARK: 10 000 promise chains of 5 links resolved on the context

func chains(on context: some ExecutionContext) -> Promise<[Int]> {
    var promises: [Promise<Int>] = []
    promises.reserveCapacity(chainCount)
    for index in 0..<chainCount {
        var promise = Promise<Int>(on: context) { index }
        for _ in 1..<chainLength {
            promise = promise.then(on: context) { $0 + 1 }
        }
        promises.append(promise)
    }
    return all(promises)
}

func promiseUVChains() {
    let loop = try! UVLoop()
    let values = try! loop.run(until: Promise<[Int]>(on: loop) { chains(on: loop) })
    guard values.count == chainCount else { fail("chains") }
    try! awaitPromise(loop.shutdown())
}

func dispatchChains() {
    let queue = DispatchQueue(label: "bench.chains")
    let values = try! awaitPromise(Promise<[Int]>(on: queue) { chains(on: queue) })
    guard values.count == chainCount else { fail("chains") }
}

// MARK: Bluebird workloads

/// A fake I/O call, as the Node scripts' `new Promise(r => setTimeout(() => r(value), 1))`:
/// a pending promise that a 1 ms uv timer's callback fulfils (the way an adapter's C
/// completion callback fulfils its promise).
func fakeIO<T: Sendable>(_ loop: UVLoop, _ value: T) -> Promise<T> {
    let (promise, resolver) = Promise<T>.pending()
    _ = loop.executeAfter(.milliseconds(1)) { resolver.fulfill(value) }
    return promise
}

/// madeup-parallel: 10 000 concurrent jobs, each 25 fake I/O calls in parallel joined with `all`.
func madeupParallel(_ loop: UVLoop) -> Promise<Int> {
    let jobs = (0..<jobCount).map { job in
        all((0..<25).map { call in fakeIO(loop, job &+ call) }).then(on: loop) { values in values.count }
    }
    return all(jobs).then(on: loop) { counts in counts.reduce(0, +) }
}

/// doxbee-sequential: 10 000 concurrent jobs, each a chain of 10 dependent fake I/O calls
/// (Bluebird's version: a blob upload through a transaction, each step using the last's result).
func doxbeeSequential(_ loop: UVLoop) -> Promise<Int> {
    let jobs = (0..<jobCount).map { job in
        var step = fakeIO(loop, job)
        for _ in 1..<10 {
            step = step.then(on: loop) { previous in fakeIO(loop, previous &+ 1) }
        }
        return step
    }
    return all(jobs).then(on: loop) { values in values.count }
}

func bluebird(_ name: String, _ workload: @escaping @Sendable (UVLoop) -> Promise<Int>, expect: Int) {
    let loop = try! UVLoop()
    Promises.defaultContext = loop
    let start = now()
    let result = try! loop.run(until: Promise<Promise<Int>>(on: loop) { workload(loop) }.then(on: loop) { $0 })
    let elapsed = now() - start
    guard result == expect else { fail("\(name): got \(result), expected \(expect)") }
    try! awaitPromise(loop.shutdown())
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    print("\(name)\tPromiseUV\t\(fmt(elapsed))\t\(usage.ru_maxrss)")
}

/// Milliseconds with two decimals.
func fmt(_ value: Double) -> String {
    let hundredths = Int((value * 100).rounded())
    let fraction = hundredths % 100
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
}

// MARK: Driver

func micro(rounds: Int) {
    var samples: [String: [Double]] = [:]
    func measure(_ key: String, _ body: () -> Void) {
        let start = now()
        body()
        samples[key, default: []].append(now() - start)
    }
    let loop = try! UVLoop()
    try! loop.startThread(named: "bench-loop")
    let queue = DispatchQueue(label: "bench.serial")
    for round in 0..<rounds {
        let timerCandidates: [(String, () -> Void)] = [
            ("timers-1M\traw uv_timer_t", rawTimers),
            ("timers-1M\tPromiseUV after+then", promiseUVAfter),
            ("timers-1M\tPromiseUV executeAfter", promiseUVExecuteAfter),
            ("timers-1M\tDispatchQueue asyncAfter", dispatchTimers),
        ]
        let tripCandidates: [(String, () -> Void)] = [
            ("round-trip-20k\traw uv_async_send", rawRoundTrips),
            ("round-trip-20k\tPromiseUV execute", { promiseUVRoundTrips(loop) }),
            ("round-trip-20k\tDispatchQueue async", { dispatchRoundTrips(queue) }),
        ]
        let chainCandidates: [(String, () -> Void)] = [
            ("chains-10k\tPromiseUV", promiseUVChains),
            ("chains-10k\tDispatchQueue", dispatchChains),
        ]
        for group in [timerCandidates, tripCandidates, chainCandidates] {
            let shift = round % group.count
            for (key, body) in group[shift...] + group[..<shift] {
                measure(key, body)
            }
        }
    }
    try! awaitPromise(loop.shutdown())
    for key in samples.keys.sorted() {
        let values = samples[key]!.sorted()
        print("\(key)\t\(fmt(values[values.count / 2]))\t\(fmt(values.first!))\t\(fmt(values.last!))")
    }
}

let arguments = CommandLine.arguments
switch arguments.count > 1 ? arguments[1] : "micro" {
case "micro":
    micro(rounds: arguments.count > 2 ? Int(arguments[2]) ?? 5 : 5)
case "after":  // for profiling
    let start = now(); promiseUVAfter(); print("after+then \(fmt(now() - start)) ms")
case "chains":  // for profiling
    let start = now(); promiseUVChains(); print("chains \(fmt(now() - start)) ms")
case "madeup-parallel":
    bluebird("madeup-parallel", madeupParallel, expect: jobCount * 25)
case "doxbee-sequential":
    bluebird("doxbee-sequential", doxbeeSequential, expect: jobCount)
default:
    fail("unknown mode \(arguments[1]); use micro, madeup-parallel or doxbee-sequential")
}
