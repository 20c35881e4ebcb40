/// The phases of a loop's watch over libdispatch's main queue (``MainQueueDrain``), and what
/// each event asks the owner to do. Pure: it never calls libuv or libdispatch.
///
/// The watch is a `uv_poll_t` on the main queue's eventfd. It exists only once the loop has
/// run on the process's main thread, and it polls only while ``UVLoop/run()`` runs there: a
/// loop that later runs on another thread (``UVLoop/startThread(named:)``, a blocking wait)
/// must never drain the main queue, which libdispatch allows only on the main thread.
struct MainQueueDrainStateMachine {
    enum State: Equatable, CaseIterable {
        /// The loop has not run on the main thread: there is no handle.
        case unopened
        /// The handle exists and does not poll (the loop is not running on the main thread).
        case idle
        /// ``UVLoop/run()`` runs the loop on the main thread: the handle polls, and the main
        /// queue's work runs on the loop.
        case polling
        /// The loop's shutdown closed the handle.
        case closed
    }

    enum RunAction: Equatable {
        /// Create the handle on the main queue's eventfd, start it, and run what is queued.
        case openAndPoll
        /// Start the existing handle, and run what is queued.
        case poll
        /// Nothing: the run is not on the main thread, or the handle is closed.
        case none
    }

    enum StopAction: Equatable {
        /// Stop polling; the handle stays open for the next run on the main thread.
        case stopPolling
        case none
    }

    enum CloseAction: Equatable {
        /// Close the handle (it counts among the loop's open handles until its close callback).
        case close
        case none
    }

    private(set) var state: State = .unopened

    /// ``UVLoop/run()`` starts driving the loop; `onMainThread` says whether the calling
    /// thread is the process's first thread.
    mutating func runStarted(onMainThread: Bool) -> RunAction {
        switch state {
        case .unopened:
            guard onMainThread else { return .none }
            state = .polling
            return .openAndPoll
        case .idle:
            guard onMainThread else { return .none }
            state = .polling
            return .poll
        case .polling:
            preconditionFailure("MainQueueDrainStateMachine: a run started while another run polls the main queue")
        case .closed:
            return .none
        }
    }

    /// The handle could not be created (libdispatch gave no eventfd, or `uv_poll_init`
    /// failed): the loop runs without draining the main queue, as if not on the main thread.
    mutating func openFailed() {
        guard case .polling = state else {
            preconditionFailure("MainQueueDrainStateMachine: openFailed in \(state), not after openAndPoll")
        }
        state = .unopened
    }

    /// The run that started polling returns.
    mutating func runEnded() -> StopAction {
        switch state {
        case .polling:
            state = .idle
            return .stopPolling
        case .unopened, .idle, .closed:
            return .none
        }
    }

    /// The loop closes its own handles (shutdown), on the loop thread.
    mutating func shutdown() -> CloseAction {
        switch state {
        case .unopened:
            state = .closed
            return .none
        case .idle, .polling:
            state = .closed
            return .close
        case .closed:
            preconditionFailure("MainQueueDrainStateMachine: the loop's handles closed twice")
        }
    }

    /// Whether the handle polls, so the main queue's work may run now (the loop thread is the
    /// main thread, inside ``UVLoop/run()``).
    var drains: Bool { state == .polling }
}
