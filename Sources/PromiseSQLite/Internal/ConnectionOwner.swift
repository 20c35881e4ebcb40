internal import CSQLite
import Dispatch
@_spi(ContextContract) import PromiseCore
internal import Synchronization
internal import PromiseSystem

/// The thread that owns one connection: it opens the `sqlite3*`, runs every job on it in
/// submission order, and closes it. Other threads only enqueue jobs and, to cancel a running
/// job, call `sqlite3_interrupt` under the same lock that close takes, so an interrupt never
/// races the close.
///
/// Jobs queued while the thread works are taken together on its next turn: one wake-up runs a
/// whole batch (Node's async SQLite and GRDB work the same way).
///
/// Out of jobs, the thread keeps checking for new ones for
/// ``SQLiteConfiguration/pollBeforeSleeping`` before it sleeps, and a job posted meanwhile
/// needs no wake-up; a thread waiting for a job's promise polls for the result for as long
/// before it suspends or blocks. Waking a sleeping thread costs tens of microseconds on a
/// virtual machine, several times a point query, so one-at-a-time operations go that much
/// faster; the price is up to that long of one CPU after each burst of work.
///
/// A thread that waits for a job's promise while the connection thread is idle and that job is
/// next may run the job itself (``WaitingThreadRunner``, as
/// ``SQLiteConfiguration/operationsOnWaitingThreads`` allows): the job would start at once
/// either way, and this saves handing it over and the result back. The
/// connection is used by one thread at a time: the connection thread does not take jobs while
/// a waiting thread runs one, and a waiting thread runs one only while the connection thread
/// sleeps.
final class ConnectionOwner: Sendable {
    /// A connection handle another thread may pass to `sqlite3_interrupt`.
    ///
    /// `@unchecked Sendable`: only read under `state`'s lock, and cleared under it before the
    /// connection closes, so no thread interrupts a closed handle.
    private struct InterruptTarget: @unchecked Sendable {
        let db: OpaquePointer
    }

    /// The open connection, or why it could not be opened, for whichever thread runs a job.
    ///
    /// `@unchecked Sendable`: set once by the connection thread before it takes any job, and
    /// used only by the thread running a job, which the `state` lock hands over.
    private struct Opened: @unchecked Sendable {
        let connection: Connection?
        let error: SQLiteError?
    }

    private struct Job: Sendable {
        let id: UInt64
        /// The promise the job settles, for a thread that waits for it (`nil` for close).
        let promise: ObjectIdentifier?
        /// Runs the work with the open connection, or with the reason it could not be opened.
        let run: (@Sendable (Connection?, SQLiteError?) -> Void)?
    }

    private struct State {
        var mailbox = Mailbox<Job>()
        /// One close waiter per `close()` call, so a caller that cancels its own (a timeout)
        /// cannot cancel anyone else's.
        var lifecycle = Lifecycle<Promise<Void>, SQLiteError>(
            refusal: SQLiteError(.closed, message: "the database was closed; open a new SQLiteDatabase"))
        var nextID: UInt64 = 1
        var running: UInt64 = 0
        var interruptTarget: InterruptTarget?
        var opened: Opened?
        /// Whether the connection thread or a waiting thread uses the connection.
        var handOff = ConnectionHandOffStateMachine()
    }

    private let state = Lock(State())
    private let wake = DispatchSemaphore(value: 0)
    private let load = Atomic<Int>(0)
    /// How many jobs were ever posted: the connection thread, polling, watches it change.
    private let posted = Atomic<UInt64>(0)
    /// ``SQLiteConfiguration/pollBeforeSleeping``, zero on a machine with one CPU.
    private let pollLimit: Duration
    let path: String
    /// ``SQLiteConfiguration/operationsOnWaitingThreads``.
    private let waitingThreads: SQLiteConfiguration.WaitingThreads
    #if Tracing || Metrics
        /// Where the spans and metrics of the connection's statements go.
        private let telemetry: Telemetry?
    #endif
    /// This connection thread's identity as a context: jobs run as its turns.
    var contextID: ObjectIdentifier { ObjectIdentifier(self) }

