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
        let claimed: Bool? = remote.withLock { state in
            if !state.lifecycle.isAccepting { return false }
            if state.running { return nil }
            state.running = true
            return true
        }
        guard let claimed else {
            preconditionFailure(
                "UVLoop.run(): the loop is already running on another thread (or run() was called from inside the loop); a loop runs on one thread at a time and uv_run is not reentrant"
            )
        }
        return claimed
    }

    /// Marks the loop as running on a thread of its own, named `name`, that holds it open
    /// until shutdown.
    func claimForThread(named name: String) -> Bool {
        guard claimForRun() else { return false }
        remote.withLock { $0.threadName = name }
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
        let shutdownRequested: Bool = remote.withLock { state in
            state.threadName = nil
            if !state.lifecycle.isAccepting { return true }
            state.running = false
            return false
        }
        if shutdownRequested { drive() }
    }

    /// How ``claimForWait(standingBy:)`` placed the calling thread.
    enum WaitClaim {
        /// The thread runs the loop now.
        case claimed
        /// Another blocking wait's thread runs the loop: `wake` is signalled when it gives the
        /// loop up, and the caller tries again.
        case standingBy
        /// A thread runs the loop for good (``drive()``), or the loop is shut down.
        case declined
    }

    /// Claims an idle loop for a blocking wait on the calling thread (see
    /// `LoopCore+BlockingWait.swift`); when another blocking wait's thread runs it, lists
    /// `wake` to be signalled once that thread gives the loop up.
    func claimForWait(standingBy wake: DispatchSemaphore) -> WaitClaim {
        let claim: WaitClaim = remote.withLock { state in
            if !state.lifecycle.isAccepting { return .declined }
            if state.running {
                guard state.waitDriven else { return .declined }
                if !state.standbys.contains(where: { $0 === wake }) { state.standbys.append(wake) }
                return .standingBy
            }
            state.running = true
            state.waitDriven = true
            return .claimed
        }
        if claim == .claimed {
            owner.store(pthread_self(), ordering: .relaxed)
            uv_update_time(loop)
        }
        return claim
    }

    /// Takes `wake` off the standby list, if it is still on it.
    func leaveStandby(_ wake: DispatchSemaphore) {
        remote.withLock { state in state.standbys.removeAll { $0 === wake } }
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
    /// standing by, one of which takes the loop over.
    func releaseWaitClaim() {
        let standbys: [DispatchSemaphore] = remote.withLock { state in
            owner.store(0, ordering: .relaxed)
            state.running = false
            state.waitDriven = false
            defer { state.standbys = [] }
            return state.standbys
        }
        for standby in standbys { standby.signal() }
    }

    /// Wakes the threads standing by after a shutdown closed the loop during a blocking wait:
    /// they find it closed and block on their promises, which the shutdown settles.
    func wakeStandbysAfterClose() {
        let standbys: [DispatchSemaphore] = remote.withLock { state in
            state.waitDriven = false
            defer { state.standbys = [] }
            return state.standbys
        }
        for standby in standbys { standby.signal() }
    }
}
