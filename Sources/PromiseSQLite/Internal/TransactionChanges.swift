/// The tables changed by the open transaction, by savepoint level, as SQLite's hooks report
/// them: the pure state of ``ObservationHub``, tested alone.
///
/// Rows changed inside a savepoint that is rolled back to are forgotten; a savepoint that is
/// released hands its tables to the level below; a rollback forgets everything. A commit is
/// known to have happened only after the statement that committed ends with the connection
/// back in autocommit mode: the commit hook runs before the commit is written, and a commit
/// that fails with `SQLITE_BUSY` leaves the transaction open.
struct TransactionChanges {
    /// Tables changed outside any savepoint.
    private var base: Set<String> = []
    /// Open savepoints, innermost last, with the tables changed since each began.
    private var savepoints: [(name: String, tables: Set<String>)] = []
    /// The commit hook ran, and the commit's outcome is not known yet.
    private(set) var commitRequested = false

    /// Whether nothing is recorded.
    var isEmpty: Bool { base.isEmpty && savepoints.allSatisfy(\.tables.isEmpty) && !commitRequested }

    /// Records a change to `table` in the innermost open level.
    mutating func changed(table: String) {
        if savepoints.isEmpty {
            base.insert(table)
        } else {
            savepoints[savepoints.count - 1].tables.insert(table)
        }
    }

    /// Applies a savepoint statement that ran successfully.
    mutating func apply(_ statement: SavepointStatement) {
        switch statement {
        case .savepoint(let name):
            savepoints.append((name, []))
        case .release(let name):
            // RELEASE of a name that is not open fails in SQLite and changes nothing.
            guard let index = savepoints.lastIndex(where: { $0.name == name }) else { return }
            let released = savepoints[index...].reduce(into: Set<String>()) { $0.formUnion($1.tables) }
            savepoints.removeSubrange(index...)
            if savepoints.isEmpty {
                base.formUnion(released)
            } else {
                savepoints[savepoints.count - 1].tables.formUnion(released)
            }
        case .rollbackTo(let name):
            // The savepoint stays open, empty.
            guard let index = savepoints.lastIndex(where: { $0.name == name }) else { return }
            savepoints.removeSubrange((index + 1)...)
            savepoints[index].tables = []
        }
    }

    /// The commit hook ran.
    mutating func commitHookRan() { commitRequested = true }

    /// The transaction rolled back: everything is forgotten.
    mutating func rolledBack() { self = TransactionChanges() }

    /// Settles a requested commit once a statement ended or a new one starts: with the
    /// connection in autocommit mode the commit happened, and its tables are returned (an
    /// empty set when it changed no table the hooks see); otherwise it failed and the
    /// transaction is still open with its changes.
    ///
    /// - Parameter autocommit: Whether the connection is in autocommit mode now.
    /// - Returns: The committed tables, or `nil` when no commit completed.
    mutating func settle(autocommit: Bool) -> Set<String>? {
        guard commitRequested else { return nil }
        commitRequested = false
        guard autocommit else { return nil }
        var tables = base
        for savepoint in savepoints { tables.formUnion(savepoint.tables) }
        self = TransactionChanges()
        return tables
    }
}
