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
}
