@_spi(ContextContract) import PromiseCore

/// The loop as the context a promise callback stores. `then(on: loop)` binds the callback to
/// the `UVLoop`'s `LoopContext`, not to the `UVLoop` (`registerClassContextType` in
/// `LoopCore.make()`), so a callback waiting on the loop's own timer or watch never keeps the
/// `UVLoop` alive: a loop dropped without `shutdown()` is deallocated and shut down whatever
/// is chained on it. Every requirement behaves as the `UVLoop`'s; both forward to the core.
///
/// A class of its own rather than the core: the core is weakly referenced (the blocking-wait
/// registry), which moves its reference count to a side table, and every callback retains
/// and releases its context (measured: 910 more instructions per step of
/// `Benchmarks/uv-counts.sh`'s doxbee-sequential with the core as the context).
final class LoopContext: ExecutionContext {
    let core: LoopCore

    init(_ core: LoopCore) {
        self.core = core
    }

    func execute(_ work: @escaping @Sendable () -> Void) { core.execute(work) }
    func submit(_ job: ContextJob) { core.submit(job) }
    func executeAfter(_ delay: Duration, _ work: @escaping @Sendable () -> Void) -> ScheduledWork { core.executeAfter(delay, work) }
    func submit(_ job: ContextJob, after delay: Duration) -> ScheduledWork { core.submit(job, after: delay) }
    var keepsAliveWhileCallbacksWait: Bool { true }
    func callbackBeganWaiting() { core.retainForCallback() }
    func callbackStoppedWaiting() { core.release() }
    var executionContextID: ObjectIdentifier? { core.contextID }
}

// What `UVLoop` and `LoopContext` do as an `ExecutionContext`.
extension LoopCore {
    /// Runs `work` on the loop thread; a closure refused by a shut-down loop is dropped and
    /// reported once per process.
    func execute(_ work: @escaping @Sendable () -> Void) {
        if !submit(.user, work) {
            reportDroppedClosure()
        }
    }

    /// Runs PromiseCore's `job` on the loop thread; refused by a shut-down loop, which rejects
    /// the promise waiting for it with `contextInvalidated`.
    func submit(_ job: ContextJob) {
        if !submit(.user, job.runner) {
            job.refuse()
        }
    }

    /// Runs `work` on the loop thread after `delay`.
    func executeAfter(_ delay: Duration, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        schedule(WorkTimer(.closure(work)), after: delay)
    }

    /// Runs PromiseCore's `job` on the loop thread after `delay`.
    func submit(_ job: ContextJob, after delay: Duration) -> ScheduledWork {
        schedule(WorkTimer(.job(job)), after: delay)
    }

    /// Starts `timer` (any thread); refused once the loop shuts down.
    private func schedule(_ timer: WorkTimer, after delay: Duration) -> ScheduledWork {
        if isOnLoopThread {
            if !startTimer(timer, after: delay) { timer.abandon() }
        } else if !submit(.user, { [self] in startTimerIfNotCancelled(timer, after: delay) }) {
            timer.abandon()
            return ScheduledWork {}
        }
        return ScheduledWork { [self] in cancelTimer(timer) }
    }
}
