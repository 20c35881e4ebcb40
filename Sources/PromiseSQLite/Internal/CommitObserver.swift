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
    /// Called, before `deliver`, with each commit that changed the schema, when set.
    let schemaChanged: (@Sendable () -> Void)?

    init(
        tables: [String], once: Bool, deliver: @escaping @Sendable (SQLiteCommit) -> Void,
        close: @escaping @Sendable (SQLiteError) -> Void, schemaChanged: (@Sendable () -> Void)? = nil
    ) {
        self.tables = Set(tables.map(asciiLowercased))
        self.once = once
        self.deliver = deliver
        self.close = close
        self.schemaChanged = schemaChanged
    }

    /// Whether a commit of `changed` (lower-cased names) is of interest.
    func wants(_ changed: Set<String>) -> Bool {
        guard !changed.isEmpty else { return false }
        return tables.isEmpty || !tables.isDisjoint(with: changed)
    }
}

/// One registered observation of row changes, as the connection's ``ObservationHub`` holds it:
/// the filter, and the conversion of what the hooks recorded into the events it asked for.
final class ChangeObserver: Sendable {
    /// The tables of interest, lower-cased; empty for every table.
    let tables: Set<String>
    let operations: SQLiteChangeOperations
    /// The most row changes one event lists.
    let limit: Int
    /// Called with each event of interest, on the connection thread, inside SQLite's hook:
    /// it only hands the event on, and never runs user code.
    let deliver: @Sendable (SQLiteTransactionEvent) -> Void
    /// Called once when the observation ends because the database closed.
    let close: @Sendable (SQLiteError) -> Void

    init(
        tables: [String], operations: SQLiteChangeOperations, limit: Int,
        deliver: @escaping @Sendable (SQLiteTransactionEvent) -> Void, close: @escaping @Sendable (SQLiteError) -> Void
    ) {
        self.tables = Set(tables.map(asciiLowercased))
        self.operations = operations
        self.limit = limit
        self.deliver = deliver
        self.close = close
    }

    /// The tables of `changed` that are of interest.
    private func wanted(_ changed: Set<String>) -> Set<String> {
        tables.isEmpty ? changed : changed.filter { tables.contains(asciiLowercased($0)) }
    }

    /// The event for a commit, or `nil` when nothing of it is of interest. A commit that
    /// changed the schema is of interest to everyone: any query may read differently after it.
    func event(for commit: TransactionChanges.Committed) -> SQLiteTransactionEvent? {
        let wantedTables = wanted(commit.tables)
        var rows = commit.rows
        if !(tables.isEmpty && operations == .all) {
            rows.removeAll { !(operations.includes($0.operation) && wantedTables.contains($0.table)) }
        }
        var unlisted = commit.unlistedRows
        if rows.count > limit {
            unlisted += rows.count - limit
            rows.removeSubrange(limit...)
        }
        guard !rows.isEmpty || commit.schemaChanged || (unlisted > 0 && !wantedTables.isEmpty) else { return nil }
        let changedTables = unlisted > 0 ? wantedTables : Set(rows.lazy.map(\.table))
        return .committed(
            SQLiteCommittedChanges(changes: rows, tables: changedTables, schemaChanged: commit.schemaChanged, unlistedChanges: unlisted))
    }

    /// The event for a rollback, or `nil` when it discarded nothing of interest.
    func event(for rollback: TransactionChanges.Discarded) -> SQLiteTransactionEvent? {
        let wantedTables = wanted(rollback.tables)
        guard !wantedTables.isEmpty || rollback.schemaChanged else { return nil }
        return .rolledBack(tables: wantedTables)
    }
}
