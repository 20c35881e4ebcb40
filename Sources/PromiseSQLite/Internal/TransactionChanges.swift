/// What the open transaction changed, by savepoint level, as SQLite's hooks report it: the
/// pure state of ``ObservationHub``, tested alone.
///
/// - Rows changed inside a savepoint that is rolled back to are forgotten; a savepoint that is
///   released hands what it changed to the level below; a rollback forgets everything.
/// - A statement that fails inside a transaction that goes on has its changes undone by SQLite
///   (unless its conflict clause is `FAIL`, which keeps the rows changed before the failure),
///   so what was recorded since it started is forgotten too.
/// - A commit is known to have happened only after the statement that committed ends with the
///   connection back in autocommit mode: the commit hook runs before the commit is written, and
///   a commit that fails with `SQLITE_BUSY` leaves the transaction open.
///
/// Tables are always recorded. Rows are recorded only while ``rowLimit`` is above zero, and at
/// most that many for one transaction; the rest are counted in
/// ``Committed/unlistedRows``, so a transaction of a million rows holds a bounded list.
struct TransactionChanges {
    /// What one level (the transaction itself, or an open savepoint) changed.
    struct Level {
        /// The savepoint's name, folded to lower case; empty for the transaction itself.
        var name: String
        var tables: Set<String> = []
        /// The rows changed, in order, up to the transaction's limit.
        var rows: [SQLiteRowChange] = []
        /// Rows changed beyond the limit: counted, not listed.
        var unlistedRows = 0
        /// Whether a statement that changes the schema (`CREATE`, `DROP`, `ALTER`) ran.
        var schemaChanged = false

        init(name: String) { self.name = name }
    }

    /// A commit that completed.
    struct Committed: Equatable {
        var tables: Set<String>
        var rows: [SQLiteRowChange]
        var unlistedRows: Int
        var schemaChanged: Bool
    }

    /// What a rollback discarded.
    struct Discarded: Equatable {
        var tables: Set<String>
        var rows: Int
        var schemaChanged: Bool

        /// Whether the transaction had changed anything.
        var isEmpty: Bool { tables.isEmpty && rows == 0 && !schemaChanged }
    }

    /// Where the innermost level stood when the running statement started, to forget what it
    /// recorded if it fails.
    private struct StatementMark {
        var depth: Int
        var rows: Int
        var unlistedRows: Int
        var tables: Set<String>
        var schemaChanged: Bool
        /// Whether the statement is an `INSERT`, `UPDATE` or `DELETE`, known once it ended.
        var changesRows = false
    }

    /// The most rows one transaction lists; 0 records tables only.
    var rowLimit = 0

    /// What changed outside any savepoint.
    private var base = Level(name: "")
    /// Open savepoints, innermost last.
    private var savepoints: [Level] = []
    /// Rows listed across every level, against ``rowLimit``.
    private var listedRows = 0
    private var mark: StatementMark?
    /// The commit hook ran, and the commit's outcome is not known yet.
    private(set) var commitRequested = false

    /// Whether nothing is recorded.
    var isEmpty: Bool {
        !commitRequested && discarded.isEmpty
    }

    /// Runs `body` on the innermost open level.
    private mutating func withInnermost<Result>(_ body: (inout Level) -> Result) -> Result {
        if savepoints.isEmpty { return body(&base) }
        return body(&savepoints[savepoints.count - 1])
    }

    /// Records a change to `table`, as the row-change hook reports it.
    ///
    /// - Parameters:
    ///   - table: The table's name.
    ///   - isNewTable: `false` when the previous change recorded was to the same table, which is
    ///     then known to be in the innermost level's set already.
    ///   - operation: What happened to the row.
    ///   - key: The row's key (the new one, for an update that changed it), asked for only when
    ///     the row is listed.
    mutating func changed(
        table: String, isNewTable: Bool = true, operation: SQLiteRowChange.Operation, key: @autoclosure () -> SQLiteRowChange.Key
    ) {
        let recordsRows = rowLimit > 0
        let listed = recordsRows && listedRows < rowLimit
        if listed { listedRows += 1 }
        withInnermost { level in
            if isNewTable { level.tables.insert(table) }
            if listed {
                level.rows.append(SQLiteRowChange(table: table, operation: operation, key: key()))
            } else if recordsRows {
                level.unlistedRows += 1
            }
        }
    }

    /// A top-level statement started.
    mutating func statementStarted() {
        let depth = savepoints.count
        mark = withInnermost { level in
            StatementMark(
                depth: depth, rows: level.rows.count, unlistedRows: level.unlistedRows, tables: level.tables,
                schemaChanged: level.schemaChanged)
        }
    }

