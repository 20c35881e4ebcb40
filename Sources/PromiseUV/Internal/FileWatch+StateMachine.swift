/// The phases of one file watch, from its queued start to its end, and the decisions between
/// them: whether it starts at all, when the changes read in a poll are flushed to the
/// consumer, and how it ends (at once, or once the changes that wait are delivered). Pure: it
/// never calls libuv and never calls the consumer; ``FileWatch`` performs what each event
/// returns.
///
/// Generic over the error that ends a watch, which it carries and never inspects.
struct FileWatchStateMachine<Failure> {
    enum State {
        /// Made; its start is queued on the loop.
        case starting
        /// Its handles are open; `flushQueued` when changes wait for a flush already queued.
        case watching(flushQueued: Bool)
        /// Ends with the error once the changes read in this poll are delivered (its
        /// directory went away, or the kernel reported an error); a flush is queued.
        case ending(Failure)
        /// Its handles are closed and its consumer was told; nothing more happens.
        case ended
    }

    private(set) var state: State = .starting

    /// Whether events are read: the watch is watching, or ending after this poll.
    var readsEvents: Bool {
        switch state {
        case .watching, .ending: true
        case .starting, .ended: false
        }
    }

    /// Whether the watch goes on: started, and neither ending nor ended.
    var isWatching: Bool {
        if case .watching = state { return true }
        return false
    }

    // MARK: Starting

    enum StartAction {
        /// Resolve the path and open the handles; report ``started()`` or ``startFailed()``.
        case start
        /// End the watch with no error, opening nothing: it was cancelled first.
        case endCancelled
        /// End the watch with `loopClosed`, opening nothing.
        case endShutDown
        /// Nothing: the watch was stopped before its start ran.
        case none
    }

    /// The loop thread runs the queued start.
    ///
    /// - Parameters:
    ///   - cancelled: Whether the watch was cancelled from another thread meanwhile.
    ///   - loopShuttingDown: Whether the loop's shutdown has begun.
    mutating func startRequested(cancelled: Bool, loopShuttingDown: Bool) -> StartAction {
        switch state {
        case .starting:
            if cancelled {
                state = .ended
                return .endCancelled
            }
            if loopShuttingDown {
                state = .ended
                return .endShutDown
            }
            return .start
        case .ended:
            return .none
        case .watching, .ending:
            preconditionFailure("a file watch was started twice (\(state))")
        }
    }

    /// The handles are open: events are read from now on.
    mutating func started() {
        guard case .starting = state else { preconditionFailure("a file watch started while \(state)") }
        state = .watching(flushQueued: false)
    }

    /// The path could not be watched: the consumer is told the error, nothing is open.
    mutating func startFailed() {
        guard case .starting = state else { preconditionFailure("a file watch's start failed while \(state)") }
        state = .ended
    }

    // MARK: Changes

    /// Changes were added to those that wait.
    ///
    /// - Returns: Whether to queue a flush (none is queued yet).
    mutating func changesAdded() -> Bool {
        switch state {
        case .watching(flushQueued: false):
            state = .watching(flushQueued: true)
            return true
        case .watching(flushQueued: true), .ending:
            return false
        case .starting, .ended:
            preconditionFailure("a file watch took changes while \(state)")
        }
    }

    /// The watch must end with `failure` once the changes read in this poll are delivered.
    /// The first failure counts; later ones are dropped.
    ///
    /// - Returns: Whether to queue a flush (none is queued yet).
    mutating func endRequested(_ failure: Failure) -> Bool {
        switch state {
        case .watching(let flushQueued):
            state = .ending(failure)
            return !flushQueued
        case .ending:
            return false
        case .starting, .ended:
            preconditionFailure("a file watch was asked to end after this poll while \(state)")
        }
    }

    enum FlushAction {
        /// Hand the waiting changes to the consumer; stop with no error if it wants no more.
        case deliver
        /// Hand the waiting changes to the consumer, then stop with the failure (with no
        /// error if the consumer wanted no more).
        case deliverThenStop(Failure)
        /// Nothing: the watch stopped after the flush was queued.
        case none
    }

    /// The queued flush runs.
    mutating func flushRan() -> FlushAction {
        switch state {
        case .watching(flushQueued: true):
            state = .watching(flushQueued: false)
            return .deliver
        case .ending(let failure):
            return .deliverThenStop(failure)
        case .ended:
            return .none
        case .starting, .watching(flushQueued: false):
            preconditionFailure("a file watch's flush ran while \(state), which queued none")
        }
    }

    // MARK: Stopping

    enum StopAction {
        /// Close the handles and tell the consumer; with an error, deliver what waits first.
        case close
        /// Nothing: the watch has ended already.
        case none
    }

    /// The watch stops: cancelled, shut down, or failed.
    mutating func stopRequested() -> StopAction {
        switch state {
        case .starting, .watching, .ending:
            state = .ended
            return .close
        case .ended:
            return .none
        }
    }
}

extension FileWatchStateMachine.FlushAction: Equatable where Failure: Equatable {}
