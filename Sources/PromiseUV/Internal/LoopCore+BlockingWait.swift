@_spi(ContextContract) import PromiseCore
internal import CUV
internal import Dispatch

/// How a `UVLoop` answers a thread about to block in `awaitPromise` on a chain that needs it:
/// a deadlock inside its own callbacks (`uv_run` cannot be entered again), otherwise a drive of
/// the loop on the waiting thread, which ``drive(until:)`` declines when a thread runs it for
/// good, and shares among the threads waiting when none does.
extension LoopCore: BlockingWaitAdvisor {
    var contextName: String { "a UVLoop" }

    func adviseBlockingWait() -> BlockingWaitAdvice {
        if isOnLoopThread {
            return .deadlock(
                reason:
                    "the calling thread is running the loop (inside one of its callbacks), and uv_run cannot be entered again; chain with then(…) instead of waiting"
            )
        }
        return .drive { [self] wait in drive(until: wait) }
    }

    /// Runs the loop on the calling thread until `wait` has settled or timed out, for an
    /// `awaitPromise` made while no thread runs the loop for good. Returns false when such a
    /// thread runs it (the caller then blocks instead).
    ///
    /// Several threads may wait on one loop: one runs it, the others stand by. When the
    /// running thread's own promise has settled it gives the loop up and wakes them, and one
    /// takes the loop over, so every waiter's promise settles. A thread standing by returns
    /// as soon as its own promise settles (while another runs the loop) or its timeout passes.
    func drive(until wait: BlockingWait) -> Bool {
        let clock = ContinuousClock()
        let deadline = wait.timeout.map { clock.now.advanced(saturatingBy: $0) }
        let wake = DispatchSemaphore(value: 0)
        var listening = false
        while true {
            switch claimForWait(standingBy: wake) {
            case .declined:
                return false
            case .claimed:
                runClaimed(until: wait, deadline: deadline)
                return true
            case .standingBy:
                if !listening {
                    listening = true
                    wait.whenSettled { wake.signal() }
                }
                if wait.isSettled {
                    leaveStandby(wake)
                    return true
                }
                var woken = true
                if let deadline {
                    let left = clock.now.duration(to: deadline)
                    woken = left > .zero && wake.wait(timeout: .now() + left.dispatchInterval) == .success
                } else {
                    wake.wait()
                }
                if wait.isSettled || !woken {
                    leaveStandby(wake)
                    return true
                }
            }
        }
    }

    /// The body of ``drive(until:)`` once the calling thread has claimed the loop.
    private func runClaimed(until wait: BlockingWait, deadline: ContinuousClock.Instant?) {
        // Hold the loop open while waiting. When the promise settles elsewhere, wake the loop;
        // when it settles in one of the loop's own callbacks (a timer that was due as the pass
        // began, say), end the pass with `uv_stop`, so it does not go on to poll until the
        // next timer or I/O.
        retainForCallback()
        wait.whenSettled { [self] in
            if isOnLoopThread { uv_stop(loop) } else { wake() }
        }
        let clock = ContinuousClock()
        // A timer that does nothing but end the `uv_run` pass when the timeout is up.
        let alarm = deadline.map { deadline in
            let timer = WorkTimer(.closure({}))
            _ = startTimer(timer, after: clock.now.duration(to: deadline))
            return timer
        }
        while !wait.isSettled, deadline.map({ clock.now < $0 }) ?? true {
            if runOnceForWait(unless: { wait.isSettled }) {
                // The close woke the threads standing by (``LoopCore/finishShutdown()``).
                release()
                return
            }
        }
        if let alarm { cancelTimer(alarm) }
        release()
        releaseWaitClaim()
    }
}
