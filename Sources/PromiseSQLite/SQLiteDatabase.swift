/// An SQLite database connection whose statements run on a thread of its own, returning
/// promises.
///
/// ```swift
/// let db = SQLiteDatabase(path: "app.sqlite")
/// try await db.executeScript("CREATE TABLE IF NOT EXISTS users(id INTEGER PRIMARY KEY, name TEXT NOT NULL)").get()
/// let id = try await db.execute("INSERT INTO users(name) VALUES (?)", ["Ada"]).get().lastInsertRowID
/// let names = try await db.query(String.self, "SELECT name FROM users").get()
/// ```
///
/// Every operation is a job on the connection's own thread (never Swift's cooperative pool,
/// never the caller's thread), run in the order submitted. Jobs queued while the thread is
/// busy are all taken on its next turn, so a burst of small operations costs one wake-up, not
/// one each. A promise's callbacks run on the context its `then` names (the default context
/// when none), never on the connection thread.
///
/// **Cancellation.** Cancelling the promise of a queued operation means it never starts;
/// cancelling a running one interrupts it (`sqlite3_interrupt`) and rolls back its
/// transaction. `timeout` cancels, so `db.query(…).timeout(.seconds(2))` stops a runaway query.
///
/// **Closing.** ``close()`` lets queued work finish, then closes. A database that is
/// deallocated without being closed is closed the same way, on its thread.
///
/// The defaults are the safe ones: foreign keys on, double-quoted string literals off,
/// defensive mode on, a 5-second busy timeout, `synchronous` FULL; see ``SQLiteConfiguration``.
public final class SQLiteDatabase: Sendable {
    let owner: ConnectionOwner

    /// The path the database was opened with (`:memory:` for an in-memory database).
    public var path: String { owner.path }

    /// Opens the database at `path` on a new connection thread.
    ///
    /// The initializer only starts the thread; the file is opened (and, with the default
    /// ``SQLiteConfiguration/Access/readWriteCreate``, created) there right away, before the
    /// first operation runs, and the connection is configured. If opening fails, every
    /// operation is rejected with the reason, which names the path and what is wrong with it
    /// (a missing directory, a directory where the file should be, no permission). Use
    /// ``open(path:configuration:)`` to find out before the first operation.
    ///
    /// - Parameters:
    ///   - path: The database file. `":memory:"` is a private in-memory database; URI file
    ///     names are not interpreted.
    ///   - configuration: How to open and set up the connection.
    public init(path: String, configuration: SQLiteConfiguration = SQLiteConfiguration()) {
        owner = ConnectionOwner(path: path, configuration: configuration)
    }

    /// A new private in-memory database, gone when closed.
    ///
    /// - Parameter configuration: How to set up the connection.
    /// - Returns: The database.
    public static func inMemory(configuration: SQLiteConfiguration = SQLiteConfiguration()) -> SQLiteDatabase {
        SQLiteDatabase(path: ":memory:", configuration: configuration)
    }

    /// Opens the database at `path` and fulfils once it is open and configured.
    ///
    /// - Parameters:
    ///   - path: The database file, or `":memory:"`.
    ///   - configuration: How to open and set up the connection.
    /// - Returns: A promise of the open database, rejected with ``SQLiteError`` when the file
    ///   cannot be opened (missing without ``SQLiteConfiguration/Access/readWriteCreate``, not a
    ///   database, a directory, no permission).
    public static func open(path: String, configuration: SQLiteConfiguration = SQLiteConfiguration()) -> Promise<SQLiteDatabase> {
        let database = SQLiteDatabase(path: path, configuration: configuration)
        return database.owner.submit { _, _ in database }
    }

    deinit {
        // Only enqueues the close; the connection thread does it. No C call from deinit.
        _ = owner.close()
    }

    /// Runs one statement.
    ///
    /// - Parameters:
    ///   - sql: One SQL statement; `?` or `:name` marks a parameter. Two statements are an
    ///     error (use ``executeScript(_:)``).
    ///   - bindings: The parameters' values.
    /// - Returns: A promise of the rows changed and the last insert row id, rejected with
    ///   ``SQLiteError``.
    public func execute(_ sql: String, _ bindings: SQLiteBindings = .none) -> Promise<SQLiteChanges> {
        owner.submit { connection, cancel in try connection.execute(sql, bindings, cancel: cancel) }
    }

    /// Runs every statement in `sql`, in order, without parameters: a schema, a migration.
    ///
    /// - Parameter sql: The statements, separated by `;`.
    /// - Returns: A promise rejected with ``SQLiteError`` naming the statement that failed. The
    ///   statements before it stay applied, unless the script opened a transaction of its own
    ///   (`BEGIN` without its `COMMIT`): that one is rolled back.
    public func executeScript(_ sql: String) -> Promise<Void> {
        owner.submit { connection, cancel in try connection.executeScript(sql, cancel: cancel) }
    }

    /// Runs one query and collects its rows.
    ///
    /// - Parameters:
    ///   - sql: One SQL statement.
    ///   - bindings: The parameters' values.
    /// - Returns: A promise of the rows.
    public func query(_ sql: String, _ bindings: SQLiteBindings = .none) -> Promise<[SQLiteRow]> {
        owner.submit { connection, cancel in
            var rows = [SQLiteRow]()
            try connection.forEachRow(sql, bindings, cancel: cancel) { rows.append($0.row()) }
            return rows
        }
    }

