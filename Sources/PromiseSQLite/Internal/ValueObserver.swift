internal import PromiseCore

/// One running value observation: the ``ValueObservationStateMachine`` under a lock, and the
/// work its actions start. A consumer (``SQLiteObservedValues``' iterator, or the callback
/// loop of ``deliver(on:_:)``) pulls values with ``next()``.
///
/// Not generic: the values are `any Sendable`, which the typed wrappers
/// (``SQLiteValueObservation``, ``SQLiteObservedValues``) put in and take out, and every job
/// returns `Void` (``onConnectionThread(of:inTransaction:_:)``). Each value type a generic
/// observer, or a promise, is specialized for brings its own copy of PromiseCore's code: this
/// way the program of scripts/measure-product-bytes that uses the four adapters is 32 656 bytes
/// smaller (2 705 672 added bytes instead of 2 738 328).
final class ValueObserver: Sendable {
    typealias Value = any Sendable

    private struct State {
        var machine = ValueObservationStateMachine()
        var waiter: CheckedContinuation<Value?, any Error>?
        /// The value read and not yet handed over (the waiter left before it arrived).
        var ready: Value?
        /// The last value delivered, for removing duplicates.
        var last: Value?
        /// Why it ended, handed to the consumer once.
        var failure: (any Error)?
        var read: Promise<Void>?
        var poll: ScheduledWork?
        var dataVersion: Int64?
        var unregister: (@Sendable () -> Void)?
    }

    private let state = Lock(State())
    /// The read, its value boxed.
    private let read: @Sendable (SQLiteConnection) throws -> Value
    /// Whether two values are the same, when duplicates are removed.
    private let isDuplicate: (@Sendable (Value, Value) -> Bool)?
    private let reader: any SQLiteReader
    private let writer: SQLiteDatabase
    let externalChangeInterval: Duration?

    init(
        read: @escaping @Sendable (SQLiteConnection) throws -> Value, isDuplicate: (@Sendable (Value, Value) -> Bool)?,
        reader: any SQLiteReader, writer: SQLiteDatabase, externalChangeInterval: Duration?
    ) {
        self.read = read
        self.isDuplicate = isDuplicate
        self.reader = reader
        self.writer = writer
        // A zero or negative interval would poll the writer without pause.
        self.externalChangeInterval = externalChangeInterval.map { max($0, .milliseconds(1)) }
    }

    /// Registers the commit observation on the writer, then reads the baseline of
    /// `PRAGMA data_version` there: once that job ran, the registration is in place.
    func start() {
        let observer = CommitObserver(
            tables: [], once: false,
            deliver: { [weak self] commit in self?.changed(tables: Set(commit.tables.map(asciiLowercased)), everything: false) },
            close: { [weak self] error in self?.end(error) },
            schemaChanged: { [weak self] in self?.changed(tables: [], everything: true) })
        if let unregister = writer.observe(observer) {
            let alreadyEnded: Bool = state.withLock { state in
                guard state.machine.phase != .finished else { return true }
                state.unregister = unregister
                return false
            }
            if alreadyEnded { unregister() }
        }
        onConnectionThread(of: writer) { [weak self] connection in
            let version = try Self.dataVersion(connection)
            self?.registered(dataVersion: version)
        }
    }

    /// Runs `body` as a job of `database`, in a read transaction when `inTransaction`, and ends
    /// the observation with what it throws, or with why the job could not run. Every job of an observation returns
    /// nothing and reports through `self`, so they all share one promise type: each promise
    /// type an operator is specialized for adds its own copy of PromiseCore's code.
    @discardableResult
    private func onConnectionThread(
        of database: some SQLiteReader, inTransaction: Bool = false, _ body: @escaping @Sendable (SQLiteConnection) throws -> Void
    ) -> Promise<Void> {
        let job: @Sendable (SQLiteConnection) -> Void = { [weak self] connection in
            do { try body(connection) } catch { self?.end(error) }
        }
        let promise = inTransaction ? database.read(job) : database.readWithoutTransaction(job)
        _ = promise.catch(on: .inline, policy: .allErrors) { [weak self] error in self?.end(error) }
        return promise
    }

    /// `PRAGMA data_version` of `connection`: it changes when another connection commits.
    private static func dataVersion(_ connection: SQLiteConnection) throws -> Int64 {
        try connection.scalar(Int64.self, "PRAGMA data_version") ?? 0
    }

    private func registered(dataVersion: Int64) {
        let action = state.withLock { state in
            state.dataVersion = dataVersion
            return state.machine.registered()
        }
        perform(action)
        schedulePoll()
    }

