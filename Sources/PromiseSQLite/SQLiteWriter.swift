public import PromiseCore

/// Runs SQLite statements that write, and returns promises: ``SQLiteDatabase`` on its
/// connection, ``SQLiteDatabasePool`` on its single writer.
///
/// As with ``SQLiteReader``, each method is written once, as a call to the
/// ``SQLiteConnection`` method of the same name inside ``writeWithoutTransaction(_:)``.
public protocol SQLiteWriter: SQLiteReader {
    /// Runs `body` with the writing connection, on its thread, outside any transaction `body`
    /// does not open itself: each statement commits on its own.
    ///
    /// - Parameter body: The statements, run synchronously on the connection thread.
    /// - Returns: A promise of what `body` returns, rejected with what it throws.
    func writeWithoutTransaction<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) -> Promise<T>

    /// Runs `body` in a transaction on the writing connection: committed when `body` returns,
    /// rolled back when it throws or the promise is cancelled.
    ///
    /// - Parameters:
    ///   - kind: How the transaction takes its locks.
    ///   - body: The statements, run synchronously on the connection thread.
    /// - Returns: A promise of what `body` returns.
    func transaction<T: Sendable>(_ kind: SQLiteTransactionKind, _ body: @escaping @Sendable (SQLiteConnection) throws -> T) -> Promise<T>
}

extension SQLiteWriter {
    /// Runs one statement.
    ///
    /// - Parameters:
    ///   - sql: One SQL statement; `?` or `:name` marks a parameter. Two statements are an
    ///     error (use ``executeScript(_:)``).
    ///   - bindings: The parameters' values.
    /// - Returns: A promise of the rows changed and the last insert row id, rejected with
    ///   ``SQLiteError``.
    @inlinable
    public func execute(_ sql: String, _ bindings: SQLiteBindings = .none) -> Promise<SQLiteChanges> {
        writeWithoutTransaction { try $0.execute(sql, bindings) }
    }

    /// Runs every statement in `sql`, in order, without parameters: a schema, a migration.
    ///
    /// - Parameter sql: The statements, separated by `;`.
    /// - Returns: A promise rejected with ``SQLiteError`` naming the statement that failed. The
    ///   statements before it stay applied, unless the script opened a transaction of its own
    ///   (`BEGIN` without its `COMMIT`): that one is rolled back.
    @inlinable
    public func executeScript(_ sql: String) -> Promise<Void> {
        writeWithoutTransaction { try $0.executeScript(sql) }
    }
}
