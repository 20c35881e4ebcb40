/// The phases of one child process, from its queued start to its settled promise, and the
/// decisions between them: whether it starts at all, how a stop proceeds (the teardown's
/// signals and waits, `SIGKILL` at the end), and when the promise settles with what. Pure: it
/// never calls libuv, never sends a signal and never resolves a promise; ``ChildProcess``
/// performs what each event returns.
struct ChildProcessStateMachine {
    /// Why the child is being stopped, which decides how its promise settles.
    enum StopReason {
        case cancelled
        case outputLimit(UVError)
        case shutdown
    }

    enum State {
        /// Queued on the loop; not spawned yet.
        case starting
        /// Cancelled while queued: it will not be spawned.
        case cancelledBeforeStart
        /// Spawned and not reaped.
        case running
        /// Being stopped for `reason`; `nextStep` indexes the teardown step whose signal goes
        /// next (the teardown's count once only `SIGKILL` is left, or it was sent).
        case stopping(reason: StopReason, nextStep: Int)
        /// Reaped, with output pipes still open; `reason` if it was being stopped, or was
        /// stopped since (a limit or the shutdown stops waiting for the pipes).
        case exited(UVProcessExit, reason: StopReason?)
        /// Gone without its status: something else in this process reaped it (a
        /// `waitpid(-1)`), with output pipes perhaps still open.
        case exitLost(UVError)
        /// The promise settled (or the spawn was refused or failed).
        case settled
    }

    /// The signals a stop sends before `SIGKILL`, each followed by its wait.
    let teardown: [UVTeardownStep]
    private(set) var state: State = .starting

    init(teardown: [UVTeardownStep]) {
        self.teardown = teardown
    }

    // MARK: Starting

    enum StartAction {
        /// Spawn the child; report ``spawned()`` or ``spawnFailed()``.
        case spawn
        /// Reject the promise with `CancellationError`, spawning nothing.
        case rejectCancelled
        /// Reject the promise: the loop is shutting down.
        case rejectShutDown
    }

    /// The loop thread runs the queued start; `loopShuttingDown` says whether the loop's
    /// shutdown has begun.
    mutating func startRequested(loopShuttingDown: Bool) -> StartAction {
        switch state {
        case .starting:
            guard !loopShuttingDown else {
                state = .settled
                return .rejectShutDown
            }
            return .spawn
        case .cancelledBeforeStart:
            state = .settled
            return .rejectCancelled
        case .running, .stopping, .exited, .exitLost, .settled:
            preconditionFailure("a child was started twice (\(state))")
        }
    }

    /// The spawn succeeded.
    mutating func spawned() {
        guard case .starting = state else { preconditionFailure("a child spawned while \(state)") }
        state = .running
    }

    /// The spawn failed: the promise is rejected with its error.
    mutating func spawnFailed() {
        guard case .starting = state else { preconditionFailure("a child's spawn failed while \(state)") }
        state = .settled
    }

    // MARK: Stopping

    enum StopAction {
        /// Send `signal` to the child (its group, when it has one) and wait `wait` for it to
        /// exit, then report ``teardownStepElapsed()``.
        case signal(UVSignal, thenWait: Duration)
        /// Send `SIGKILL`, stopping any teardown wait.
        case kill
        /// Close the output pipes: the reaped child's promise settles without their end.
        case closePipes
        case none
    }

    /// A stop was asked for: the promise was cancelled, an output passed its limit, or the
    /// loop is shutting down.
    mutating func stopRequested(_ reason: StopReason) -> StopAction {
        switch state {
        case .starting:
            guard case .cancelled = reason else {
                preconditionFailure("a child that has not started was stopped for \(reason)")
            }
            state = .cancelledBeforeStart
            return .none
        case .cancelledBeforeStart, .settled:
            return .none
        case .running:
            if case .shutdown = reason {
                state = .stopping(reason: reason, nextStep: teardown.count)
                return .kill
            }
            return nextSignal(reason: reason, step: 0)
        case .stopping(let first, _):
            // Only the shutdown changes a stop under way: it does not wait for the teardown.
            guard case .shutdown = reason else { return .none }
            state = .stopping(reason: first, nextStep: teardown.count)
            return .kill
        case .exited(let exit, let earlier):
            // Reaped, waiting for its pipes. A cancellation stops the wait and the promise gets
            // the child's real outcome; a limit or the shutdown settles it as a failure.
            if case .cancelled = reason { return .closePipes }
            guard earlier == nil else { return .none }
            state = .exited(exit, reason: reason)
            return .closePipes
        case .exitLost:
            return .closePipes
        }
    }

