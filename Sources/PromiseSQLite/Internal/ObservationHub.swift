internal import CSQLite

/// The commit, rollback, row-change (``RowChangeHook``) and trace hooks of one connection,
/// installed while anyone observes its commits, and the observers they report to.
///
/// Everything here runs on the connection thread: hooks inside SQLite's calls, registration
/// and removal as jobs. The hooks only record what changed (``TransactionChanges``): tables,
/// and rows while a row observer is registered. Once a commit is known to be complete they
/// hand a ``SQLiteCommit`` to each interested commit observer and a
/// ``SQLiteTransactionEvent`` to each interested row observer; a rollback that discarded
/// changes goes to the row observers at once. Delivery only schedules the user's code
/// elsewhere.
///
/// While installed, an authorizer turns off SQLite's truncate optimization (a `DELETE`
/// without `WHERE` that drops all rows at once, unseen by the update hook; the pre-update hook
/// turns it off by itself) so that such a delete is reported too. Setting an authorizer
/// expires every prepared statement, so statements prepared earlier are prepared again before
/// they next run.
final class ObservationHub {
    private let db: OpaquePointer
    private let authorizer: ConnectionAuthorizer
    private let rowHook: RowChangeHook
    /// How each changed table names its rows, while the pre-update hook is installed and rows
    /// are recorded.
    private var shapes: TableKeyShapes?
    private var observers: [ObjectIdentifier: CommitObserver] = [:]
    private var changeObservers: [ObjectIdentifier: ChangeObserver] = [:]
    /// How many row observers keep each buffer limit: the largest decides how many rows a
    /// transaction lists, kept without a pass over every observer.
    private var limits: [Int: Int] = [:]
    private var changes = TransactionChanges()
    /// The hooks' retained context while they are installed.
    private var context: UnsafeMutableRawPointer?
    /// A statement started and has not ended: a commit hook seen outside one ran in
    /// `sqlite3_reset` or `sqlite3_finalize`, after the statement's end was reported.
    private var inStatement = false
    /// Queues ``settleAfterJob()`` as a job of its own, for a commit that completes after its
    /// statement's end was reported; `false` when the connection no longer takes jobs.
    private let queueSettle: () -> Bool
    /// The last table the row-change hook reported, to skip converting its name and looking
    /// up its shape again: its database's and its name's pointers, its name, and its shape
    /// once one was needed.
    private var lastTable: (database: UnsafePointer<CChar>?, pointer: UnsafePointer<CChar>, name: String, shape: TableKeyShape?)?
    /// The top-level statement that started last, which ``TransactionChanges`` holds a mark for.
    private var markedStatement: OpaquePointer?
    /// The object the statement being prepared drops: SQLite checks a `DELETE` of it next.
    private var dropped: String?

    init(db: OpaquePointer, authorizer: ConnectionAuthorizer, rowHook: RowChangeHook, queueSettle: @escaping () -> Bool) {
        self.db = db
        self.authorizer = authorizer
        self.rowHook = rowHook
        self.queueSettle = queueSettle
    }

    /// Whether no observer is registered.
    var isEmpty: Bool { observers.isEmpty && changeObservers.isEmpty }

    /// Registers `observer`, installing the hooks for the first one.
    func add(_ observer: CommitObserver) {
        if context == nil { install() }
        observers[ObjectIdentifier(observer)] = observer
    }

    /// Removes `observer`, and the hooks with the last one.
    func remove(_ observer: CommitObserver) {
        let key = ObjectIdentifier(observer)
        guard observers[key] === observer else { return }
        observers[key] = nil
        if isEmpty { uninstall() }
    }

    /// Registers `observer`, installing the hooks for the first one; rows are recorded from
    /// the next change on.
    func add(_ observer: ChangeObserver) {
        if context == nil { install() }
        guard changeObservers.updateValue(observer, forKey: ObjectIdentifier(observer)) == nil else { return }
        limits[observer.limit, default: 0] += 1
        changes.rowLimit = max(changes.rowLimit, observer.limit)
    }

