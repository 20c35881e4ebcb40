/// The phases of a loop's life as its own thread sees them, and what each event asks
/// ``LoopCore`` to do. Pure: it never calls libuv, never runs user work, never takes a lock.
///
/// Threads that call `shutdown()` go through `LoopCore.Remote`'s ``Lifecycle``, which refuses
/// their work and settles their promises; this machine is the loop thread's side of the same
/// shutdown: what it rejects, when its own handles close, when the loop closes, and whether the
/// loop's memory may be freed.
///
/// ```
/// open ──shutdownBegan──▶ shuttingDown ──no pool work in flight──▶ closingHandles
///      ──every handle closed, turnEnded──▶ (uv_loop_close) ──loopClosed──▶ lastTurn
///      ──lastTurnEnded──▶ closed
/// ```
struct LoopStateMachine {
    /// What the shutdown rejected, for the report of a loop dropped without `shutdown()`.
    struct Lost: Equatable {
        var timers = 0
        var work = 0
        var signals = 0
        var fileWatches = 0
        var processes = 0
    }

    /// Who holds the loop open besides its work.
    enum ThreadHold: Equatable {
        /// Nobody: the loop runs while work keeps it alive.
        case none
        /// ``UVLoop/startThread(named:)``'s thread holds one keep-alive count until the shutdown.
        case loopThread
    }

    enum State: Equatable {
        /// User work is accepted.
        case open(ThreadHold)
        /// User work is refused and what was pending is rejected (`lost`); pool work already
        /// running holds the loop's own handles open until it ends.
        case shuttingDown(lost: Lost)
        /// The loop's own handles are closing; the loop closes once every handle has run its
        /// close callback.
        case closingHandles(lost: Lost)
        /// `uv_loop_close` returned: the jobs still queued on the loop thread (a task resumed by
        /// the shutdown's own promise) run. `freesMemory`: the close succeeded, so the loop's
        /// memory may be freed.
        case lastTurn(lost: Lost, freesMemory: Bool)
        /// Nothing more runs on the loop thread.
        case closed(lost: Lost, freesMemory: Bool)
    }

    /// What the loop thread does when the shutdown reaches it.
    enum ShutdownAction: Equatable {
        /// Reject what is pending (timers, pool work not started, watches, children), then
        /// report it with ``rejected(_:poolWorkInFlight:)``. `releaseThreadHold`: give back the
        /// keep-alive count of the loop's own thread.
        case rejectPending(releaseThreadHold: Bool)
        /// The shutdown began already.
        case none
    }

    enum CloseHandlesAction: Equatable {
        /// Take the last queued work and close the loop's own handles.
        case closeHandles
        case none
    }

    enum TurnAction: Equatable {
        /// Every handle has closed: call `uv_loop_close`, then ``loopClosed(succeeded:)``.
        case closeLoop
        /// Keep running the loop.
        case keepRunning
    }

    /// The loop's own handles (wake-up, timer, prepare), open from the start.
    static let ownHandleCount = 3

    private(set) var state: State = .open(.none)
    /// Handles whose close callback has not run: the loop's own, child processes and their
    /// pipes, the main queue's poll.
    private(set) var openHandles = ownHandleCount

    // MARK: Events

    /// ``UVLoop/startThread(named:)`` claimed the loop for a thread of its own, which holds it
    /// open until the shutdown.
    mutating func threadClaimed() {
        guard case .open(.none) = state else {
            preconditionFailure("LoopStateMachine: a thread claimed the loop in \(state)")
        }
        state = .open(.loopThread)
    }

    /// That thread could not start: its hold is given back.
    mutating func threadUnclaimed() {
        guard case .open(.loopThread) = state else {
            preconditionFailure("LoopStateMachine: a thread gave up a claim it did not have in \(state)")
        }
        state = .open(.none)
    }

    /// A handle was initialized on the loop (a child process, a pipe, the main queue's poll).
    mutating func handleOpened() {
        switch state {
        case .open, .shuttingDown:
            openHandles += 1
        case .closingHandles, .lastTurn, .closed:
            preconditionFailure("LoopStateMachine: a handle opened in \(state), after the loop's own handles closed")
        }
    }

    /// A handle's close callback ran.
    mutating func handleClosed() {
        switch state {
        case .open, .shuttingDown, .closingHandles:
            precondition(openHandles > 0, "LoopStateMachine: more handles closed than were opened")
            openHandles -= 1
        case .lastTurn, .closed:
            preconditionFailure("LoopStateMachine: a handle closed in \(state), after uv_loop_close")
        }
    }

