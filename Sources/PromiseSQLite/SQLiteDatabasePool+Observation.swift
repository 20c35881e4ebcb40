public import PromiseCore

extension SQLiteDatabasePool {
    /// A promise of the next transaction committed through this pool that changes one of
    /// `tables`. Every write of a pool runs on its ``writer``, so every commit is seen there;
    /// see ``SQLiteDatabase/nextCommit(touching:)``.
    ///
    /// - Parameter tables: Table names; empty for any table.
    /// - Returns: A promise of the commit.
    public func nextCommit(touching tables: [String] = []) -> Promise<SQLiteCommit> {
        writer.nextCommit(touching: tables)
    }

    /// Every transaction committed through this pool from now on that changes one of
    /// `tables`; see ``SQLiteDatabase/commits(touching:)``.
    ///
    /// - Parameter tables: Table names; empty for any table.
    /// - Returns: The sequence.
    public func commits(touching tables: [String] = []) -> SQLiteCommits {
        writer.commits(touching: tables)
    }

    /// Every transaction committed or rolled back through this pool from now on that changed
    /// one of `tables`, row by row. Every write of a pool runs on its ``writer``, so every
    /// transaction is seen there; see
    /// ``SQLiteDatabase/transactionEvents(touching:operations:bufferLimit:)``.
    ///
    /// - Parameters:
    ///   - tables: Table names; empty for every table.
    ///   - operations: The operations reported.
    ///   - bufferLimit: The most events and row changes kept for a consumer that is behind.
    /// - Returns: The sequence.
    public func transactionEvents(
        touching tables: [String] = [], operations: SQLiteChangeOperations = .all, bufferLimit: Int = 10_000
    ) -> SQLiteTransactionEvents {
        writer.transactionEvents(touching: tables, operations: operations, bufferLimit: bufferLimit)
    }
}
