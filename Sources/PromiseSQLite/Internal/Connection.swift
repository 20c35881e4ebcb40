internal import CSQLite
internal import PromiseSystem

/// One open `sqlite3*` and its statement cache. Created, used and closed on its owner thread
/// only (``ConnectionOwner``); never shared.
@usableFromInline
final class Connection {
    let db: OpaquePointer
    let path: String
    /// Unchecked exclusivity: only this connection's thread touches it, and the dynamic check
    /// cost about 120 instructions a statement.
    @exclusivity(unchecked) private var cache: StatementCache
    private var savepointDepth = 0
    private var closed = false
    /// Waits for other connections' locks, and stops waiting when the job is cancelled.
    @usableFromInline let busy = BusyWaiter()
    private var busyContext: UnsafeMutableRawPointer?
    /// The commit observers' hooks, while anyone observes commits (``ObservationHub``).
    var observationHub: ObservationHub?
    /// The connection's one SQLite authorizer, shared by every rule that needs it.
    let authorizer: ConnectionAuthorizer
    /// The hook observations learn of row changes through.
    let rowChangeHook: RowChangeHook
    #if Tracing || Metrics
        /// Where the spans and metrics of this connection's statements go, `nil` for nowhere:
        /// ``SQLiteConfiguration/ownerTelemetry``. The pragmas that set the connection up are
        /// not recorded.
        let telemetry: Telemetry?
    #endif

    private init(db: OpaquePointer, path: String, configuration: SQLiteConfiguration) {
        let cacheCapacity = configuration.statementCacheCapacity
        self.db = db
        self.path = path
        self.rowChangeHook = .best(updateHookOnly: configuration.rowChangesThroughUpdateHookOnly)
        #if Tracing || Metrics
            self.telemetry = configuration.ownerTelemetry
        #endif
        authorizer = ConnectionAuthorizer(db: db)
        cache = StatementCache(capacity: cacheCapacity)
    }

    /// Opens `path` (`":memory:"` for a private in-memory database) and applies `configuration`.
    static func open(path: String, configuration: SQLiteConfiguration) throws -> Connection {
        guard !path.utf8.contains(0) else {
            throw SQLiteError(.invalidArgument, message: AdapterPaths.nulRefusal("the database path", path))
        }
        // Debian builds SQLite with URI file names on: "file:x.db?nolock=1" would turn locking
        // off. A path is a path here, so a relative one that looks like a URI gets "./".
        let fileName = path.lowercased().hasPrefix("file:") ? "./" + path : path
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        flags |= configuration.access.readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if configuration.access.create { flags |= SQLITE_OPEN_CREATE }
        var handle: OpaquePointer?
        let status = sqlite3_open_v2(fileName, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let error = sqliteError(status, handle, sql: nil)
            sqlite3_close_v2(handle)
            var message = "cannot open '\(path)': \(error.message)"
            if SQLiteError.Code.cannotOpen.matches(error.code) || error.code == .readOnly || error.code == .permission,
                let hint = openFailureHint(path: fileName, creates: configuration.access.create)
            {
                message += " (\(hint))"
            }
            throw SQLiteError(error.code, message: message)
        }
        let connection = Connection(db: handle, path: path, configuration: configuration)
        do {
            try connection.configure(configuration)
        } catch {
            connection.close()
            throw error
        }
        return connection
    }

    private func configure(_ configuration: SQLiteConfiguration) throws {
        sqlite3_extended_result_codes(db, 1)
        // Safe defaults, pinned rather than inherited from how the distribution built SQLite.
        for (option, value) in [
            (SQLITE_DBCONFIG_DEFENSIVE, Int32(1)),
            (SQLITE_DBCONFIG_DQS_DML, 0),
            (SQLITE_DBCONFIG_DQS_DDL, 0),
            (SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0),
            (SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0),
        ] {
            var current: Int32 = -1
            try sqliteCheck(csqlite_db_config_flag(db, option, value, &current), db)
        }
        busy.timeout = Int(configuration.busyTimeout.millisecondsRoundedUp(cappedAt: Int64(Int32.max)))
        let installed = installBusyHandler(db, busy)
        busyContext = installed.context
        try sqliteCheck(installed.status, db)
        if let mode = configuration.journalMode, !configuration.access.readOnly {
            var applied = ""
            try runUnrecorded("PRAGMA journal_mode = \(mode.name)", cancel: nil, bind: { _ in }) { statement in
                while try statement.step() {
                    if case .text(let text) = statement.value(at: 0) { applied = text }
                }
            }
            if path != ":memory:", !path.isEmpty, applied.uppercased() != mode.name {
                throw SQLiteError(
                    .error,
                    message: "journal_mode \(mode.name) was not applied to '\(path)' (SQLite kept \(applied)); WAL needs a local file system with shared memory"
                )
            }
        }
        try executeSetUp("PRAGMA synchronous = \(configuration.synchronous.name)")
        try executeSetUp("PRAGMA foreign_keys = \(configuration.foreignKeys ? "ON" : "OFF")")
    }

