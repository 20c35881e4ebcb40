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
    /// <doc:ChangeNotifications> for what the hooks cannot see (`WITHOUT ROWID` tables).
    ///
    /// - Parameter tables: Table names, compared without regard to ASCII case; empty (the
    ///   default) for a commit that changes any table.
    /// - Returns: A promise of the commit. Cancelling it ends the observation. It is rejected
    ///   with ``SQLiteError/Code-swift.struct/closed`` when the database closes first (or
    ///   was closed), and with the reason when it could not be opened.
    public func nextCommit(touching tables: [String] = []) -> Promise<SQLiteCommit> {
        let promise = Promise<SQLiteCommit>.pending()
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
        let inbox = CommitInbox()
        let observer = CommitObserver(
            tables: tables, once: false,
            deliver: { [weak inbox] commit in inbox?.push(commit) },
            close: { [weak inbox] _ in inbox?.close() })
        if let unregister = observe(observer) {
            inbox.setUnregister(unregister)
        }
        return SQLiteCommits(inbox: inbox)
    }

    /// Registers `observer` on the connection thread.
    ///
    /// - Returns: What removes it again; `nil` when the database takes no more work, and the
    ///   observer was closed.
    private func observe(_ observer: CommitObserver) -> (@Sendable () -> Void)? {
        let owner = self.owner
        let queued = owner.enqueue(settling: nil) { [weak owner] connection, openError in
            guard let connection, let owner else {
                observer.close(Self.notOpen(openError))
                return
            }
            let hub =
                connection.observationHub
                ?? ObservationHub(db: connection.db) { [weak owner] in
                    guard let owner else { return false }
                    let settle = owner.enqueue(settling: nil) { connection, _ in connection?.observationHub?.settleAfterJob() }
                    if case .success = settle { return true }
                    return false
                }
            connection.observationHub = hub
            hub.add(observer)
        }
        if case .failure(let refusal) = queued {
            observer.close(refusal)
            return nil
        }
        return { [weak owner] in
            _ = owner?.enqueue(settling: nil) { connection, _ in connection?.observationHub?.remove(observer) }
        }
    }
}
