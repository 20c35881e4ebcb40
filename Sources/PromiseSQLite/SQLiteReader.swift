public import PromiseCore

/// Runs SQLite queries and returns promises: ``SQLiteDatabase`` on its connection,
/// ``SQLiteDatabasePool`` on one of its readers.
///
/// Every query method is written once, here, as a call to the ``SQLiteConnection`` method of
/// the same name inside ``readWithoutTransaction(_:)``; the connection applies its checks
/// (cancellation, the transaction guard) to every one alike. Write generic code against this
/// protocol to take either a database or a pool:
///
/// ```swift
/// func names(in db: some SQLiteReader) -> Promise<[String]> {
///     db.query(String.self, "SELECT name FROM users ORDER BY name")
/// }
/// ```
public protocol SQLiteReader: Sendable {
    /// Runs `body` with a connection, on that connection's thread, outside any transaction
    /// `body` does not open itself: each statement sees the latest committed state.
    ///
    /// - Parameter body: The statements, run synchronously on the connection thread. Keep it
    ///   short: the connection runs nothing else meanwhile.
    /// - Returns: A promise of what `body` returns, rejected with what it throws.
    func readWithoutTransaction<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) -> Promise<T>

    /// Runs `body` with a connection inside a deferred (read) transaction: every query sees
    /// the same snapshot of the database.
    ///
    /// - Parameter body: The reads, run synchronously on the connection thread.
    /// - Returns: A promise of what `body` returns.
    func read<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) -> Promise<T>
}

extension SQLiteReader {
    /// Runs one query and collects its rows.
    ///
    /// - Parameters:
    ///   - sql: One SQL statement.
    ///   - bindings: The parameters' values.
    /// - Returns: A promise of the rows, rejected with ``SQLiteError``.
    @inlinable
    public func query(_ sql: String, _ bindings: SQLiteBindings = .none) -> Promise<[SQLiteRow]> {
        readWithoutTransaction { try $0.query(sql, bindings) }
    }

    /// Runs one query and decodes each row into `T`: a keyed type's properties by column name,
    /// a single value (`Int`, `String`, a raw-value enum) from the first column.
    ///
    /// - Parameters:
    ///   - type: The type of each row.
    ///   - sql: One SQL statement.
    ///   - bindings: The parameters' values.
    /// - Returns: A promise of the decoded rows, rejected with ``SQLiteError``; a row that
    ///   does not decode is ``SQLiteError/Code-swift.struct/mismatch`` (``SQLiteError/Code-swift.struct/range``
    ///   for a missing column, ``SQLiteError/Code-swift.struct/invalidUTF8`` for text that is not
    ///   UTF-8) naming the column and the statement, with the `DecodingError` as
    ///   ``SQLiteError/underlying``.
    @inlinable
    public func query<T: Decodable & Sendable>(_ type: T.Type, _ sql: String, _ bindings: SQLiteBindings = .none) -> Promise<[T]> {
        readWithoutTransaction { try $0.query(T.self, sql, bindings) }
    }

    /// Runs one query and returns its first row, or `nil` when it has none.
    ///
    /// - Parameters:
    ///   - sql: One SQL statement.
    ///   - bindings: The parameters' values.
    /// - Returns: A promise of the first row or `nil`.
    @inlinable
    public func queryFirst(_ sql: String, _ bindings: SQLiteBindings = .none) -> Promise<SQLiteRow?> {
        readWithoutTransaction { try $0.queryFirst(sql, bindings) }
    }

    /// Runs one query and decodes its first row into `T`, or gives `nil` when it has none.
    ///
    /// - Parameters:
    ///   - type: The type of the row.
    ///   - sql: One SQL statement.
    ///   - bindings: The parameters' values.
    /// - Returns: A promise of the decoded row or `nil`.
    @inlinable
    public func queryFirst<T: Decodable & Sendable>(_ type: T.Type, _ sql: String, _ bindings: SQLiteBindings = .none) -> Promise<T?> {
        readWithoutTransaction { try $0.queryFirst(T.self, sql, bindings) }
    }

    /// Runs one query and gives the first column of its first row: `SELECT count(*) …`.
    ///
    /// - Parameters:
    ///   - type: The column's type.
    ///   - sql: One SQL statement.
    ///   - bindings: The parameters' values.
    /// - Returns: A promise of the value, `nil` for no row or `NULL`; rejected with
    ///   ``SQLiteError/Code-swift.struct/mismatch`` when it does not convert to `T`.
    @inlinable
    public func scalar<T: SQLiteValueConvertible>(_ type: T.Type, _ sql: String, _ bindings: SQLiteBindings = .none) -> Promise<T?> {
        readWithoutTransaction { try $0.scalar(T.self, sql, bindings) }
    }
}