    /// Runs one statement of the connection's own set-up: not the program's, so not recorded.
    private func executeSetUp(_ sql: String) throws {
        try runUnrecorded(sql, cancel: nil, bind: { _ in }) { statement in while try statement.step() {} }
    }

    /// Finalizes every statement and closes the handle. Later calls do nothing.
    @discardableResult
    func close() -> Int32 {
        guard !closed else { return SQLITE_OK }
        closed = true
        observationHub?.close(SQLiteError(.closed, message: "the database '\(path)' was closed"))
        observationHub = nil
        cache.removeAll()
        uninstallBusyHandler(db, busyContext)
        busyContext = nil
        // _v2: if a statement escaped finalization, the handle closes once it is finalized.
        return sqlite3_close_v2(db)
    }

    /// Whether no transaction is open.
    var isAutocommit: Bool { sqlite3_get_autocommit(db) != 0 }

    // MARK: Statements

    /// Runs `body` with the statement for `sql`, bound to `bindings`; resets it afterwards.
    ///
    /// `cancel` is checked first, so a cancelled transaction stops before its next statement.
    func run<R>(
        _ sql: String,
        _ bindings: SQLiteBindings,
        cancel: CancelFlag?,
        _ body: (Statement) throws -> R
    ) throws -> R {
        try run(sql, cancel: cancel, bind: { (statement) throws(SQLiteError) in try statement.bind(bindings) }, body)
    }

    /// Runs `body` with the statement for `sql` after `bind` has bound its parameters; resets
    /// it afterwards.
    func run<R>(
        _ sql: String,
        cancel: CancelFlag?,
        bind: Binder,
        _ body: (Statement) throws -> R
    ) throws -> R {
        #if Tracing || Metrics
            if let telemetry {
                return try StatementTelemetry.record(telemetry, sql: sql, path: path) { try runUnrecorded(sql, cancel: cancel, bind: bind, body) }
            }
        #endif
        return try runUnrecorded(sql, cancel: cancel, bind: bind, body)
    }

    /// ``run(_:cancel:bind:_:)`` without a span or metrics.
    private func runUnrecorded<R>(
        _ sql: String,
        cancel: CancelFlag?,
        bind: Binder,
        _ body: (Statement) throws -> R
    ) throws -> R {
        try cancel?.check()
        // One reference for both cases: a `cached` optional beside `statement` costs a
        // retain and a release more on every run.
        let statement: Statement
        let wasCached: Bool
        if let cached = cache.statement(for: sql) {
            statement = cached
            wasCached = true
        } else {
            statement = try prepare(sql)
            wasCached = false
        }
        statement.inUse = true
        defer {
            statement.reset()
            statement.inUse = false
            if !wasCached {
                cache.insert(statement)
            }
        }
        try bind(statement)
        return try body(statement)
    }

    /// Runs one statement to completion.
    @discardableResult
    func execute(_ sql: String, _ bindings: SQLiteBindings, cancel: CancelFlag?) throws -> SQLiteChanges {
        try execute(sql, cancel: cancel, bind: { (statement) throws(SQLiteError) in try statement.bind(bindings) })
    }

    /// Runs one statement to completion after `bind` has bound its parameters.
    func execute(_ sql: String, cancel: CancelFlag?, bind: Binder) throws -> SQLiteChanges {
        try run(sql, cancel: cancel, bind: bind) { statement in
            // sqlite3_changes64 keeps the last INSERT/UPDATE/DELETE's count through DDL, SELECT
            // and PRAGMA: report 0 for those, seen as an unchanged total.
            let before = sqlite3_total_changes64(db)
            while try statement.step() {}
            let changed = sqlite3_total_changes64(db) != before ? Int(sqlite3_changes64(db)) : 0
            return SQLiteChanges(changes: changed, lastInsertRowID: sqlite3_last_insert_rowid(db))
        }
    }

    /// Steps through the rows of one statement, calling `body` with the statement and its
    /// columns on each row.
    func forEachRow(
        _ sql: String,
        cancel: CancelFlag?,
        bind: Binder,
        _ body: (_ statement: Statement, _ columns: SQLiteColumns) throws -> Void
    ) throws {
        try run(sql, cancel: cancel, bind: bind) { statement in
            guard try statement.step() else { return }
            // Read once, after the first step: that is where SQLite re-prepares a statement
            // after a schema change, so the columns cannot change on a later row.
            let columns = statement.columns
            repeat {
                try cancel?.check()
                try body(statement, columns)
            } while try statement.step()
        }
    }

    /// Runs every statement of `sql` in order, without bindings.
    func executeScript(_ sql: String, cancel: CancelFlag?) throws {
        try Self.checkNoNUL(sql)
        let wasAutocommit = isAutocommit
        do {
            try runScript(sql, cancel: cancel)
        } catch {
            if wasAutocommit { rollBackAfterFailure() }
            throw error
        }
    }

