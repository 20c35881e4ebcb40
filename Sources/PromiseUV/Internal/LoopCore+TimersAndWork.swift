internal import CUV
internal import Glibc

// LoopCore's timers and pool work, split from LoopCore.swift by concern. The same threading
// rules apply: everything here runs on the loop thread unless its comment says otherwise.
extension LoopCore {
    // MARK: Timers

    /// Starts `entry`, due after `duration` (loop thread).
    func startTimer(_ entry: TimerEntry, after duration: Duration) -> Bool {
        guard !isShuttingDown else { return false }
        // The cached loop time dates from the start of this iteration, and callbacks may have
        // run long since: measure from now, so the timer never fires early.
        uv_update_time(loop)
        // uv_now truncates to the millisecond, so "now" may already be up to 1 ms later than
        // it says: one more millisecond keeps a timer from firing that much early (the soak
        // run measured 0.99 ms early without it).
        let milliseconds = duration.uvMilliseconds
        timers.insert(entry, duration: milliseconds == 0 ? 0 : milliseconds + 1, now: uv_now(loop))
        armTimer()
        return true
    }

    /// Starts a timer submitted from another thread, unless it was cancelled meanwhile
    /// (loop thread).
    func startTimerIfNotCancelled(_ entry: TimerEntry, after duration: Duration) {
        guard !entry.isCancelled else { return }
        if !startTimer(entry, after: duration) { entry.abandon() }
    }

    /// Timers waiting to fire (loop thread; for tests).
    var pendingTimerCount: Int { timers.count }

    /// Removes a cancelled timer (loop thread).
    func stopTimer(_ entry: TimerEntry) {
        if timers.remove(entry) { armTimer() }
    }

    /// Cancels `entry` from any thread: it never fires, and it stops keeping the loop alive.
    func cancelTimer(_ entry: TimerEntry) {
        guard !entry.cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if isOnLoopThread {
            stopTimer(entry)
        } else {
            _ = submit(.late) { [self] in stopTimer(entry) }
        }
    }

    /// Points the one `uv_timer_t` at the earliest timer, or stops it when there is none, so
    /// that an empty timer queue does not keep the loop alive.
    func armTimer() {
        let expiry = timers.nextExpiry
        // Only timers that keep the loop alive hold the handle's reference (`every` with
        // `keepsLoopAlive: false` does not), so `uv_run` returns when just those are left.
        if expiry != nil, timerHandleState.state != .firing {
            if timers.onlyUnreferenced {
                uv_unref(cuv_timer_as_handle(timerHandle))
            } else {
                uv_ref(cuv_timer_as_handle(timerHandle))
            }
        }
        switch timerHandleState.arm(nextExpiry: expiry) {
        case .start(let expiry):
            let now = uv_now(loop)
            uv_timer_start(timerHandle, Trampolines.timer, expiry > now ? expiry - now : 0, 0)
        case .stop:
            uv_timer_stop(timerHandle)
        case .none:
            break
        }
    }

    /// The timer handle fired: run every timer that is due, in order.
    ///
    /// Only timers started before this pass fire in it: one started meanwhile (a zero-delay
    /// timer that restarts itself) waits for the next loop iteration, after the loop has
    /// polled, so it cannot starve other work or shutdown.
    func onTimer() {
        timerHandleState.fired()
        let now = uv_now(loop)
        let limit = timers.sequenceLimit
        while let entry = timers.popExpired(now: now, startedBefore: limit) {
            if !entry.isCancelled { entry.fire() }
        }
        // Due already: arming the handle now would run it again in this same pass of libuv
        // 1.44's timer loop. Re-arm it from the wake-up, after this iteration's poll.
        let dueNow = timers.nextExpiry.map { $0 <= uv_now(loop) } ?? false
        switch timerHandleState.firingEnded(nextDueNow: dueNow) {
        case .rearmAfterPoll: wake()
        case .arm: armTimer()
        }
    }

    // MARK: Pool work

    /// Queues `request` on libuv's pool (loop thread). Throws when the loop is shutting down.
    func startWork(_ request: WorkRequest) throws(UVError) {
        guard !isShuttingDown else {
            throw UVError(.loopClosed, operation: "work", detail: "the UVLoop was shut down before the work could be queued")
        }
        guard !request.cancelled.load(ordering: .acquiring) else {
            request.finish(false, true)
            return
        }
        try request.queue(on: loop)
        inFlight[request.id] = request
    }

    /// Cancels `request` if it has not started (loop thread).
    func cancelWork(_ request: WorkRequest) {
        guard inFlight[request.id] != nil else { return }
        request.cancelIfQueued()
    }

    /// The after-work callback (loop thread).
    func workFinished(_ request: WorkRequest, status: Int32) {
        inFlight[request.id] = nil
        let ran = status == 0 && request.didRun
        request.finish(ran, request.cancelled.load(ordering: .acquiring))
        if machine.poolWorkFinished(stillInFlight: inFlight.count) == .closeHandles { closeHandles() }
    }
}
