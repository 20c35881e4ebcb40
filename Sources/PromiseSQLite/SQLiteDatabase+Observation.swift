public import PromiseCore

extension SQLiteDatabase {
    /// A promise of the next transaction committed on this connection that changes one of
    /// `tables`.
    ///
    /// ```swift
    /// let changed = db.nextCommit(touching: ["users"])
    /// try await db.execute("INSERT INTO users(name) VALUES (?)", ["Ada"]).get()
    /// let commit = try await changed.get()    // commit.tables == ["users"]
    /// ```
    ///
    /// The observation starts as a job, after the operations queued before this call: every
    /// operation queued after it is seen. Rolled-back transactions, and the rows of a savepoint
    /// rolled back to, are not reported. The promise is fulfilled on the default context once
    /// the commit is complete; SQLite's hooks only record what changed. See
    /// <doc:ChangeNotifications> for which hook sees the rows (`WITHOUT ROWID` tables are seen
    /// only where SQLite has its pre-update hook).
    ///
    /// - Parameter tables: Table names, compared without regard to ASCII case; empty (the
    ///   default) for a commit that changes any table.
    /// - Returns: A promise of the commit. Cancelling it ends the observation. It is rejected
    ///   with ``SQLiteError/Code-swift.struct/closed`` when the database closes first (or
    ///   was closed), and with the reason when it could not be opened.
    public func nextCommit(touching tables: [String] = []) -> Promise<SQLiteCommit> {
        let promise = Promise<SQLiteCommit>.pending(resolvedOn: nil)
        let observer = CommitObserver(
            tables: tables, once: true,
            deliver: { commit in
                // Out of SQLite's hook before any callback of the promise runs.
                AdapterSupport.submit(Promises.defaultContext) { promise.fulfill(commit) }
            },
            close: { error in
                AdapterSupport.submit(Promises.defaultContext) { promise.reject(error) }
            })
        if let unregister = observe(observer) {
            promise.onCancel(unregister)
        }
        return promise
    }

    /// Every transaction committed on this connection from now on that changes one of
    /// `tables`, as an `AsyncSequence`.
    ///
    /// ```swift
    /// let commits = db.commits(touching: ["orders"])
    /// for await commit in commits {
    ///     print("orders changed in \(commit.transactions) transaction(s)")
    /// }
    /// ```
    ///
    /// Commits are collected from this call on (after the operations queued before it), even
    /// before iteration starts. While the consumer is busy, commits that arrive are merged into
    /// one ``SQLiteCommit`` (its ``SQLiteCommit/transactions`` counts them), so a slow consumer
    /// never holds more than one report. The sequence ends when the database closes, when the
    /// task iterating it is cancelled, or with ``SQLiteCommits/cancel()``; the observation is
    /// removed then, or once the sequence and its iterator are released.
    ///
    /// - Parameter tables: Table names, compared without regard to ASCII case; empty (the
    ///   default) for every commit that changes a table.
    /// - Returns: The sequence; one consumer at a time may iterate it.
    public func commits(touching tables: [String] = []) -> SQLiteCommits {
        let inbox = ObservationInbox(MergedCommits())
        let observer = CommitObserver(
            tables: tables, once: false,
            deliver: { [weak inbox] commit in inbox?.push(commit) },
            close: { [weak inbox] _ in inbox?.close() })
        if let unregister = observe(observer) {
            inbox.setUnregister(unregister)
        }
        return SQLiteCommits(inbox: inbox)
    }