    /// The wait after a teardown step ended with the child still running.
    mutating func teardownStepElapsed() -> StopAction {
        guard case .stopping(let reason, let step) = state, step > 0 else {
            preconditionFailure("a teardown wait ended while the child was \(state)")
        }
        return nextSignal(reason: reason, step: step)
    }

    /// The loop dropped the pending teardown wait (its shutdown): `SIGKILL` now.
    mutating func teardownAbandoned() -> StopAction {
        guard case .stopping(let reason, _) = state else { return .none }
        state = .stopping(reason: reason, nextStep: teardown.count)
        return .kill
    }

    private mutating func nextSignal(reason: StopReason, step: Int) -> StopAction {
        guard step < teardown.count else {
            state = .stopping(reason: reason, nextStep: teardown.count)
            return .kill
        }
        state = .stopping(reason: reason, nextStep: step + 1)
        return .signal(teardown[step].signal, thenWait: teardown[step].wait)
    }

    // MARK: Exiting

    enum ExitAction: Equatable {
        /// Stop watching for the exit and wait for the pipes' end.
        case awaitPipes
        /// Stop watching for the exit, stop the teardown wait, and close the pipes: a stopped
        /// child's descendants may hold them open.
        case closePipesAfterStop
    }

    /// The loop reaped the child.
    mutating func exited(_ exit: UVProcessExit) -> ExitAction {
        switch state {
        case .running:
            state = .exited(exit, reason: nil)
            return .awaitPipes
        case .stopping(let reason, _):
            state = .exited(exit, reason: reason)
            return .closePipesAfterStop
        case .starting, .cancelledBeforeStart, .exited, .exitLost, .settled:
            preconditionFailure("a child was reaped while \(state)")
        }
    }

    /// The child is gone but its status is lost (`waitpid` on its pid reported `ECHILD`): the
    /// promise fails with `error` once the pipes have closed.
    mutating func exitLost(_ error: UVError) -> ExitAction {
        switch state {
        case .running:
            state = .exitLost(error)
            return .awaitPipes
        case .stopping:
            state = .exitLost(error)
            return .closePipesAfterStop
        case .starting, .cancelledBeforeStart, .exited, .exitLost, .settled:
            preconditionFailure("a child's exit was lost while \(state)")
        }
    }

    enum SettleAction {
        /// Settle with the child's result.
        case fulfil(UVProcessExit)
        /// Settle with the stop's error; the child ended with `exit`.
        case reject(StopReason, UVProcessExit)
        /// Settle with the error of a lost exit.
        case rejectLost(UVError)
        case none
    }

    /// A pipe ended or closed; `allPipesClosed` says whether every one has.
    mutating func pipeFinished(allPipesClosed: Bool) -> SettleAction {
        guard allPipesClosed else { return .none }
        switch state {
        case .exited(let exit, let reason):
            state = .settled
            guard let reason else { return .fulfil(exit) }
            return .reject(reason, exit)
        case .exitLost(let error):
            state = .settled
            return .rejectLost(error)
        case .starting, .cancelledBeforeStart, .running, .stopping, .settled:
            return .none
        }
    }

    // MARK: Signals

    enum SignalAction: Equatable {
        /// Send it now.
        case send
        /// Keep it until the child is spawned (or refused).
        case wait
        /// The child is not running: never started, or reaped (its pid may belong to another
        /// process by now).
        case refuse
    }

    /// A signal for the child was asked for (``UVChildProcess/send(_:)``).
    func signalRequested() -> SignalAction {
        switch state {
        case .starting: .wait
        case .running, .stopping: .send
        case .cancelledBeforeStart, .exited, .exitLost, .settled: .refuse
        }
    }

    /// Whether a stop was asked for before the child was reaped or its pipes closed (for the
    /// report of what a shutdown lost).
    var isStopping: Bool {
        switch state {
        case .stopping, .exited(_, reason: .some), .exitLost, .cancelledBeforeStart, .settled: true
        case .starting, .running, .exited(_, reason: nil): false
        }
    }
}
