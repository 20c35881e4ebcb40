import PromiseCore

extension UVLoop {
    /// A promise fulfilled on the loop thread once `duration` has passed.
    ///
    /// ```swift
    /// loop.after(.milliseconds(250)).then(on: loop) { print("a quarter second later") }
    /// ```
    ///
    /// Timers have libuv's millisecond resolution (durations round up, and one millisecond is
    /// added because libuv's clock truncates) and measure from the moment they are started
    /// (the loop's cached time is refreshed first, unlike a bare `uv_timer_start`), so they
    /// never fire early: a timer fires between `duration` and about 1 ms after it. Timers due at the same millisecond fire
    /// in the order they were started. All of a loop's timers share one `uv_timer_t`, so a
    /// million pending timers cost memory, not handles. A pending timer keeps ``run()`` going.
    ///
    /// - Parameter duration: How long to wait; zero or negative fires on the next loop
    ///   iteration.
    /// - Returns: A promise fulfilled with `()` on the loop thread. Cancelling it stops the
    ///   timer. Rejected with ``UVError/Code-swift.struct/loopClosed`` if the loop is shut
    ///   down first.
    public func after(_ duration: Duration) -> Promise<Void> {
        let core = self.core
        let promise = Promise<Void>.pending(resolvedOn: core.contextID)
        let timer = PromiseTimer(promise: promise, contextID: core.contextID)
        if core.isOnLoopThread {
            if !core.startTimer(timer, after: duration) { timer.abandon() }
        } else if !core.submit(.user, { core.startTimerIfNotCancelled(timer, after: duration) }) {
            timer.abandon()
            return promise
        }
        promise.onCancelFromLibrary { core.cancelTimer(timer) }
        return promise
    }

    /// Runs `work` on the loop thread once `delay` has passed, unless the returned handle is
    /// cancelled first. PromiseCore's `delay`, `timeout` and `retry` use this, so on a loop
    /// they run on libuv timers.
    ///
    /// - Parameters:
    ///   - delay: How long to wait; zero or negative runs it on the next loop iteration.
    ///   - work: The work to run.
    /// - Returns: A handle that cancels the work if it has not started. When the loop shuts
    ///   down first (or already has), the work never runs: PromiseCore's own work is handed
    ///   back, which rejects the promise waiting for it with
    ///   `PromiseError.Code.contextInvalidated`; a plain closure is dropped, reported once per
    ///   process on standard error.
    public func executeAfter(_ delay: Duration, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        core.executeAfter(delay, work)
    }

    /// Runs PromiseCore's `job` on the loop thread once `delay` has passed; refuses it when
    /// the loop shuts down first, which rejects the promise waiting for it with
    /// `PromiseError.Code.contextInvalidated`.
    public func submit(_ job: ContextJob, after delay: Duration) -> ScheduledWork {
        core.submit(job, after: delay)
    }
}