    /// The next value, read when the consumer asks and the last one may be out of date; `nil`
    /// at the end. Throws what a read threw, once.
    func next() async throws -> Value? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value?, any Error>) in
                let (action, now): (ValueObservationStateMachine.Action, Result<Value?, any Error>?) = state.withLock { state in
                    if let ready = state.ready {
                        state.ready = nil
                        return (.none, .success(ready))
                    }
                    if state.machine.phase == .finished {
                        defer { state.failure = nil }
                        return (.none, state.failure.map { .failure($0) } ?? .success(nil))
                    }
                    let replaced = state.waiter
                    state.waiter = continuation
                    replaced?.resume(returning: nil)  // two consumers of one iterator: the earlier one ends
                    return (state.machine.consumerAsks(), nil)
                }
                if let now { continuation.resume(with: now) }
                perform(action)
            }
        } onCancel: {
            cancel()
        }
    }

    /// Ends the observation: a waiting consumer gets the end.
    func cancel() { end(nil) }

    /// Whether a consumer waits in ``next()`` with nothing to read (for tests).
    var waitsForAChange: Bool {
        state.withLock { $0.waiter != nil && $0.machine.phase == .idle }
    }

    private func changed(tables: Set<String>, everything: Bool) {
        let action = state.withLock { $0.machine.changed(tables: tables, everything: everything) }
        perform(action)
    }

    private func end(_ error: (any Error)?) {
        let action = state.withLock { state in
            let action = state.machine.finish()
            if action == .finish, let error, !(error is CancellationError) { state.failure = error }
            return action
        }
        perform(action)
    }

    private func perform(_ action: ValueObservationStateMachine.Action) {
        switch action {
        case .none, .deliver:
            return
        case .read:
            startRead()
        case .finish:
            let (waiter, failure, read, poll, unregister) = state.withLock { state in
                defer {
                    state.waiter = nil
                    state.read = nil
                    state.poll = nil
                    state.unregister = nil
                }
                let failure = state.waiter == nil ? nil : state.failure
                if state.waiter != nil { state.failure = nil }
                return (state.waiter, failure, state.read, state.poll, state.unregister)
            }
            read?.cancel()
            poll?.cancel()
            unregister?()
            if let failure { waiter?.resume(throwing: failure) } else { waiter?.resume(returning: nil) }
        }
    }

    private func startRead() {
        let body = read
        let read = onConnectionThread(of: reader, inTransaction: true) { [weak self] connection in
            let (value, tables) = try ReadRegion.tracking(connection.connection) { try body(connection) }
            self?.readSucceeded(value, tables: tables)
        }
        state.withLock { $0.read = read }
    }

    private func readSucceeded(_ value: Value, tables: Set<String>) {
        let (action, waiter): (ValueObservationStateMachine.Action, CheckedContinuation<Value?, any Error>?) = state.withLock { state in
            state.read = nil
            let duplicate = state.last.map { isDuplicate?($0, value) ?? false } ?? false
            let action = state.machine.readSucceeded(tables: tables, duplicate: duplicate)
            guard action == .deliver else { return (action, nil) }
            if isDuplicate != nil { state.last = value }
            let waiter = state.waiter
            state.waiter = nil
            if waiter == nil { state.ready = value }
            return (action, waiter)
        }
        waiter?.resume(returning: value)
        perform(action)
    }

    /// Polls `PRAGMA data_version` on the writer every `externalChangeInterval`: it changes when
    /// another connection (another process, or another ``SQLiteDatabase`` on the file) commits.
    private func schedulePoll() {
        guard let interval = externalChangeInterval else { return }
        let work = Promises.defaultContext.executeAfter(interval) { [weak self] in self?.poll() }
        let ended: Bool = state.withLock { state in
            guard state.machine.phase != .finished else { return true }
            state.poll = work
            return false
        }
        if ended { work.cancel() }
    }

    private func poll() {
        onConnectionThread(of: writer) { [weak self] connection in
            let version = try Self.dataVersion(connection)
            guard let self else { return }
            let changed: Bool = self.state.withLock { state in
                let changed = state.dataVersion != version
                state.dataVersion = version
                return changed
            }
            if changed { self.changed(tables: [], everything: true) }
            self.schedulePoll()
        }
    }

    /// Calls `onChange` on `context` with each value, one call at a time, until the returned
    /// promise is cancelled; it is rejected with what ended the observation otherwise.
    func deliver(on context: (any ExecutionContext)?, _ onChange: @escaping @Sendable (Value) -> Void) -> Promise<Void> {
        let context = context ?? Promises.defaultContext
        let promise = Promise<Void>.pending(resolvedOn: nil)
        let loop = Task {
            do {
                while let value = try await next() {
                    // A promise of the call: a context that refuses it (an invalidated queue, a
                    // closed loop) ends the observation with its refusal.
                    try await Promise<Void>(on: context, work: { onChange(value) }).get()
                }
                promise.reject(CancellationError())
            } catch {
                promise.reject(error)
            }
        }
        promise.onCancel {
            self.cancel()
            loop.cancel()
        }
        return promise
    }

    deinit {
        let (read, poll, unregister) = state.withLock { ($0.read, $0.poll, $0.unregister) }
        read?.cancel()
        poll?.cancel()
        unregister?()
    }
}
