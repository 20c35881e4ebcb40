import ArgumentParser
import Dispatch
import PromiseCore
import PromiseUV
import Synchronization

/// `promise-soak timers`: `UVLoop.after(_:)` timers in batches on a loop running on its own
/// thread; each must fire once and not early, and each cancelled one must never fire.
struct TimerSoak: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timers",
        abstract: "libuv timers on one UVLoop, in batches; some cancelled before they fire.",
        discussion: """
            In each batch, half the timers are started from the main thread and half from a \
            callback on the loop thread. Durations are 0-7 ms; one in ten uses executeAfter(_:_:). \
            Every tenth timer is cancelled at once, from the thread that started it: a \
            promise from after(_:) must end with CancellationError, work given to \
            executeAfter(_:_:) must never run. The others must fire exactly once, never \
            earlier than their duration; the summary gives the earliest fire seen. After the run the loop is shut down and every \
            descriptor it opened must be closed.
            """
    )

    @Option(help: "How many timers.")
    var count = 1_000_000

    @Option(help: "Timers in flight at once: each batch is started and checked before the next.")
    var batch = 10_000

    @Option(help: "Seconds one batch may take before the run fails as stuck.")
    var stallTimeout = 60

    func validate() throws {
        try validateCount(count)
        guard batch > 1 else { throw ValidationError("--batch must be at least 2, got \(batch)") }
    }

    func run() throws {
        let failures = SoakFailures()
        Promises.diagnosticsHandler = { report in failures.record("diagnostic: \(report)") }
        // libuv opens a pipe for its signal lock the first time any loop is created and keeps
        // it for the life of the process. A first loop, created and shut down here, opens it,
        // so that the check after the run counts only what the soak's loop left behind.
        try awaitPromise(UVLoop().shutdown(), timeout: .seconds(30))
        let before = ProcessProbe.descriptors()
        let loop = try UVLoop()
        try loop.startThread(named: "soak-uv")
        let earliness = Earliness()
        let monitor = SoakMonitor(
            name: "timers",
            unit: "timers",
            total: count,
            detail: "\(batch) per batch on one UVLoop thread, 0-7 ms, every tenth cancelled"
        )
        var done = 0
        while done < count {
            let size = min(batch, count - done)
            let tracker = TimerBatch(first: done, size: size, failures: failures, earliness: earliness)
            let half = size / 2
            // The second half is started on the loop thread.
            loop.execute {
                for index in half..<size { tracker.start(index, on: loop) }
            }
            for index in 0..<half { tracker.start(index, on: loop) }
            if tracker.finished.wait(timeout: .now() + .seconds(stallTimeout)) == .timedOut {
                failures.record("batch from timer \(done) stalled: timers not ended after \(stallTimeout) s include \(tracker.unfinished(limit: 5))")
                break
            }
            tracker.verify()
            done += size
            monitor.progress(done)
        }
        // Long enough for any cancelled timer of the last batch to have come due.
        _ = DispatchSemaphore(value: 0).wait(timeout: .now() + .milliseconds(50))
        do {
            try awaitPromise(loop.shutdown(), timeout: .seconds(30))
        } catch {
            failures.record("shutting the loop down: \(error)")
        }
        let teardown = checkTeardown(before: before, failures: failures, what: "loop shutdown")
        let earliest = earliness.earliestMilliseconds
        let early = earliest > 0 ? "earliest fire \(fixed(earliest, 2)) ms before its duration" : "no timer fired early"
        guard monitor.finish(done: done, failures: failures, extra: early + ", " + teardown) else { throw ExitCode.failure }
    }
}

/// The most any timer fired before its duration had passed, in microseconds.
final class Earliness: Sendable {
    private let microseconds = Atomic<Int>(0)

