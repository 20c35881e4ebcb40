public import PromiseCore

extension SQLiteDatabase {
    /// Copies this database, as it is when the copy ends, to the file at `path` with SQLite's
    /// online backup (`sqlite3_backup_step`), `pagesPerStep` pages at a time.
    ///
    /// ```swift
    /// let copied = db.backup(to: "/var/backups/app.sqlite", pagesPerStep: 1024) { progress in
    ///     print("backup: \(progress)")
    /// }
    /// ```
    ///
    /// Each step is one operation on this database's connection thread: other operations
    /// submitted meanwhile run between steps, so the database stays usable during a long copy.
    /// A change committed through this connection between steps is copied along; one from
    /// another connection or process makes SQLite start the copy over.
    ///
    /// The copy is written to a temporary file beside `path` (`.NAME.backup…`, without a
    /// journal), flushed to disk (`fsync`), renamed to `path` in one step, and the directory
    /// flushed. So when the promise is fulfilled the file is complete and durable, and when it
    /// is rejected or the process dies, nothing was written under `path`: a file that was
    /// there is untouched, and no temporary file stays behind (after a crash one may; its name
    /// starts with `.NAME.backup`). A replaced file's owner and permissions are kept. A
    /// database that another connection has open at `path` keeps reading the file it had
    /// open; to copy into an open database, use ``backup(to:pagesPerStep:on:progress:)-(SQLiteDatabase,_,_,_)``.
    ///
    /// - Parameters:
    ///   - path: The backup file to create or replace. Its directory must exist.
    ///   - pagesPerStep: Pages copied per step, at least 1; larger values copy faster and hold
    ///     the connection longer per step. Values beyond `Int32.max` mean "all in one step".
    ///   - context: Where `progress` runs; `nil` means `Promises.defaultContext`.
    ///   - progress: Called after each step with how far the copy has come, the last time
    ///     with ``SQLiteBackupProgress/isComplete`` set. Reports delivered on a serial
    ///     context arrive there before callbacks the promise's `then` queues on it.
    /// - Returns: A promise fulfilled once the copy is in place and durable. Rejected with
    ///   ``SQLiteError``: ``SQLiteError/Code-swift.struct/invalidArgument`` for a step size
    ///   under 1, a path holding NUL, a directory at `path`, or `path` naming this database's
    ///   own file; ``SQLiteError/Code-swift.struct/cannotOpen`` when the temporary file cannot
    ///   be created (a missing directory, no permission), ``SQLiteError/Code-swift.struct/busy``
    ///   when another connection holds the source's lock past the busy timeout or this
    ///   connection holds an open write transaction (`execute("BEGIN")`),
    ///   ``SQLiteError/Code-swift.struct/closed`` when this database closes first. Cancelling
    ///   stops the copy before its next step and rejects with `CancellationError` once the
    ///   temporary file is removed.
    public func backup(
        to path: String,
        pagesPerStep: Int = 1024,
        on context: (any ExecutionContext)? = nil,
        progress: (@Sendable (SQLiteBackupProgress) -> Void)? = nil
    ) -> Promise<Void> {
        BackupRun.toFile(from: self, path: path, pagesPerStep: pagesPerStep, context: context, progress: progress)
    }

    /// Copies this database into `destination`, replacing its contents, with SQLite's online
    /// backup, `pagesPerStep` pages at a time.
    ///
    /// ```swift
    /// let memory = SQLiteDatabase.inMemory()
    /// try await db.backup(to: memory).get()   // a private snapshot to query
    /// ```
    ///
    /// As with the file form, each step is one operation on this database's thread and other
    /// work on it runs between steps. `destination` is the backup's for the whole copy, as
    /// SQLite requires: its thread waits for the copy to end, and operations submitted to it
    /// meanwhile run afterwards. The copy is one write transaction on `destination`: when
    /// the promise is fulfilled it is committed (as durable as `destination`'s
    /// ``SQLiteConfiguration/synchronous`` makes it); when it is rejected, `destination` holds
    /// what it held before.
    ///
    /// A database copied into cannot take part in another backup at the same time, and a
    /// database being copied cannot be copied into: such a backup is refused with
    /// ``SQLiteError/Code-swift.struct/invalidUse`` instead of waiting on itself.
    ///
    /// - Parameters:
    ///   - destination: The database to overwrite; not this one.
    ///   - pagesPerStep: Pages copied per step, at least 1.
    ///   - context: Where `progress` runs; `nil` means `Promises.defaultContext`.
    ///   - progress: Called after each step with how far the copy has come.
    /// - Returns: A promise fulfilled once the copy is committed. Rejected with
    ///   ``SQLiteError`` (``SQLiteError/Code-swift.struct/invalidArgument`` for a step size
    ///   under 1 or `destination` being this database; ``SQLiteError/Code-swift.struct/readOnly``
    ///   when SQLite cannot copy into it, such as a WAL database with another page size), or
    ///   with `CancellationError` when cancelled before the last step.
    public func backup(
        to destination: SQLiteDatabase,
        pagesPerStep: Int = 1024,
        on context: (any ExecutionContext)? = nil,
        progress: (@Sendable (SQLiteBackupProgress) -> Void)? = nil
    ) -> Promise<Void> {
        BackupRun.toDatabase(from: self, to: destination, pagesPerStep: pagesPerStep, context: context, progress: progress)
    }
}
