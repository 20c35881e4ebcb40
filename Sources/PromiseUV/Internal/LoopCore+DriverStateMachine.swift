/// Which thread runs a loop, and whether other threads' work still reaches it: the side of a
/// loop's life that other threads see, kept in `LoopCore.Remote` under its lock. Pure: it
/// never calls libuv, signals nothing and takes no lock; `LoopCore` does what its answers say.
///
/// Generic over what a thread standing by waits on (a `DispatchSemaphore` in `LoopCore`) and
/// over a refused job, so its tests need neither.
struct LoopDriverStateMachine<Standby: AnyObject, Job> {
    /// Who runs the loop.
    enum Driver {
        /// Nobody: the next claim takes the loop.
        case nobody
        /// ``UVLoop/run()``, or the thread that drives a shutdown nobody else would run (a
        /// `shutdown()` call or a dropped `UVLoop`), until the loop has nothing left to do or
        /// has closed.
        case caller
        /// The thread ``UVLoop/startThread(named:)`` started, until the shutdown.
        case thread(named: String)
        /// A blocking wait's thread, for one wait; `standbys` are other waiting threads, to
        /// be woken to take the loop over when it gives the loop up.
        case blockingWait(standbys: [Standby])
    }

    /// Whether other threads' work reaches the loop thread.
    enum Inbox {
        /// Posts wake the loop.
        case open
        /// The wake-up handle is closing: nothing more is posted. Swift concurrency jobs the
        /// closed loop refused meanwhile (`adopted`) wait for the loop thread to finish.
        case closed(adopted: [Job])
        /// The loop thread has left for good: a refused job runs at once, elsewhere.
        case finished
    }

    enum RunClaim: Equatable {
        /// The calling thread runs the loop.
        case claimed
        /// The loop was shut down.
        case shutDown
        /// Another thread runs it already (a programming error for ``UVLoop/run()``).
        case alreadyRunning
    }

    /// How ``claimForWait(_:accepting:)`` placed the calling thread.
    enum WaitClaim: Equatable {
        /// The thread runs the loop now.
        case claimed
        /// Another blocking wait's thread runs the loop: the caller's standby is woken when it
        /// gives the loop up, and the caller tries again.
        case standingBy
        /// A thread runs the loop for good, or the loop is shut down.
        case declined
    }

    enum ShutdownDriver: Equatable {
        /// A thread runs the loop and finishes the shutdown there; `thread` names
        /// ``UVLoop/startThread(named:)``'s thread.
        case runningThread(named: String?)
        /// Nobody runs the loop: the caller drives it through the shutdown.
        case caller
    }

    enum AdoptAction: Equatable {
        /// The loop is not closed: the job was refused for another reason.
        case notClosed
        /// Held until the loop thread finishes (``finished()`` returns it).
        case held
        /// The loop thread has finished: run it now.
        case runNow
    }

    private(set) var driver = Driver.nobody
    private(set) var inbox = Inbox.open

    // MARK: Claims

    /// ``UVLoop/run()`` (or `startThread`'s caller, for the thread it starts) claims the
    /// loop. `accepting`: no shutdown was asked for.
    mutating func claimForRun(accepting: Bool, thread name: String? = nil) -> RunClaim {
        guard accepting else { return .shutDown }
        guard case .nobody = driver else { return .alreadyRunning }
        driver = name.map { .thread(named: $0) } ?? .caller
        return .claimed
    }

    /// The thread `startThread` claimed the loop for could not start. Returns whether the
    /// caller must drive the loop itself: a shutdown asked for meanwhile saw the loop as
    /// running and left its work to that thread.
    mutating func threadDidNotStart(accepting: Bool) -> Bool {
        guard case .thread = driver else {
            preconditionFailure("LoopDriverStateMachine: a thread that never started gave up a claim in \(driver)")
        }
        driver = accepting ? .nobody : .caller
        return !accepting
    }

