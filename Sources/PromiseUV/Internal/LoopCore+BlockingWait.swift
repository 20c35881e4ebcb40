@_spi(ContextContract) import PromiseCore

/// How a `UVLoop` answers a thread about to block in `awaitPromise` on a chain that needs it:
/// a deadlock inside its own callbacks (`uv_run` cannot be entered again), otherwise a drive of
/// the loop on the waiting thread, which ``drive(until:)`` declines when another thread runs it.
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
    /// `awaitPromise` made before any thread ran the loop. Returns false when another thread
    /// claimed the loop first (the caller then blocks instead).
    func drive(until wait: BlockingWait) -> Bool {
        guard claimForWait() else { return false }
        // Hold the loop open while waiting, and wake it when the promise settles elsewhere.
        retainForCallback()
        wait.whenSettled { [self] in
            if !isOnLoopThread { wake() }
        }
        let clock = ContinuousClock()
        let deadline = wait.timeout.map { clock.now.advanced(by: $0) }
        // A timer that does nothing but end the `uv_run` pass when the timeout is up.
        let alarm = wait.timeout.map { timeout in
            let timer = WorkTimer(.closure({}))
            _ = startTimer(timer, after: timeout)
            return timer
        }
        while !wait.isSettled, deadline.map({ clock.now < $0 }) ?? true {
            if runOnceForWait(unless: { wait.isSettled }) {
                release()
                return true
            }
        }
        if let alarm { cancelTimer(alarm) }
        release()
        releaseWaitClaim()
        return true
    }
}
