internal import PromiseCore
internal import Synchronization

/// One running value observation: the ``ValueObservationStateMachine`` under a lock, and the
/// work its actions start. A consumer (``SQLiteObservedValues``' iterator, or the callback
/// loop of ``SQLiteValueObservation/start(in:on:externalChangeInterval:_:)``) pulls values
/// with ``next()``.
final class ValueObserver<Value: Sendable>: Sendable {
    private struct State {
        var machine = ValueObservationStateMachine()
        var waiter: CheckedContinuation<Value?, any Error>?
        /// The value read and not yet handed over (the waiter left before it arrived).
        var ready: Value?
        /// The last value delivered, for removing duplicates.
        var last: Value?
        /// Why it ended, handed to the consumer once.
        var failure: (any Error)?
        var read: Promise<(value: Value, tables: Set<String>)>?
        var poll: ScheduledWork?
        var dataVersion: Int64?
        var unregister: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())
    private let observation: SQLiteValueObservation<Value>
    private let reader: any SQLiteReader
    private let writer: SQLiteDatabase
    let externalChangeInterval: Duration?

    init(_ observation: SQLiteValueObservation<Value>, reader: any SQLiteReader, writer: SQLiteDatabase, externalChangeInterval: Duration?) {
        self.observation = observation
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
        _ = writer.readWithoutTransaction { try $0.scalar(Int64.self, "PRAGMA data_version") ?? 0 }
            .then(on: .inline) { [weak self] version in self?.registered(dataVersion: version) }
            .catch(on: .inline, policy: .allErrors) { [weak self] error in self?.end(error) }
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
        let body = observation.read
        let read = reader.read { connection in try ReadRegion.tracking(connection.connection) { try body(connection) } }
        state.withLock { $0.read = read }
        _ = read.then(on: .inline) { [weak self] result in self?.readSucceeded(result.0, tables: result.1) }
            .catch(on: .inline, policy: .allErrors) { [weak self] error in self?.end(error) }
    }

    private func readSucceeded(_ value: Value, tables: Set<String>) {
        let (action, waiter): (ValueObservationStateMachine.Action, CheckedContinuation<Value?, any Error>?) = state.withLock { state in
            state.read = nil
            let duplicate = state.last.map { observation.isDuplicate?($0, value) ?? false } ?? false
            let action = state.machine.readSucceeded(tables: tables, duplicate: duplicate)
            guard action == .deliver else { return (action, nil) }
            if observation.isDuplicate != nil { state.last = value }
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
        _ = writer.readWithoutTransaction { try $0.scalar(Int64.self, "PRAGMA data_version") ?? 0 }
            .then(on: .inline) { [weak self] version in
                guard let self else { return }
                let changed: Bool = self.state.withLock { state in
                    defer { state.dataVersion = version }
                    return state.dataVersion != version
                }
                if changed { self.changed(tables: [], everything: true) }
                self.schedulePoll()
            }
            .catch(on: .inline, policy: .allErrors) { [weak self] error in self?.end(error) }
    }

    deinit {
        let (read, poll, unregister) = state.withLock { ($0.read, $0.poll, $0.unregister) }
        read?.cancel()
        poll?.cancel()
        unregister?()
    }
}