    /// Removes `observer`, and the hooks with the last one.
    func remove(_ observer: ChangeObserver) {
        let key = ObjectIdentifier(observer)
        guard changeObservers[key] === observer else { return }
        changeObservers[key] = nil
        limits[observer.limit, default: 1] -= 1
        if limits[observer.limit] == 0 {
            limits[observer.limit] = nil
            changes.rowLimit = limits.keys.max() ?? 0
        }
        if isEmpty { uninstall() }
    }

    /// The connection is closing: a commit that completed is still delivered, then every
    /// observer ends with `error`.
    func close(_ error: SQLiteError) {
        settle()
        let ending = observers.values
        let endingChanges = changeObservers.values
        observers = [:]
        changeObservers = [:]
        limits = [:]
        uninstall()
        for observer in ending { observer.close(error) }
        for observer in endingChanges { observer.close(error) }
    }

    /// The job queued by the commit hook: delivers a commit that completed in
    /// `sqlite3_reset` or `sqlite3_finalize`.
    func settleAfterJob() { settle() }

    // MARK: Hooks

    private func install() {
        let context = Unmanaged.passRetained(self).toOpaque()
        self.context = context
        changes = TransactionChanges()
        changes.rowLimit = limits.keys.max() ?? 0
        inStatement = false
        sqlite3_commit_hook(db, observationCommitHook, context)
        sqlite3_rollback_hook(db, observationRollbackHook, context)
        switch rowHook {
        case .preupdate(let functions):
            shapes = TableKeyShapes(db: db)
            _ = functions.install(db, observationPreupdateHook, context)
        case .update:
            sqlite3_update_hook(db, observationUpdateHook, context)
        }
        sqlite3_trace_v2(db, UInt32(SQLITE_TRACE_STMT | SQLITE_TRACE_PROFILE), observationTraceHook, context)
        authorizer.observation = self
    }

    private func uninstall() {
        guard let context else { return }
        sqlite3_commit_hook(db, nil, nil)
        sqlite3_rollback_hook(db, nil, nil)
        switch rowHook {
        case .preupdate(let functions): _ = functions.install(db, nil, nil)
        case .update: sqlite3_update_hook(db, nil, nil)
        }
        sqlite3_trace_v2(db, 0, nil, nil)
        authorizer.observation = nil
        self.context = nil
        lastTable = nil
        shapes?.close()
        shapes = nil
        Unmanaged<ObservationHub>.fromOpaque(context).release()
    }

    func commitHookRan() {
        changes.commitHookRan()
        forgetShapes()
        // Outside a statement: the commit runs in sqlite3_reset or sqlite3_finalize, and no
        // statement end will report it; a job right after this one settles it (or, once the
        // connection takes no more jobs, its close does).
        if !inStatement { _ = queueSettle() }
    }

    func rolledBack() {
        let discarded = changes.rolledBack()
        forgetShapes()
        guard !discarded.isEmpty else { return }
        for observer in changeObservers.values {
            if let event = observer.event(for: discarded) { observer.deliver(event) }
        }
    }

    /// A row of `table` changed, as the update hook reports it: after the change.
    func changed(table: UnsafePointer<CChar>, operation: Int32, rowID: Int64) {
        let (name, isNewTable) = tableName(database: nil, table: table)
        changes.changed(table: name, isNewTable: isNewTable, operation: Self.operation(operation), key: .rowID(rowID))
    }

    /// A row of `table` in `database` is about to change, as the pre-update hook reports it.
    /// The row's key is read only when the row is listed.
    ///
    /// - Parameters:
    ///   - before: The row's rowid before the change (an ordinary table's update or delete).
    ///   - after: The row's rowid after it (an ordinary table's insert or update).
    func changing(database: UnsafePointer<CChar>, table: UnsafePointer<CChar>, operation: Int32, before: Int64, after: Int64) {
        let (name, isNewTable) = tableName(database: database, table: table)
        let kind = Self.operation(operation)
        changes.changed(
            table: name, isNewTable: isNewTable, operation: kind,
            key: key(of: kind, database: database, name: name, before: before, after: after))
    }