    /// The shutdown reached the loop thread. Idempotent: a second request finds it begun.
    mutating func shutdownBegan() -> ShutdownAction {
        switch state {
        case .open(let hold):
            state = .shuttingDown(lost: Lost())
            return .rejectPending(releaseThreadHold: hold == .loopThread)
        case .shuttingDown, .closingHandles, .lastTurn, .closed:
            return .none
        }
    }

    /// What ``shutdownBegan()``'s `rejectPending` rejected, and whether pool work is still
    /// running (it keeps the handles open, and delivers its result, until it ends).
    mutating func rejected(_ lost: Lost, poolWorkInFlight: Bool) -> CloseHandlesAction {
        guard case .shuttingDown = state else {
            preconditionFailure("LoopStateMachine: rejected(_:) in \(state), not after shutdownBegan()")
        }
        state = .shuttingDown(lost: lost)
        return poolWorkInFlight ? .none : closeHandles()
    }

    /// A pool job ended (its after-work callback ran); `stillInFlight` more are running.
    mutating func poolWorkFinished(stillInFlight: Int) -> CloseHandlesAction {
        switch state {
        case .open:
            return .none
        case .shuttingDown:
            return stillInFlight == 0 ? closeHandles() : .none
        case .closingHandles, .lastTurn, .closed:
            preconditionFailure("LoopStateMachine: pool work ended in \(state), after the loop's handles closed without waiting for it")
        }
    }

    /// `uv_run` returned (or one pass of a blocking wait ended).
    func turnEnded() -> TurnAction {
        if case .closingHandles = state, openHandles == 0 { return .closeLoop }
        return .keepRunning
    }

    /// `uv_loop_close` returned, after ``turnEnded()`` said `closeLoop`.
    mutating func loopClosed(succeeded: Bool) {
        guard case .closingHandles(let lost) = state, openHandles == 0 else {
            preconditionFailure("LoopStateMachine: uv_loop_close in \(state) with \(openHandles) handles open")
        }
        state = .lastTurn(lost: lost, freesMemory: succeeded)
    }

    /// The jobs queued on the loop thread after the close have run: nothing more is queued.
    mutating func lastTurnEnded() {
        guard case .lastTurn(let lost, let freesMemory) = state else {
            preconditionFailure("LoopStateMachine: the last turn ended in \(state)")
        }
        state = .closed(lost: lost, freesMemory: freesMemory)
    }

    private mutating func closeHandles() -> CloseHandlesAction {
        guard case .shuttingDown(let lost) = state else { return .none }
        state = .closingHandles(lost: lost)
        return .closeHandles
    }

    // MARK: Questions

    /// Whether user work (promise callbacks, timers, pool work, watches, children) is accepted.
    var acceptsUserWork: Bool {
        if case .open = state { return true }
        return false
    }

    /// Whether the loop thread still queues its own work: Swift concurrency jobs and
    /// PromiseUV's bookkeeping run until the loop's last turn has ended.
    var acceptsLateWork: Bool {
        if case .closed = state { return false }
        return true
    }

    /// Whether the wake-up handle is open (other threads' posts can wake the loop).
    var wakeUpHandleIsOpen: Bool {
        switch state {
        case .open, .shuttingDown: return true
        case .closingHandles, .lastTurn, .closed: return false
        }
    }

    /// Whether the wake-up handle keeps the loop running: only while user work is accepted
    /// and `holds` keep-alive counts are held.
    func wakeUpKeepsLoopAlive(holds: Int) -> Bool {
        acceptsUserWork && holds > 0
    }

    /// What the shutdown rejected, once it has begun.
    var lost: Lost? {
        switch state {
        case .open: return nil
        case .shuttingDown(let lost), .closingHandles(let lost), .lastTurn(let lost, _), .closed(let lost, _): return lost
        }
    }

    /// Whether the loop's memory may be freed: `uv_loop_close` succeeded. A loop whose close
    /// failed is leaked rather than freed under libuv's feet.
    var freesLoopMemory: Bool {
        switch state {
        case .lastTurn(_, let freesMemory), .closed(_, let freesMemory): return freesMemory
        case .open, .shuttingDown, .closingHandles: return false
        }
    }
}
