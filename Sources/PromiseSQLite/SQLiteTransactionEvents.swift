/// The row changes of a database, transaction by transaction, as
/// ``SQLiteDatabase/transactionEvents(touching:operations:bufferLimit:)`` returns them: an
/// `AsyncSequence` that ends when the database closes or the observation is cancelled.
public struct SQLiteTransactionEvents: AsyncSequence, Sendable {
    /// A commit, a rollback, or a count of transactions the consumer fell behind on.
    public typealias Element = SQLiteTransactionEvent
    /// The sequence never throws: it ends instead.
    public typealias Failure = Never

    let inbox: ObservationInbox<TransactionEventQueue>

    /// Ends the sequence and the observation: a waiting `next()` returns `nil`, the events
    /// kept are dropped, and no more are collected.
    public func cancel() { inbox.cancel() }

    /// An iterator over the events.
    ///
    /// - Returns: The iterator; every iterator of one sequence takes from the same events.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(inbox: inbox) }

    /// Takes the events one by one.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// The iterator never throws: it ends instead.
        public typealias Failure = Never

        let inbox: ObservationInbox<TransactionEventQueue>

        /// The next event, waiting for it; `nil` once the database closed, the sequence was
        /// cancelled, or the task calling this was cancelled (which cancels the sequence).
        ///
        /// - Returns: The event, or `nil` at the end.
        public mutating func next() async -> SQLiteTransactionEvent? {
            await inbox.next()
        }

        /// ``next()``, from code isolated to `actor`.
        ///
        /// - Parameter actor: The caller's actor.
        /// - Returns: The event, or `nil` at the end.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> SQLiteTransactionEvent? {
            await inbox.next()
        }
    }
}