    func record(_ early: Int) {
        var current = microseconds.load(ordering: .relaxed)
        while early > current {
            let (exchanged, original) = microseconds.compareExchange(expected: current, desired: early, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    var earliestMilliseconds: Double { Double(microseconds.load(ordering: .relaxed)) / 1000 }
}

/// One batch of timers: starts them and counts how each ended.
final class TimerBatch: Sendable {
    /// How much earlier than its duration a timer may fire: none. PromiseUV adds a
    /// millisecond to every timer because libuv's loop clock truncates to whole milliseconds
    /// (this soak run found timers firing up to 0.99 ms early before that).
    static let tolerance: Duration = .zero

    let first: Int
    let size: Int
    let failures: SoakFailures
    let earliness: Earliness
    let finished = DispatchSemaphore(value: 0)
    private let ends: Mutex<(calls: [UInt8], done: Int)>

    init(first: Int, size: Int, failures: SoakFailures, earliness: Earliness) {
        self.first = first
        self.size = size
        self.failures = failures
        self.earliness = earliness
        ends = Mutex(([UInt8](repeating: 0, count: size), 0))
    }

    enum Kind {
        /// `UVLoop.after(_:)`, which must fire.
        case promise
        /// `UVLoop.after(_:)`, cancelled at once: must end with `CancellationError`.
        case cancelledPromise
        /// `UVLoop.executeAfter(_:_:)`, whose work must run.
        case work
        /// `UVLoop.executeAfter(_:_:)`, cancelled at once: its work must never run.
        case cancelledWork

        init(_ n: Int) {
            switch n % 20 {
            case 9: self = .cancelledPromise
            case 19: self = .cancelledWork
            case 3, 13: self = .work
            default: self = .promise
            }
        }
    }

    static func duration(_ n: Int) -> Duration {
        .milliseconds(n % 8)
    }

    /// Starts timer `first + index` on `loop` (from whatever thread calls this), and cancels it
    /// at once if it is one of the cancelled ones.
    func start(_ index: Int, on loop: UVLoop) {
        let n = first + index
        let duration = Self.duration(n)
        let clock = ContinuousClock()
        let started = clock.now
        let inline = InlineContext()
        let kind = Kind(n)
        switch kind {
        case .promise, .cancelledPromise:
            let timer = loop.after(duration)
            timer.then(on: inline) { () -> Void in
                self.fired(index, kind, duration, clock.now - started)
            }
            .catch(on: inline, policy: .allErrors) { error in
                self.end(index, fired: false)
                if !(kind == .cancelledPromise && error is CancellationError) {
                    self.failures.record("timer \(n) (\(kind), \(duration)) ended with \(error)")
                }
            }
            if kind == .cancelledPromise { timer.cancel() }
        case .work, .cancelledWork:
            let handle = loop.executeAfter(duration) {
                self.fired(index, kind, duration, clock.now - started)
            }
            if kind == .cancelledWork {
                handle.cancel()
                end(index, fired: false)
            }
        }
    }

    private func fired(_ index: Int, _ kind: Kind, _ duration: Duration, _ elapsed: Duration) {
        let n = first + index
        end(index, fired: true)
        if kind == .cancelledPromise || kind == .cancelledWork {
            failures.record("timer \(n) (\(kind)) fired after it was cancelled")
        } else if elapsed < duration {
            let early = duration - elapsed
            earliness.record(Int(early / .microseconds(1)))
            if early > Self.tolerance {
                failures.record("timer \(n) (\(kind), \(duration)) fired after \(elapsed)")
            }
        }
    }

    private func end(_ index: Int, fired: Bool) {
        let (calls, done) = ends.withLock { state in
            state.calls[index] &+= 1
            state.done += 1
            return (state.calls[index], state.done)
        }
        if calls > 1 { failures.record("timer \(first + index) ended \(calls) times (the last time \(fired ? "fired" : "rejected"))") }
        if done == size { finished.signal() }
    }

    func unfinished(limit: Int) -> [Int] {
        let calls = ends.withLock { $0.calls }
        return Array(calls.indices.lazy.filter { calls[$0] == 0 }.prefix(limit).map { self.first + $0 })
    }

    func verify() {
        let allOnce = ends.withLock { state in state.calls.allSatisfy { $0 == 1 } }
        if !allOnce { failures.record("batch from timer \(first): not every timer ended exactly once") }
    }
}
