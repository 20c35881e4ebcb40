/// Who uses a ``ConnectionOwner``'s connection: its own thread, or a thread that waits for a
/// job's promise and runs that job itself while the connection thread sleeps
/// (``SQLiteConfiguration/operationsOnWaitingThreads``). The connection is used by one thread
/// at a time: the connection thread takes no job while a waiting thread runs one, and a waiting
/// thread runs one only while the connection thread is idle.
///
/// A pure value kept under the owner's lock. Each event returns what the owner does next; the
/// owner keeps the mailbox, the semaphore and the connection, and performs the actions.
struct ConnectionHandOffStateMachine: Equatable {
    enum State: Equatable, CaseIterable {
        /// The connection thread takes and runs jobs, or polls for them.
        case threadWorking
        /// The connection thread found no job and sleeps, or is about to: a waiting thread may
        /// run the next job.
        case threadIdle
        /// A waiting thread runs a job while the connection thread polls (or sleeps since
        /// before the waiter began, to be woken by the next job as usual).
        case waiterRunning
        /// A waiting thread runs a job, and the connection thread, awake meanwhile, stopped
        /// polling and sleeps until the waiter is done: the waiter must see that it is woken
        /// for any job that arrived in the meantime.
        case waiterRunningThreadParked
    }

    private(set) var state: State

    init(_ state: State = .threadWorking) {
        self.state = state
    }

    // MARK: The connection thread

    /// What the connection thread does on its turn.
    enum ThreadTurnAction: Equatable {
        /// Take the queued jobs, then report with ``jobsTaken(found:)``.
        case takeJobs
        /// Leave the connection to the waiting thread and keep polling for a new job.
        case keepPolling
        /// Leave the connection to the waiting thread and sleep until woken.
        case sleep
    }

    /// The connection thread looks for work; `polling` says it is within its poll time.
    mutating func threadTurn(polling: Bool) -> ThreadTurnAction {
        switch state {
        case .threadWorking, .threadIdle:
            return .takeJobs
        case .waiterRunning, .waiterRunningThreadParked:
            // While polling, keep polling: the waiting thread's job is likely short.
            state = polling ? .waiterRunning : .waiterRunningThreadParked
            return polling ? .keepPolling : .sleep
        }
    }

    /// The connection thread took the queued jobs (`found`) or found none, and will sleep or
    /// poll.
    mutating func jobsTaken(found: Bool) {
        switch state {
        case .threadWorking, .threadIdle:
            state = found ? .threadWorking : .threadIdle
        case .waiterRunning, .waiterRunningThreadParked:
            preconditionFailure("the connection thread took jobs while a waiting thread ran one (\(state))")
        }
    }

    // MARK: A waiting thread

    /// A waiting thread whose job is next asks to run it: granted (`true`) only while the
    /// connection thread is idle and no other waiting thread runs one.
    mutating func waiterAsksToRun() -> Bool {
        switch state {
        case .threadIdle:
            state = .waiterRunning
            return true
        case .threadWorking, .waiterRunning, .waiterRunningThreadParked:
            return false
        }
    }

    /// What the waiting thread does once its job is done.
    enum WaiterDoneAction: Equatable {
        /// Nothing: the connection thread still polls, or sleeps and the next job wakes it.
        case none
        /// The connection thread sleeps for this waiter: wake it if jobs arrived meanwhile,
        /// else mark it asleep so that the next job wakes it.
        case wakeThreadIfJobsArrived
    }

    /// The waiting thread's job is done: the connection is idle again.
    mutating func waiterFinished() -> WaiterDoneAction {
        switch state {
        case .waiterRunning:
            state = .threadIdle
            return .none
        case .waiterRunningThreadParked:
            state = .threadIdle
            return .wakeThreadIfJobsArrived
        case .threadWorking, .threadIdle:
            preconditionFailure("a waiting thread finished a job it was never granted (\(state))")
        }
    }
}
