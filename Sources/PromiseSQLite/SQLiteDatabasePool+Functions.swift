public import PromiseCore

extension SQLiteDatabasePool {
    /// Registers a Swift function on every connection of the pool: the writer and each reader.
    /// See ``SQLiteDatabase/add(function:)``.
    ///
    /// - Parameter function: The function.
    /// - Returns: A promise fulfilled once every connection has it; rejected with the first
    ///   connection's error otherwise.
    public func add(function: SQLiteFunction) -> Promise<Void> {
        onEveryConnection { $0.add(function: function) }
    }

    /// Removes a function from every connection of the pool. See
    /// ``SQLiteDatabase/remove(function:)``.
    ///
    /// - Parameter function: The function, or one of the same name and argument count.
    /// - Returns: A promise fulfilled once no connection has it.
    public func remove(function: SQLiteFunction) -> Promise<Void> {
        onEveryConnection { $0.remove(function: function) }
    }

    /// Registers a Swift collation on every connection of the pool. See
    /// ``SQLiteDatabase/add(collation:)``.
    ///
    /// - Parameter collation: The collation.
    /// - Returns: A promise fulfilled once every connection has it.
    public func add(collation: SQLiteCollation) -> Promise<Void> {
        onEveryConnection { $0.add(collation: collation) }
    }

    /// Removes a collation from every connection of the pool. See
    /// ``SQLiteDatabase/remove(collation:)``.
    ///
    /// - Parameter collation: The collation, or one of the same name.
    /// - Returns: A promise fulfilled once no connection has it.
    public func remove(collation: SQLiteCollation) -> Promise<Void> {
        onEveryConnection { $0.remove(collation: collation) }
    }

    /// Runs `body` on the writer and on each reader, and waits for all of them.
    private func onEveryConnection(_ body: (SQLiteDatabase) -> Promise<Void>) -> Promise<Void> {
        all(([writer] + readers).map(body)).then(on: .inline) { _ in }
    }
}