    /// Every transaction committed or rolled back on this connection from now on that changed
    /// one of `tables`, row by row, as an `AsyncSequence`.
    ///
    /// ```swift
    /// let events = db.transactionEvents(touching: ["orders"])
    /// for await event in events {
    ///     switch event {
    ///     case .committed(let commit):
    ///         for change in commit.changes { print(change.operation, change.table, change.key) }
    ///     case .rolledBack(let tables):
    ///         print("rolled back: \(tables.sorted())")
    ///     case .missed(let missed):
    ///         print("fell behind by \(missed.commits) commits; reading orders again")
    ///     }
    /// }
    /// ```
    ///
    /// Events are collected from this call on (after the operations queued before it), even
    /// before iteration starts, and arrive in the order the transactions ended:
    /// - ``SQLiteTransactionEvent/committed(_:)`` for each commit that changed rows of interest
    ///   (their changes in order, filtered by `tables` and `operations`) or the schema. Rows of a
    ///   savepoint rolled back to, and of a statement that failed and that SQLite undid, are not
    ///   in it.
    /// - ``SQLiteTransactionEvent/rolledBack(tables:)`` for each rollback that discarded changes
    ///   to tables of interest, or to the schema.
    /// - ``SQLiteTransactionEvent/missed(_:)`` when the consumer fell behind: past
    ///   `bufferLimit` events, or `bufferLimit` listed row changes, waiting for it, further
    ///   transactions are counted into one such event instead, which the consumer gets after
    ///   the ones kept.
    ///
    /// One transaction lists at most `bufferLimit` changes; the rest are counted in
    /// ``SQLiteCommittedChanges/unlistedChanges``. So a consumer never holds more than about
    /// `bufferLimit` changes, however slow it is or however large a transaction. The sequence
    /// ends when the database closes, when the task iterating it is cancelled, or with
    /// ``SQLiteTransactionEvents/cancel()``; the observation is removed then, or once the
    /// sequence and its iterator are released. See <doc:ChangeNotifications> for which hook sees
    /// the rows: `WITHOUT ROWID` tables and the rows `REPLACE` deletes are reported only where
    /// SQLite has its pre-update hook.
    ///
    /// - Parameters:
    ///   - tables: Table names, compared without regard to ASCII case; empty (the default) for
    ///     every table.
    ///   - operations: The operations reported; every one by default.
    ///   - bufferLimit: The most events, and the most row changes, kept for a consumer that is
    ///     behind, and the most changes one event lists; at least 1 (a smaller value counts
    ///     as 1). 10 000 by default.
    /// - Returns: The sequence; one consumer at a time may iterate it.
    public func transactionEvents(
        touching tables: [String] = [], operations: SQLiteChangeOperations = .all, bufferLimit: Int = 10_000
    ) -> SQLiteTransactionEvents {
        let limit = max(1, bufferLimit)
        let inbox = ObservationInbox(TransactionEventQueue(limit: limit))
        let observer = ChangeObserver(
            tables: tables, operations: operations, limit: limit,
            deliver: { [weak inbox] event in inbox?.push(event) },
            close: { [weak inbox] _ in inbox?.close() })
        if let unregister = observe(register: { $0.add(observer) }, unregister: { $0.remove(observer) }, close: observer.close) {
            inbox.setUnregister(unregister)
        }
        return SQLiteTransactionEvents(inbox: inbox)
    }

    /// Registers `observer` on the connection thread.
    ///
    /// - Returns: What removes it again; `nil` when the database takes no more work, and the
    ///   observer was closed.
    func observe(_ observer: CommitObserver) -> (@Sendable () -> Void)? {
        observe(register: { $0.add(observer) }, unregister: { $0.remove(observer) }, close: observer.close)
    }

    /// Registers an observer on the connection thread: `register` adds it to the connection's
    /// hub (created for the first observer), `unregister` removes it, `close` ends it when the
    /// connection cannot take it.
    ///
    /// - Returns: What removes it again; `nil` when the database takes no more work, and the
    ///   observer was closed.
    private func observe(
        register: @escaping @Sendable (ObservationHub) -> Void, unregister: @escaping @Sendable (ObservationHub) -> Void,
        close: @escaping @Sendable (SQLiteError) -> Void
    ) -> (@Sendable () -> Void)? {
        let owner = self.owner
        let queued = owner.enqueue(settling: nil) { [weak owner] connection, openError in
            guard let connection, let owner else {
                close(Self.notOpen(openError))
                return
            }
            let hub =
                connection.observationHub
                ?? ObservationHub(db: connection.db, authorizer: connection.authorizer, rowHook: connection.rowChangeHook) { [weak owner] in
                    guard let owner else { return false }
                    let settle = owner.enqueue(settling: nil) { connection, _ in connection?.observationHub?.settleAfterJob() }
                    if case .success = settle { return true }
                    return false
                }
            connection.observationHub = hub
            register(hub)
        }
        if case .failure(let refusal) = queued {
            close(refusal)
            return nil
        }
        return { [weak owner] in
            _ = owner?.enqueue(settling: nil) { connection, _ in
                if let hub = connection?.observationHub { unregister(hub) }
            }
        }
    }
}
