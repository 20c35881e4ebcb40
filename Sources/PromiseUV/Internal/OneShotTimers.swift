import PromiseCore
internal import Synchronization

/// A timer that fulfils the promise of `UVLoop.after(_:)`.
///
/// `@unchecked Sendable`: as for ``TimerEntry``, other threads only set `cancelled`; `promise`
/// is read and cleared on the loop thread (or by the submitting thread before the timer was
/// ever handed to the loop).
final class PromiseTimer: TimerEntry, @unchecked Sendable {
    // Dropped once used, so a fired timer that something still references (a cancel
    // handler) holds nothing alive.
    private var promise: Promise<Void>?
    private let contextID: ObjectIdentifier

    init(promise: Promise<Void>, contextID: ObjectIdentifier) {
        self.promise = promise
        self.contextID = contextID
    }

    override func fire() {
        guard let promise else { return }
        self.promise = nil
        // A turn of the loop: callbacks chained on the loop run right after, without a hop.
        AdapterSupport.runTurn(contextID) { promise.resolveFromLibrary(.success(())) }
    }

    override func abandon() {
        guard let promise else { return }
        self.promise = nil
        promise.reject(UVError(.loopClosed, operation: "after", detail: "the UVLoop was shut down before the timer fired"))
    }
}

/// A timer that runs work given to `UVLoop.executeAfter(_:_:)`, or a job PromiseCore
/// submitted (the core's `delay`, `timeout` and `retry` timers).
///
/// `@unchecked Sendable`: as for ``PromiseTimer``, `work` is touched by one thread at a time.
final class WorkTimer: TimerEntry, @unchecked Sendable {
    enum Work {
        /// A plain closure: dropped (and reported once) if the loop shuts down first.
        case closure(@Sendable () -> Void)
        /// PromiseCore's job: refused if the loop shuts down first, which rejects its promise.
        case job(ContextJob)
    }

    // Dropped once used: the work's owner often keeps the cancel handle (and so this timer)
    // alive, and the work references the owner, which would be a cycle.
    private var work: Work?

    init(_ work: Work) {
        self.work = work
    }

    override func fire() {
        guard let work else { return }
        self.work = nil
        switch work {
        case .closure(let body): body()
        case .job(let job): job.run()
        }
    }

    override func abandon() {
        guard let work else { return }
        self.work = nil
        switch work {
        case .closure: reportDroppedClosure()
        case .job(let job): job.refuse()
        }
    }
}

private let reportedDroppedClosure = Atomic<Bool>(false)

/// A plain closure that a shut-down loop will not run is dropped without running (running it
/// would break `ExecutionContext`'s contract); the first such drop in the process is reported.
func reportDroppedClosure() {
    guard !reportedDroppedClosure.exchange(true, ordering: .relaxed) else { return }
    Promises.reportDroppedWork(
        UVError(
            .loopClosed,
            operation: "execute",
            detail: "a closure given to execute or executeAfter after the loop shut down will not run (reported once per process)"
        ))
}
