extension SQLiteConnection {
    /// Runs `body` in a savepoint inside the transaction that is open: released when `body`
    /// returns, rolled back to (and released) when it throws, so only `body`'s changes are
    /// undone and the surrounding transaction goes on. Savepoints nest to any depth; an outer
    /// rollback undoes released inner savepoints too.
    ///
    /// ```swift
    /// try db.savepoint { db in
    ///     try db.execute("INSERT INTO lines(order_id, sku) VALUES (?, ?)", [order, sku])
    /// }
    /// ```
    ///
    /// The same as ``transaction(_:)`` inside a transaction, but it never opens one: outside a
    /// transaction it throws instead, so a savepoint cannot silently become a transaction that
    /// commits on its own.
    ///
    /// If SQLite cannot roll back to the savepoint (an interrupted `ROLLBACK TO`), it rolls the
    /// whole transaction back rather than leave `body`'s partial changes in it; the surrounding
    /// transaction's next statement then throws ``SQLiteError/Code-swift.struct/abort``.
    ///
    /// - Parameter body: The statements to run together, on the connection thread.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws (after the rollback to the savepoint),
    ///   ``SQLiteError/Code-swift.struct/invalidUse`` when no transaction is open, or
    ///   `CancellationError` when the operation was cancelled.
    @discardableResult
    public func savepoint<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        guard isInTransaction else {
            throw SQLiteError(
                .invalidUse,
                message: "savepoint needs an open transaction; use it inside transaction { }, or call transaction(_:) to open one"
            )
        }
        return try transaction(body)
    }
}