    /// The key of the row the pre-update hook reports: its rowid, or its primary key's values
    /// (before a delete, after an insert or update).
    private func key(
        of operation: SQLiteRowChange.Operation, database: UnsafePointer<CChar>, name: String, before: Int64, after: Int64
    ) -> SQLiteRowChange.Key {
        guard case .preupdate(let functions) = rowHook else { return .rowID(after) }
        let shape: TableKeyShape
        if let known = lastTable?.shape {
            shape = known
        } else {
            shape = shapes?.shape(database: database, table: name) ?? .rowID
            lastTable?.shape = shape
        }
        switch shape {
        case .rowID:
            return .rowID(operation == .delete ? before : after)
        case .primaryKey(let columns, let indexes):
            let read = operation == .delete ? functions.old : functions.new
            let values = indexes.map { index -> SQLiteValue in
                var value: OpaquePointer?
                guard read(db, index, &value) == SQLITE_OK, let value else { return .null }
                return SQLiteValue(copying: value)
            }
            return .primaryKey(SQLiteRowChange.PrimaryKey(columns: columns, values: values))
        }
    }

    /// `table`'s name, converted once for a run of changes to the same table, and whether it
    /// differs from the previous change's table.
    private func tableName(database: UnsafePointer<CChar>?, table: UnsafePointer<CChar>) -> (name: String, isNew: Bool) {
        if let lastTable, lastTable.pointer == table, lastTable.database == database, sqlite3_stricmp(table, lastTable.name) == 0 {
            return (lastTable.name, false)
        }
        let name = String(cString: table)
        lastTable = (database, table, name, nil)
        return (name, true)
    }

    private static func operation(_ operation: Int32) -> SQLiteRowChange.Operation {
        switch operation {
        case SQLITE_INSERT: .insert
        case SQLITE_DELETE: .delete
        default: .update
        }
    }

    /// Forgets the tables' shapes, and the last table: the transaction ended, the schema
    /// changed, or a savepoint ended.
    private func forgetShapes() {
        lastTable = nil
        shapes?.forget()
    }

    /// Whether a statement runs inside the pre-update hook to read a table's shape: the trace
    /// hook ignores it.
    var isReadingShapes: Bool { shapes?.isReading ?? false }

    /// The authorizer's answer: `SQLITE_IGNORE` for a `DELETE` from a table of the user's,
    /// which makes SQLite delete row by row (so the update hook sees the rows) instead of
    /// truncating; `SQLITE_OK` for everything else. `DROP TABLE` and `DROP VIEW` check a
    /// `DELETE` of what they drop, and of `sqlite_schema`, and do nothing when told to ignore
    /// it: those are allowed.
    func authorize(_ action: Int32, _ name: UnsafePointer<CChar>?) -> Int32 {
        switch action {
        case SQLITE_DROP_TABLE, SQLITE_DROP_TEMP_TABLE, SQLITE_DROP_VIEW, SQLITE_DROP_TEMP_VIEW, SQLITE_DROP_VTABLE:
            dropped = name.map { String(cString: $0) }
            return SQLITE_OK
        case SQLITE_DELETE:
            guard let name, sqlite3_strnicmp(name, "sqlite_", 7) != 0 else { return SQLITE_OK }
            if let dropped, sqlite3_stricmp(name, dropped) == 0 {
                self.dropped = nil
                return SQLITE_OK
            }
            return SQLITE_IGNORE
        default:
            return SQLITE_OK
        }
    }

    /// `statement`, or a trigger's program within it (`isTrigger`), started.
    func statementStarted(_ statement: OpaquePointer?, isTrigger: Bool) {
        guard !isTrigger else { return }
        // A commit left for sqlite3_reset has completed by the time the next statement starts.
        settle()
        inStatement = true
        markedStatement = statement
        changes.statementStarted()
    }

