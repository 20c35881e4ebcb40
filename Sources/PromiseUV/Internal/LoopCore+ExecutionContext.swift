@_spi(ContextContract) import PromiseCore

// The loop as the context a promise callback stores. `then(on: loop)` binds the callback to
// the `UVLoop`'s core, not to the `UVLoop` (`registerClassContextType` in `make()`), so a
// callback waiting on the loop's own timer or watch never keeps the `UVLoop` alive: a loop
// dropped without `shutdown()` is deallocated and shut down whatever is chained on it. Every
// requirement behaves as the `UVLoop`'s, which forwards here.
extension LoopCore: ExecutionContext {
    func execute(_ work: @escaping @Sendable () -> Void) {
        if !submit(.user, work) {
            reportDroppedClosure()
        }
    }

    func submit(_ job: ContextJob) {
        if !submit(.user, job.runner) {
            job.refuse()
        }
    }

    func executeAfter(_ delay: Duration, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        schedule(WorkTimer(.closure(work)), after: delay)
    }

    func submit(_ job: ContextJob, after delay: Duration) -> ScheduledWork {
        schedule(WorkTimer(.job(job)), after: delay)
    }

    var keepsAliveWhileCallbacksWait: Bool { true }

    func callbackBeganWaiting() {
        retainForCallback()
    }

    func callbackStoppedWaiting() {
        release()
    }

    var executionContextID: ObjectIdentifier? { contextID }

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
