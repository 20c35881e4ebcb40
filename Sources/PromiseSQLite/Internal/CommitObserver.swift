internal import Synchronization

/// One registered observation of commits, as the connection's ``ObservationHub`` holds it.
final class CommitObserver: Sendable {
    /// The tables of interest, lower-cased; empty for every table.
    let tables: Set<String>
    /// Called with each commit of interest, on the connection thread, inside SQLite's hook:
    /// it only hands the commit on, and never runs user code.
    let deliver: @Sendable (SQLiteCommit) -> Void
    /// Called once when the observation ends because the database closed.
    let close: @Sendable (SQLiteError) -> Void
    /// Whether one commit ends the observation.
    let once: Bool

    init(
        tables: [String], once: Bool, deliver: @escaping @Sendable (SQLiteCommit) -> Void,
        close: @escaping @Sendable (SQLiteError) -> Void
    ) {
        self.tables = Set(tables.map(asciiLowercased))
        self.once = once
        self.deliver = deliver
        self.close = close
    }

    /// Whether a commit of `changed` (lower-cased names) is of interest.
    func wants(_ changed: Set<String>) -> Bool {
        guard !changed.isEmpty else { return false }
        return tables.isEmpty || !tables.isDisjoint(with: changed)
    }
}

/// The commits waiting for a ``SQLiteCommits`` consumer: at most one report, merged while the
/// consumer is behind, so a slow consumer costs one set of table names, not one per commit.
final class CommitInbox: Sendable {
    private enum End { case closed, cancelled }

    private struct State {
        var pending: SQLiteCommit?
        var waiter: CheckedContinuation<SQLiteCommit?, Never>?
        var end: End?
        var unregister: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    /// Sets how the observation is removed from the connection; runs it at once when the
    /// inbox was cancelled first.
    func setUnregister(_ unregister: @escaping @Sendable () -> Void) {
        let cancelled: Bool = state.withLock { state in
            guard state.end != .cancelled else { return true }
            state.unregister = unregister
            return false
        }
        if cancelled { unregister() }
    }

    /// Hands `commit` to the waiting consumer, or keeps it (merged with what is kept).
    func push(_ commit: SQLiteCommit) {
        let waiter: CheckedContinuation<SQLiteCommit?, Never>? = state.withLock { state in
            guard state.end == nil else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.pending = state.pending.map { $0.merged(with: commit) } ?? commit
            return nil
        }
        waiter?.resume(returning: commit)
    }

    /// The database closed: the consumer gets what is kept, then the end.
    func close() {
        let waiter: CheckedContinuation<SQLiteCommit?, Never>? = state.withLock { state in
            guard state.end == nil else { return nil }
            state.end = .closed
            state.unregister = nil
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The consumer stopped: no more reports, and the observation is removed.
    func cancel() {
        let (waiter, unregister): (CheckedContinuation<SQLiteCommit?, Never>?, (@Sendable () -> Void)?) = state.withLock { state in
            guard state.end == nil else { return (nil, nil) }
            state.end = .cancelled
            state.pending = nil
            defer {
                state.waiter = nil
                state.unregister = nil
            }
            return (state.waiter, state.unregister)
        }
        waiter?.resume(returning: nil)
        unregister?()
    }

    /// The next report, or `nil` once the database closed or the consuming task was cancelled.
    func next() async -> SQLiteCommit? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<SQLiteCommit?, Never>) in
                let (now, replaced): (SQLiteCommit??, CheckedContinuation<SQLiteCommit?, Never>?) = state.withLock { state in
                    if let pending = state.pending {
                        state.pending = nil
                        return (.some(pending), nil)
                    }
                    if state.end != nil { return (.some(nil), nil) }
                    // Two consumers of one iterator: the earlier one ends.
                    let replaced = state.waiter
                    state.waiter = continuation
                    return (nil, replaced)
                }
                replaced?.resume(returning: nil)
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            cancel()
        }
    }

    deinit {
        // Nobody can consume any more: remove the observation from the connection.
        state.withLock { $0.unregister }?()
    }
}