    /// The statement that started last ended.
    ///
    /// - Parameters:
    ///   - changesSchema: Whether it is a `CREATE`, `DROP` or `ALTER`.
    ///   - changesRows: Whether it is an `INSERT`, `UPDATE` or `DELETE`.
    mutating func statementEnded(changesSchema: Bool, changesRows: Bool) {
        if changesSchema { withInnermost { $0.schemaChanged = true } }
        mark?.changesRows = changesRows
    }

    /// The statement that started last failed. SQLite undid it unless it is an `INSERT`,
    /// `UPDATE` or `DELETE` whose `FAIL` conflict kept the rows it changed before the failure,
    /// which `sqlite3_changes64` then counts (it is 0 after a statement SQLite undid). What an
    /// undone statement recorded is forgotten.
    ///
    /// - Parameter changes: `sqlite3_changes64` now.
    /// - Returns: Whether anything was forgotten.
    @discardableResult
    mutating func statementFailed(changes: Int64) -> Bool {
        guard let mark, mark.depth == savepoints.count, !mark.changesRows || changes == 0 else {
            self.mark = nil
            return false
        }
        self.mark = nil
        let forgotten: Int? = withInnermost { level in
            guard
                level.rows.count != mark.rows || level.unlistedRows != mark.unlistedRows || level.tables != mark.tables
                    || level.schemaChanged != mark.schemaChanged
            else { return nil }
            let forgotten = level.rows.count - mark.rows
            level.rows.removeSubrange(mark.rows...)
            level.unlistedRows = mark.unlistedRows
            level.tables = mark.tables
            level.schemaChanged = mark.schemaChanged
            return forgotten
        }
        guard let forgotten else { return false }
        listedRows -= forgotten
        return true
    }

    /// Applies a savepoint statement that ran successfully.
    mutating func apply(_ statement: SavepointStatement) {
        mark = nil
        switch statement {
        case .savepoint(let name):
            savepoints.append(Level(name: name))
        case .release(let name):
            // RELEASE of a name that is not open fails in SQLite and changes nothing.
            guard let index = savepoints.lastIndex(where: { $0.name == name }) else { return }
            let released = savepoints[index...].reduce(into: Level(name: "")) { merged, level in merged.absorb(level) }
            savepoints.removeSubrange(index...)
            withInnermost { $0.absorb(released) }
        case .rollbackTo(let name):
            // The savepoint stays open, empty.
            guard let index = savepoints.lastIndex(where: { $0.name == name }) else { return }
            for level in savepoints[index...] { listedRows -= level.rows.count }
            savepoints.removeSubrange((index + 1)...)
            savepoints[index] = Level(name: name)
        }
    }

    /// The commit hook ran.
    mutating func commitHookRan() { commitRequested = true }

    /// Everything recorded, every level merged.
    private var discarded: Discarded {
        var merged = base
        for level in savepoints { merged.absorb(level) }
        return Discarded(tables: merged.tables, rows: merged.rows.count + merged.unlistedRows, schemaChanged: merged.schemaChanged)
    }

    /// The transaction rolled back: everything is forgotten.
    ///
    /// - Returns: What it had changed.
    mutating func rolledBack() -> Discarded {
        let discarded = self.discarded
        self = TransactionChanges(rowLimit: rowLimit)
        return discarded
    }

    private init(rowLimit: Int) { self.rowLimit = rowLimit }

    init() {}

    /// Settles a requested commit once a statement ended or a new one starts: with the
    /// connection in autocommit mode the commit happened, and what it changed is returned
    /// (nothing, when it changed no table the hooks see); otherwise it failed and the
    /// transaction is still open with its changes.
    ///
    /// - Parameter autocommit: Whether the connection is in autocommit mode now.
    /// - Returns: The commit, or `nil` when no commit completed.
    mutating func settle(autocommit: Bool) -> Committed? {
        guard commitRequested else { return nil }
        commitRequested = false
        guard autocommit else { return nil }
        var merged = base
        for level in savepoints { merged.absorb(level) }
        self = TransactionChanges(rowLimit: rowLimit)
        return Committed(tables: merged.tables, rows: merged.rows, unlistedRows: merged.unlistedRows, schemaChanged: merged.schemaChanged)
    }
}

extension TransactionChanges.Level {
    /// Takes in what `inner`, a level above this one, changed.
    mutating func absorb(_ inner: Self) {
        tables.formUnion(inner.tables)
        rows.append(contentsOf: inner.rows)
        unlistedRows += inner.unlistedRows
        schemaChanged = schemaChanged || inner.schemaChanged
    }
}