    /// Starts the thread, which opens `path` before running any job.
    init(path: String, configuration: SQLiteConfiguration) {
        self.path = path
        #if Tracing || Metrics
            telemetry = configuration.telemetry
        #endif
        waitingThreads = configuration.operationsOnWaitingThreads
        pollLimit = ProcessorCount.online > 1 ? min(max(.zero, configuration.pollBeforeSleeping), .seconds(1)) : .zero
        let status = NamedThread.start(name: configuration.threadName) { [self] in
            main(configuration)
        }
        if status == 0 { ContextRegistry.register(self, for: contextID) }
        if status != 0 {
            let refusal = SQLiteError(
                .closed, message: "could not start a thread for '\(path)': pthread_create failed with \(ErrnoText.describe(status))")
            state.withLock { $0.lifecycle.failedToStart(refusal) }
        }
    }

    /// Whether no close was asked for yet (and the thread started).
    var isAccepting: Bool { state.withLock { $0.lifecycle.isAccepting } }

    /// Jobs queued or running: how busy this connection is, for a pool choosing a reader.
    var pendingJobs: Int { load.load(ordering: .relaxed) }

    // MARK: Submitting

    /// Queues `run` (`nil`: the close job), to be called on the connection thread with the open
    /// connection or the reason it could not be opened. ``SQLiteDatabase/submit(_:)`` builds
    /// jobs on it.
    ///
    /// - Parameters:
    ///   - promise: The promise the job settles, for a thread that waits for it.
    ///   - run: The job.
    /// - Returns: The job's number, for ``interrupt(job:)``; or why no job is accepted.
    func enqueue(settling promise: ObjectIdentifier?, _ run: (@Sendable (Connection?, SQLiteError?) -> Void)?) -> Result<UInt64, SQLiteError> {
        #if Tracing
            // The job's spans are children of the caller's: its context goes with the job.
            let run = telemetry?.tracer == nil ? run : run.map { job in StatementTelemetry.carryingCallersContext(job) }
        #endif
        let (outcome, wakeNeeded): (Result<UInt64, SQLiteError>, Bool) = state.withLock { state in
            guard state.lifecycle.isAccepting else { return (.failure(state.lifecycle.refusal), false) }
            let id = state.nextID
            state.nextID += 1
            posted.add(1, ordering: .relaxed)
            return (.success(id), state.mailbox.post(Job(id: id, promise: promise, run: run)))
        }
        if case .success = outcome { load.add(1, ordering: .relaxed) }
        if wakeNeeded { wake.signal() }
        return outcome
    }

    /// Interrupts the running statement if job `id` is the one running.
    func interrupt(job id: UInt64) {
        state.withLock { state in
            guard state.running == id, let target = state.interruptTarget else { return }
            sqlite3_interrupt(target.db)
        }
    }

    /// Refuses new jobs, lets the queued ones run, then closes the connection.
    ///
    /// - Returns: A promise fulfilled once the connection is closed (a new promise on every
    ///   call, each settled the same way).
    func close() -> Promise<Void> {
        // Resolved on the connection thread: waiting for it inside a transaction closure is a
        // deadlock, reported as one.
        let waiter = Promise<Void>.pending(resolvedOn: contextID)
        let (step, wakeNeeded) = state.withLock { state in
            let step = state.lifecycle.shutdown(waiter)
            guard case .begin = step else { return (step, false) }
            return (step, state.mailbox.post(Job(id: 0, promise: nil, run: nil)))
        }
        if wakeNeeded { wake.signal() }
        if case .settled(let result) = step { waiter.resolve(result.mapError { $0 as any Error }) }
        return waiter
    }

    // MARK: The thread

