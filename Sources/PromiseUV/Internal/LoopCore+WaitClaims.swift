// LoopCore's claims: which thread runs the loop. `run()` and `startThread(named:)` claim it
// for good; blocking waits (which `LoopCore+BlockingWait.swift` drives the loop with) claim an
// idle loop for one waiting thread, and other threads stand by to take it over. Split from
// LoopCore.swift by concern; the state is in `remote`, under its lock.
internal import CUV
internal import Dispatch
internal import Glibc

extension LoopCore {
    /// Claims the loop for the calling thread. Returns false when it was shut down.
    func claimForRun() -> Bool {
        claim(thread: nil)
    }

    /// Marks the loop as running on a thread of its own, named `name`, that holds it open
    /// until shutdown.
    func claimForThread(named name: String) -> Bool {
        guard claim(thread: name) else { return false }
        holds.add(1, ordering: .relaxed)
        machine.threadClaimed()  // written before the thread starts; pthread_create orders it
        return true
    }

    /// Gives up a claim that was not used (the thread could not start).
    ///
    /// If ``requestShutdown()`` ran meanwhile, it saw the loop as running and left the work to
    /// the thread that never started: the caller drives the shutdown itself instead, so the
    /// shutdown promise does not stay pending.
    func unclaim() {
        machine.threadUnclaimed()
        holds.subtract(1, ordering: .relaxed)
        let shutdownRequested = remote.withLock { state in
            state.driver.threadDidNotStart(accepting: state.lifecycle.isAccepting)
        }
        if shutdownRequested { drive() }
    }

    /// Claims the loop for ``UVLoop/run()``, or for the thread named `thread`.
    private func claim(thread: String?) -> Bool {
        let claim = remote.withLock { state in
            state.driver.claimForRun(accepting: state.lifecycle.isAccepting, thread: thread)
        }
        switch claim {
        case .claimed:
            return true
        case .shutDown:
            return false
        case .alreadyRunning:
            preconditionFailure(
                "UVLoop.run(): the loop is already running on another thread (or run() was called from inside the loop); a loop runs on one thread at a time and uv_run is not reentrant"
            )
        }
    }

    /// Claims an idle loop for a blocking wait on the calling thread (see
    /// `LoopCore+BlockingWait.swift`); when another blocking wait's thread runs it, lists
    /// `wake` to be signalled once that thread gives the loop up.
    func claimForWait(standingBy wake: DispatchSemaphore) -> Driver.WaitClaim {
        let claim = remote.withLock { state in
            state.driver.claimForWait(wake, accepting: state.lifecycle.isAccepting)
        }
        if claim == .claimed {
            owner.store(pthread_self(), ordering: .relaxed)
            uv_update_time(loop)
        }
        return claim
    }

    /// Takes `wake` off the standby list, if it is still on it.
    func leaveStandby(_ wake: DispatchSemaphore) {
        remote.withLock { state in state.driver.leaveStandby(wake) }
    }

    /// One iteration of a blocking wait: queued work, then (unless `settled` holds by then) one
    /// `uv_run` pass. Returns true once a shutdown has closed the loop meanwhile, which also
    /// gives the claim up.
    func runOnceForWait(unless settled: () -> Bool) -> Bool {
        onWake()
        if settled() { return false }
        uv_run(loop, UV_RUN_ONCE)
        drainLocal()
        guard machine.turnEnded() == .closeLoop else { return false }
        finishShutdown()
        return true
    }

    /// Gives up a claim taken with ``claimForWait(standingBy:)`` and wakes the threads
    /// standing by, one of which takes the loop over; when a shutdown was asked for
    /// meanwhile, the calling thread runs the loop through it first (nobody else will).
    func releaseWaitClaim() {
        let (standbys, drivesShutdown) = remote.withLock { state in
            owner.store(0, ordering: .relaxed)
            return state.driver.releaseWaitClaim(accepting: state.lifecycle.isAccepting)
        }
        for standby in standbys { standby.signal() }
        if drivesShutdown { drive() }
    }
}
