internal import CSQLite

/// The commit, rollback, update and trace hooks of one connection, installed while anyone
/// observes its commits, and the observers they report to.
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
/// without `WHERE` that drops all rows at once, unseen by the update hook) so that such a
/// delete is reported too. Setting an authorizer expires every prepared statement, so
/// statements prepared earlier are prepared again before they next run.
final class ObservationHub {
    private let db: OpaquePointer
    private let authorizer: ConnectionAuthorizer
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
    /// The last table name the update hook reported, to skip converting it again.
    private var lastTable: (pointer: UnsafePointer<CChar>, name: String)?
    /// The top-level statement that started last, which ``TransactionChanges`` holds a mark for.
    private var markedStatement: OpaquePointer?
    /// The object the statement being prepared drops: SQLite checks a `DELETE` of it next.
    private var dropped: String?

    init(db: OpaquePointer, authorizer: ConnectionAuthorizer, queueSettle: @escaping () -> Bool) {
        self.db = db
        self.authorizer = authorizer
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
        sqlite3_update_hook(db, observationUpdateHook, context)
        sqlite3_trace_v2(db, UInt32(SQLITE_TRACE_STMT | SQLITE_TRACE_PROFILE), observationTraceHook, context)
        authorizer.observation = self
    }

    private func uninstall() {
        guard let context else { return }
        sqlite3_commit_hook(db, nil, nil)
        sqlite3_rollback_hook(db, nil, nil)
        sqlite3_update_hook(db, nil, nil)
        sqlite3_trace_v2(db, 0, nil, nil)
        authorizer.observation = nil
        self.context = nil
        lastTable = nil
        Unmanaged<ObservationHub>.fromOpaque(context).release()
    }

    func commitHookRan() {
        changes.commitHookRan()
        // Outside a statement: the commit runs in sqlite3_reset or sqlite3_finalize, and no
        // statement end will report it; a job right after this one settles it (or, once the
        // connection takes no more jobs, its close does).
        if !inStatement { _ = queueSettle() }
    }

    func rolledBack() {
        let discarded = changes.rolledBack()
        lastTable = nil
        guard !discarded.isEmpty else { return }
        for observer in changeObservers.values {
            if let event = observer.event(for: discarded) { observer.deliver(event) }
        }
    }

    func changed(table: UnsafePointer<CChar>, operation: Int32, rowID: Int64) {
        let kind: SQLiteRowChange.Operation
        switch operation {
        case SQLITE_INSERT: kind = .insert
        case SQLITE_DELETE: kind = .delete
        default: kind = .update
        }
        if let lastTable, lastTable.pointer == table, sqlite3_stricmp(table, lastTable.name) == 0 {
            changes.changed(table: lastTable.name, isNewTable: false, operation: kind, rowID: rowID)
            return
        }
        let name = String(cString: table)
        changes.changed(table: name, operation: kind, rowID: rowID)
        lastTable = (table, name)
    }

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
                lastTable = nil
            } else {
                let keyword = SavepointStatement.leadingKeyword(sql)
                let changesRows: Bool
                switch keyword {
                case "insert", "update", "delete", "replace": changesRows = true
                case "with": changesRows = sqlite3_stmt_readonly(statement) == 0
                default: changesRows = false
                }
                changes.statementEnded(changesSchema: ["create", "drop", "alter"].contains(keyword), changesRows: changesRows)
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
        lastTable = nil
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

private func observationTraceHook(
    _ event: UInt32, _ context: UnsafeMutableRawPointer?, _ statement: UnsafeMutableRawPointer?, _ detail: UnsafeMutableRawPointer?
) -> Int32 {
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
