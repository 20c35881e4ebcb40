public import PromiseCore

extension SQLiteDatabase {
    /// Registers a Swift function for this database's SQL, replacing one of the same name and
    /// argument count.
    ///
    /// The registration is a job like any operation: it runs after the work queued before it,
    /// and every operation queued after it can call the function. SQLite keeps the function
    /// (and so everything its closure captures) until it is replaced or removed, or the
    /// database closes.
    ///
    /// - Parameter function: The function.
    /// - Returns: A promise fulfilled once the function is registered; rejected with
    ///   ``SQLiteError/Code-swift.struct/invalidArgument`` for a name that is empty, holds a
    ///   NUL byte or is longer than 255 bytes, or an argument count outside 0…127, and with
    ///   ``SQLiteError/Code-swift.struct/closed`` once the database is closed.
    public func add(function: SQLiteFunction) -> Promise<Void> {
        submit { connection, _ in try connection.add(function) }
    }

    /// Removes the function of `function`'s name and argument count; SQL that calls it
    /// afterwards fails to prepare ("no such function"). Removing a function that is not
    /// registered does nothing.
    ///
    /// - Parameter function: The function, or one of the same name and argument count.
    /// - Returns: A promise fulfilled once it is removed.
    public func remove(function: SQLiteFunction) -> Promise<Void> {
        submit { connection, _ in try connection.remove(function) }
    }

    /// Registers a Swift collation for `COLLATE` in this database's SQL, replacing one of the
    /// same name.
    ///
    /// - Parameter collation: The collation.
    /// - Returns: A promise fulfilled once it is registered; rejected with
    ///   ``SQLiteError/Code-swift.struct/invalidArgument`` for a name SQLite cannot take.
    public func add(collation: SQLiteCollation) -> Promise<Void> {
        submit { connection, _ in try connection.add(collation) }
    }

    /// Removes the collation of `collation`'s name; SQL that uses it afterwards fails to
    /// prepare ("no such collation sequence").
    ///
    /// - Parameter collation: The collation, or one of the same name.
    /// - Returns: A promise fulfilled once it is removed.
    public func remove(collation: SQLiteCollation) -> Promise<Void> {
        submit { connection, _ in try connection.remove(collation) }
    }
}