    /// Runs one query and decodes each row into `T`: a keyed type's properties by column name,
    /// a single value (`Int`, `String`, a raw-value enum) from the first column.
    ///
    /// - Parameters:
    ///   - type: The type of each row.
    ///   - sql: One SQL statement.
    ///   - bindings: The parameters' values.
    /// - Returns: A promise of the decoded rows, rejected with ``SQLiteError`` or a
    ///   `DecodingError` naming the column that did not fit.
    public func query<T: Decodable & Sendable>(_ type: T.Type, _ sql: String, _ bindings: SQLiteBindings = .none) -> Promise<[T]> {
        owner.submit { connection, cancel in try connection.decodeAll(T.self, sql, bindings, cancel: cancel) }
    }

    /// Runs one query and returns its first row, or `nil` when it has none.
    ///
    /// - Parameters:
    ///   - sql: One SQL statement.
    ///   - bindings: The parameters' values.
    /// - Returns: A promise of the first row or `nil`.
    public func queryFirst(_ sql: String, _ bindings: SQLiteBindings = .none) -> Promise<SQLiteRow?> {
        owner.submit { connection, cancel in
            try connection.run(sql, bindings, cancel: cancel) { try $0.step() ? $0.row() : nil }
        }
    }

    /// Runs one query and decodes its first row into `T`, or gives `nil` when it has none.
    ///
    /// - Parameters:
    ///   - type: The type of the row.
    ///   - sql: One SQL statement.
    ///   - bindings: The parameters' values.
    /// - Returns: A promise of the decoded row or `nil`.
    public func queryFirst<T: Decodable & Sendable>(_ type: T.Type, _ sql: String, _ bindings: SQLiteBindings = .none) -> Promise<T?> {
        owner.submit { connection, cancel in try connection.decodeFirst(T.self, sql, bindings, cancel: cancel) }
    }

    /// Runs one query and gives the first column of its first row: `SELECT count(*) …`.
    ///
    /// - Parameters:
    ///   - type: The column's type.
    ///   - sql: One SQL statement.
    ///   - bindings: The parameters' values.
    /// - Returns: A promise of the value, `nil` for no row or `NULL`; rejected with
    ///   ``SQLiteError/Code-swift.struct/mismatch`` when it does not convert to `T`.
    public func scalar<T: SQLiteValueConvertible>(_ type: T.Type, _ sql: String, _ bindings: SQLiteBindings = .none) -> Promise<T?> {
        owner.submit { connection, cancel in try connection.scalar(T.self, sql, bindings, cancel: cancel) }
    }

    /// Runs `body` in a transaction on the connection thread: committed when `body` returns,
    /// rolled back when it throws or the promise is cancelled. Nested calls on the
    /// ``SQLiteConnection`` become savepoints.
    ///
    /// ```swift
    /// let total = db.transaction { db in
    ///     try db.execute("UPDATE accounts SET balance = balance - ? WHERE id = ?", [100, 1])
    ///     try db.execute("UPDATE accounts SET balance = balance + ? WHERE id = ?", [100, 2])
    ///     return try db.scalar(Int.self, "SELECT sum(balance) FROM accounts") ?? 0
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - kind: How the transaction takes its locks; ``SQLiteTransactionKind/immediate`` (the
    ///     default) takes the write lock at once, which is what a transaction that writes needs.
    ///   - body: The statements, run synchronously on the connection thread. Keep it short and
    ///     free of waits: the connection runs nothing else meanwhile.
    /// - Returns: A promise of what `body` returns; rejected with what it throws (after the
    ///   rollback), with ``SQLiteError`` when `COMMIT` fails or a transaction is already open
    ///   on the connection (``SQLiteError/Code-swift.struct/invalidUse``), or with
    ///   `CancellationError` when a cancellation stopped it before `COMMIT`. A cancellation
    ///   that arrives while `COMMIT` is already running cannot stop it, and the promise is
    ///   then fulfilled: `CancellationError` always means nothing was committed.
    public func transaction<T: Sendable>(
        _ kind: SQLiteTransactionKind = .immediate,
        _ body: @escaping @Sendable (SQLiteConnection) throws -> T
    ) -> Promise<T> {
        owner.submit { connection, cancel in
            guard connection.isAutocommit else {
                throw SQLiteError(
                    .invalidUse,
                    message: "a transaction is already open on this connection (a BEGIN run with execute, without its COMMIT or ROLLBACK); end it first"
                )
            }
            let handle = SQLiteConnection(connection, cancel: cancel, transactional: true)
            defer { handle.invalidate() }
            return try connection.transaction(kind, cancel: cancel) { try body(handle) }
        }
    }

    /// Runs `body` with the connection inside a deferred (read) transaction: every query sees
    /// the same snapshot of the database.
    ///
    /// - Parameter body: The reads, run synchronously on the connection thread.
    /// - Returns: A promise of what `body` returns.
    public func read<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) -> Promise<T> {
        transaction(.deferred, body)
    }

    /// Lets queued operations finish, then finalizes every statement and closes the connection
    /// (`sqlite3_close_v2`). Operations submitted afterwards are rejected with
    /// ``SQLiteError/Code-swift.struct/closed``.
    ///
    /// - Returns: A promise fulfilled once the connection is closed; every call returns the same.
    @discardableResult
    public func close() -> Promise<Void> {
        owner.close()
    }
}