    /// A blocking wait on a thread with `standby` claims an idle loop, or stands by while
    /// another blocking wait's thread runs it.
    mutating func claimForWait(_ standby: Standby, accepting: Bool) -> WaitClaim {
        guard accepting else { return .declined }
        switch driver {
        case .nobody:
            driver = .blockingWait(standbys: [])
            return .claimed
        case .blockingWait(var standbys):
            if !standbys.contains(where: { $0 === standby }) {
                driver = .nobody  // drop the enum's reference, so the append does not copy
                standbys.append(standby)
            }
            driver = .blockingWait(standbys: standbys)
            return .standingBy
        case .caller, .thread:
            return .declined
        }
    }

    /// A thread standing by returns (its promise settled, or its time ran out).
    mutating func leaveStandby(_ standby: Standby) {
        guard case .blockingWait(var standbys) = driver else { return }
        driver = .nobody
        standbys.removeAll { $0 === standby }
        driver = .blockingWait(standbys: standbys)
    }

    /// A blocking wait's thread gives the loop up: its own promise settled, or its time ran
    /// out. Returns the threads to wake, one of which takes the loop over, and whether the
    /// releasing thread must go on running the loop through a shutdown asked for meanwhile
    /// (`accepting` false), which it alone was running the loop for: the shutdown may still
    /// wait for pool work or a child's exit, and nobody else will run it.
    mutating func releaseWaitClaim(accepting: Bool) -> (standbys: [Standby], drivesShutdown: Bool) {
        guard case .blockingWait(let standbys) = driver else {
            preconditionFailure("LoopDriverStateMachine: a blocking wait gave up a claim in \(driver)")
        }
        driver = accepting ? .nobody : .caller
        return (standbys, !accepting)
    }

    /// The thread running the loop found nothing left to do and leaves it.
    mutating func runEnded() {
        switch driver {
        case .caller, .thread:
            driver = .nobody
        case .nobody, .blockingWait:
            preconditionFailure("LoopDriverStateMachine: a run ended in \(driver)")
        }
    }

    // MARK: Shutdown

    /// A shutdown was asked for (its `Lifecycle` began it): who finishes it.
    mutating func shutdownBegan() -> ShutdownDriver {
        switch driver {
        case .nobody:
            driver = .caller
            return .caller
        case .thread(let name):
            return .runningThread(named: name)
        case .caller, .blockingWait:
            return .runningThread(named: nil)
        }
    }

    /// Whether work from other threads is still posted.
    var inboxIsOpen: Bool {
        if case .open = inbox { return true }
        return false
    }

    /// The loop thread closes its wake-up handle: nothing is posted from now on.
    mutating func inboxClosed() {
        guard case .open = inbox else {
            preconditionFailure("LoopDriverStateMachine: the inbox closed twice")
        }
        inbox = .closed(adopted: [])
    }

    /// A Swift concurrency job the closed loop refused asks to run anyway.
    mutating func adopt(_ job: Job) -> AdoptAction {
        switch inbox {
        case .open:
            return .notClosed
        case .closed(var adopted):
            inbox = .finished  // drop the enum's reference, so the append does not copy
            adopted.append(job)
            inbox = .closed(adopted: adopted)
            return .held
        case .finished:
            return .runNow
        }
    }

    /// The loop thread leaves for good after closing the loop. Returns the jobs held for
    /// it, and the threads standing by for a blocking wait's claim, to wake: they find the
    /// loop closed and wait for their promises, which the shutdown settled.
    mutating func finished() -> (adopted: [Job], standbys: [Standby]) {
        guard case .closed(let adopted) = inbox else {
            preconditionFailure("LoopDriverStateMachine: the loop thread finished with its inbox \(inbox)")
        }
        inbox = .finished
        var standbys: [Standby] = []
        if case .blockingWait(let waiting) = driver { standbys = waiting }
        driver = .nobody
        return (adopted, standbys)
    }
}