    private func runScript(_ sql: String, cancel: CancelFlag?) throws {
        var text = sql
        try text.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return }
            try base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { start in
                var next = start
                let end = start + bytes.count
                while next < end {
                    try cancel?.check()
                    var handle: OpaquePointer?
                    var tail: UnsafePointer<CChar>?
                    let status = sqlite3_prepare_v2(db, next, Int32(end - next), &handle, &tail)
                    let statementText = String(decoding: UnsafeRawBufferPointer(start: next, count: (tail ?? end) - next), as: UTF8.self)
                    try sqliteCheck(status, db, sql: statementText)
                    guard let handle else { break }  // only whitespace or comments left
                    let statement = Statement(handle: handle, sql: statementText, connection: self)
                    #if Tracing || Metrics
                        if let telemetry {
                            defer { statement.finalize() }
                            try StatementTelemetry.record(telemetry, sql: statementText, path: path) { while try statement.step() {} }
                            next = tail ?? end
                            continue
                        }
                    #endif
                    while try statement.step() {}
                    statement.finalize()
                    next = tail ?? end
                }
            }
        }
    }

    /// SQLite stops reading SQL at a NUL byte, even when told its length: refuse it rather than
    /// run half a statement or half a script.
    static func checkNoNUL(_ sql: String) throws {
        guard sql.utf8.contains(0) else { return }
        throw SQLiteError(.invalidUse, message: "the SQL contains a NUL byte; SQLite would ignore everything after it", sql: sql)
    }

    /// Rolls back a transaction left open by a failed job that began it, so later work is not
    /// silently swallowed by it. Retried once: an interrupt can fail the first attempt.
    func rollBackAfterFailure() {
        for _ in 0..<2 where !isAutocommit {
            _ = try? execute("ROLLBACK", .none, cancel: nil)
        }
    }

    /// Prepares the one statement in `sql`; more than one is an error.
    private func prepare(_ sql: String) throws -> Statement {
        try Self.checkNoNUL(sql)
        var text = sql
        return try text.withUTF8 { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else {
                throw SQLiteError(.invalidUse, message: "the SQL is empty", sql: sql)
            }
            return try base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { start in
                var handle: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let flags = UInt32(SQLITE_PREPARE_PERSISTENT)
                try sqliteCheck(sqlite3_prepare_v3(db, start, Int32(bytes.count), flags, &handle, &tail), db, sql: sql)
                guard let handle else {
                    throw SQLiteError(.invalidUse, message: "the SQL holds no statement, only whitespace or comments", sql: sql)
                }
                let statement = Statement(handle: handle, sql: sql, connection: self)
                if let tail, tail < start + bytes.count {
                    var rest: OpaquePointer?
                    let restStatus = sqlite3_prepare_v2(db, tail, Int32(start + bytes.count - tail), &rest, nil)
                    if let rest { sqlite3_finalize(rest) }
                    if restStatus != SQLITE_OK || rest != nil {
                        statement.finalize()
                        throw SQLiteError(
                            .invalidUse,
                            message: "the SQL holds more than one statement; run scripts with executeScript, or split them",
                            sql: sql
                        )
                    }
                }
                return statement
            }
        }
    }

    // MARK: Transactions

    /// Runs `body` in a transaction (a savepoint when one is already open): commits when it
    /// returns, rolls back when it throws or `cancel` is set.
    func transaction<T>(_ kind: SQLiteTransactionKind, cancel: CancelFlag?, _ body: () throws -> T) throws -> T {
        try cancel?.check()
        guard isAutocommit else { return try savepoint(cancel: cancel, body) }
        #if Tracing || Metrics
            if let telemetry {
                return try StatementTelemetry.recordTransaction(telemetry, kind: kind.keyword, path: path) {
                    try topLevelTransaction(kind, cancel: cancel, body)
                }
            }
        #endif
        return try topLevelTransaction(kind, cancel: cancel, body)
    }

    /// ``transaction(_:cancel:_:)`` when no transaction is open.
    private func topLevelTransaction<T>(_ kind: SQLiteTransactionKind, cancel: CancelFlag?, _ body: () throws -> T) throws -> T {
        try execute("BEGIN \(kind.keyword)", .none, cancel: nil)
        do {
            let value = try body()
            try cancel?.check()
            try execute("COMMIT", .none, cancel: nil)
            return value
        } catch {
            // An interrupted or failed statement may already have rolled the transaction back.
            rollBackAfterFailure()
            throw error
        }
    }

    private func savepoint<T>(cancel: CancelFlag?, _ body: () throws -> T) throws -> T {
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        let name = "promise_sqlite_\(savepointDepth)"
        try execute("SAVEPOINT \(name)", .none, cancel: nil)
        do {
            let value = try body()
            try cancel?.check()
            try execute("RELEASE \(name)", .none, cancel: nil)
            return value
        } catch {
            if !isAutocommit {
                // Without the rollback to the savepoint, the outer transaction would commit
                // the body's partial changes: undo the whole transaction instead.
                do {
                    try execute("ROLLBACK TO \(name)", .none, cancel: nil)
                    try execute("RELEASE \(name)", .none, cancel: nil)
                } catch {
                    rollBackAfterFailure()
                }
            }
            throw error
        }
    }
}
