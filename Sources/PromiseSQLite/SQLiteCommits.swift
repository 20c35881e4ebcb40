/// The commits of a database, as ``SQLiteDatabase/commits(touching:)`` returns them: an
/// `AsyncSequence` that ends when the database closes or the observation is cancelled.
public struct SQLiteCommits: AsyncSequence, Sendable {
    /// Each committed transaction, or several merged (see ``SQLiteCommit/transactions``).
    public typealias Element = SQLiteCommit
    /// The sequence never throws: it ends instead.
    public typealias Failure = Never

    let inbox: ObservationInbox<MergedCommits>

    /// Ends the sequence and the observation: a waiting `next()` returns `nil`, and commits
    /// are no longer collected.
    public func cancel() { inbox.cancel() }

    /// An iterator over the commits.
    ///
    /// - Returns: The iterator; every iterator of one sequence takes from the same commits.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(inbox: inbox) }

    /// Takes the commits one by one.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// The iterator never throws: it ends instead.
        public typealias Failure = Never

        let inbox: ObservationInbox<MergedCommits>

        /// The next commit, waiting for it; `nil` once the database closed, the sequence was
        /// cancelled, or the task calling this was cancelled (which cancels the sequence).
        ///
        /// - Returns: The commit, or `nil` at the end.
        public mutating func next() async -> SQLiteCommit? {
            await inbox.next()
        }

        /// ``next()``, from code isolated to `actor`.
        ///
        /// - Parameter actor: The caller's actor; the commit is handed over without leaving it
        ///   any longer than waiting takes.
        /// - Returns: The commit, or `nil` at the end.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> SQLiteCommit? {
            await inbox.next()
        }
    }
}