    func statementEnded(_ statement: OpaquePointer?) {
        inStatement = false
        if let statement, let sql = sqlite3_sql(statement) {
            if let savepoint = SavepointStatement.parse(sql) {
                changes.apply(savepoint)
                forgetShapes()
            } else {
                let keyword = SavepointStatement.leadingKeyword(sql)
                let changesRows: Bool
                switch keyword {
                case "insert", "update", "delete", "replace": changesRows = true
                case "with": changesRows = sqlite3_stmt_readonly(statement) == 0
                default: changesRows = false
                }
                let changesSchema = ["create", "drop", "alter"].contains(keyword)
                if changesSchema { forgetShapes() }
                changes.statementEnded(changesSchema: changesSchema, changesRows: changesRows)
            }
        }
        settle()
    }

    /// `statement`'s `sqlite3_step` returned an error: what SQLite undid of it is forgotten.
    func statementFailed(_ statement: OpaquePointer) {
        guard markedStatement == statement else { return }
        markedStatement = nil
        if changes.statementFailed(changes: sqlite3_changes64(db)) { lastTable = nil }
    }

    /// Delivers the commit whose outcome is now known, if any.
    private func settle() {
        guard changes.commitRequested, let committed = changes.settle(autocommit: sqlite3_get_autocommit(db) != 0) else { return }
        forgetShapes()
        for observer in changeObservers.values {
            if let event = observer.event(for: committed) { observer.deliver(event) }
        }
        if committed.schemaChanged {
            for observer in observers.values { observer.schemaChanged?() }
        }
        guard !committed.tables.isEmpty else { return }
        let commit = SQLiteCommit(tables: committed.tables)
        let lowered = Set(committed.tables.map(asciiLowercased))
        for observer in observers.values where observer.wants(lowered) {
            observer.deliver(commit)
            if observer.once { remove(observer) }
        }
    }
}

// MARK: The C callbacks

private func hub(_ context: UnsafeMutableRawPointer?) -> ObservationHub {
    Unmanaged<ObservationHub>.fromOpaque(context!).takeUnretainedValue()
}

private func observationCommitHook(_ context: UnsafeMutableRawPointer?) -> Int32 {
    hub(context).commitHookRan()
    return 0  // never veto the commit
}

private func observationRollbackHook(_ context: UnsafeMutableRawPointer?) {
    hub(context).rolledBack()
}

private func observationUpdateHook(
    _ context: UnsafeMutableRawPointer?, _ operation: Int32, _ database: UnsafePointer<CChar>?, _ table: UnsafePointer<CChar>?,
    _ rowID: sqlite3_int64
) {
    guard let table else { return }
    hub(context).changed(table: table, operation: operation, rowID: rowID)
}

private func observationPreupdateHook(
    _ context: UnsafeMutableRawPointer?, _ db: OpaquePointer?, _ operation: Int32, _ database: UnsafePointer<CChar>?,
    _ table: UnsafePointer<CChar>?, _ before: Int64, _ after: Int64
) {
    guard let database, let table else { return }
    hub(context).changing(database: database, table: table, operation: operation, before: before, after: after)
}

private func observationTraceHook(
    _ event: UInt32, _ context: UnsafeMutableRawPointer?, _ statement: UnsafeMutableRawPointer?, _ detail: UnsafeMutableRawPointer?
) -> Int32 {
    guard !hub(context).isReadingShapes else { return 0 }
    switch Int32(event) {
    case SQLITE_TRACE_STMT:
        // For a trigger's program, SQLite passes a comment naming the trigger instead of the SQL.
        let text = detail?.assumingMemoryBound(to: UInt8.self)
        hub(context).statementStarted(statement.map { OpaquePointer($0) }, isTrigger: text?[0] == UInt8(ascii: "-") && text?[1] == UInt8(ascii: "-"))
    case SQLITE_TRACE_PROFILE: hub(context).statementEnded(statement.map { OpaquePointer($0) })
    default: break
    }
    return 0
}