    private func main(_ configuration: SQLiteConfiguration) {
        var connection: Connection?
        var openError: SQLiteError?
        do {
            var configuration = configuration
            #if Tracing || Metrics
                configuration.ownerTelemetry = telemetry
            #endif
            let opened = try Connection.open(path: path, configuration: configuration)
            state.withLock { $0.interruptTarget = InterruptTarget(db: opened.db) }
            connection = opened
        } catch let error as SQLiteError {
            openError = error
        } catch {
            openError = SQLiteError(.cannotOpen, message: "cannot open '\(path)': \(error)", underlying: error)
        }
        state.withLock { $0.opened = Opened(connection: connection, error: openError) }

        var batch = [Job]()
        let clock = ContinuousClock()
        // Until when the thread polls before sleeping: set after each batch.
        var pollUntil = clock.now
        while true {
            let polling = pollUntil > clock.now
            let step: (work: Bool, seen: UInt64) = state.withLock { state in
                let seen = posted.load(ordering: .relaxed)
                switch state.handOff.threadTurn(polling: polling) {
                case .keepPolling, .sleep:
                    return (false, seen)
                case .takeJobs:
                    let taken = polling ? state.mailbox.takeAllStayingAwake(into: &batch) : state.mailbox.takeAll(into: &batch)
                    state.handOff.jobsTaken(found: taken)
                    return (taken, seen)
                }
            }
            guard step.work else {
                if polling {
                    while posted.load(ordering: .relaxed) == step.seen, clock.now < pollUntil {}
                } else {
                    wake.wait()
                }
                continue
            }
            for job in batch {
                guard let run = job.run else {
                    finish(connection)
                    return
                }
                // One lock per job: `running` is not cleared after the job, so a cancel that
                // arrives late may interrupt the connection between statements. SQLite clears
                // such an interrupt when the next statement starts with none running
                // (sqlite3_step), and every statement is reset after use.
                state.withLock { $0.running = job.id }
                AdapterSupport.runTurn(contextID) { run(connection, openError) }
                load.subtract(1, ordering: .relaxed)
            }
            batch.removeAll(keepingCapacity: batch.capacity <= 1024)
            pollUntil = clock.now.advanced(saturatingBy: pollLimit)
        }
    }

    /// The close job: no interrupt can reach the handle from here on.
    private func finish(_ connection: Connection?) {
        state.withLock { state in
            state.interruptTarget = nil
            state.running = 0
        }
        let status = connection?.close() ?? SQLITE_OK
        let result: Result<Void, SQLiteError> =
            status == SQLITE_OK
            ? .success(())
            : .failure(SQLiteError(SQLiteError.Code(resultCode: status), message: "closing '\(path)' failed: \(String(cString: sqlite3_errstr(status)))"))
        ContextRegistry.unregister(contextID)
        let waiters = state.withLock { $0.lifecycle.finish(result) }
        for waiter in waiters { waiter.resolve(result.mapError { $0 as any Error }) }
    }
}

extension ConnectionOwner: WaitingThreadRunner {
    /// ``SQLiteConfiguration/pollBeforeSleeping`` for a task that may not run the job itself
    /// (``SQLiteConfiguration/WaitingThreads/blockedAndAwaiting`` lets it: then none).
    func pollLimitBeforeSuspending(settling promise: ObjectIdentifier) -> Duration? {
        guard waitingThreads != .blockedAndAwaiting, pollLimit > .zero else { return nil }
        return pollLimit
    }

    /// Runs the job settling `promise` on the calling thread when it is the next job and the
    /// connection thread is idle; the connection thread waits meanwhile.
    /// Otherwise, with ``SQLiteConfiguration/pollBeforeSleeping``, the waiter polls for the
    /// result: the connection thread is awake or about to be, and most jobs are short.
    func runOnWaitingThread(settling promise: ObjectIdentifier, blocking: Bool) -> WaitingThreadHelp {
        let mayRun =
            switch waitingThreads {
            case .none: false
            case .blocked: blocking
            case .blockedAndAwaiting: true
            }
        let taken: (job: Job, opened: Opened)? = state.withLock { state in
            guard mayRun, let opened = state.opened, state.mailbox.first?.promise == promise,
                state.handOff.waiterAsksToRun()
            else { return nil }
            guard let job = state.mailbox.takeFirst() else {
                preconditionFailure("the mailbox's first job went away under its lock")
            }
            state.running = job.id
            return (job, opened)
        }
        guard let (job, opened) = taken else { return pollLimit > .zero ? .poll(for: pollLimit) : .declined }
        AdapterSupport.runTurn(contextID) { job.run?(opened.connection, opened.error) }
        load.subtract(1, ordering: .relaxed)
        let wakeThread = state.withLock { state in
            switch state.handOff.waiterFinished() {
            case .none:
                return false
            case .wakeThreadIfJobsArrived:
                // With no job, the next post wakes it.
                return !state.mailbox.markOwnerAsleepIfEmpty()
            }
        }
        if wakeThread { wake.signal() }
        return .ran
    }
}

extension ConnectionOwner: BlockingWaitAdvisor {
    var contextName: String { "the SQLite connection thread of '\(path)'" }

    /// Blocking is safe except on the connection thread itself (inside a transaction
    /// closure), which the turn check catches before this is asked.
    func adviseBlockingWait() -> BlockingWaitAdvice { .block }
}
