/// The values of an ``SQLiteValueObservation``, as ``SQLiteValueObservation/values(in:externalChangeInterval:)-(SQLiteDatabase,_)``
/// returns them: the first result, then a new one after each commit that changed what the
/// last read used.
public struct SQLiteObservedValues<Value: Sendable>: AsyncSequence, Sendable {
    /// Each result of the read.
    public typealias Element = Value
    /// What a read threw, or ``SQLiteError`` with ``SQLiteError/Code-swift.struct/closed``.
    public typealias Failure = any Error

    let observer: ValueObserver

    /// Ends the sequence and the observation: a waiting `next()` returns `nil`.
    public func cancel() { observer.cancel() }

    /// An iterator over the values.
    ///
    /// - Returns: The iterator; every iterator of one sequence takes from the same observation.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(observer: observer) }

    /// Takes the values one by one.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// What a read threw, or ``SQLiteError`` with ``SQLiteError/Code-swift.struct/closed``.
        public typealias Failure = any Error

        let observer: ValueObserver

        /// The next value: the first result at once, then the result of the next read after a
        /// commit that changed what the last one used. `nil` once the sequence was cancelled or
        /// the task calling this was cancelled (which cancels the sequence).
        ///
        /// - Returns: The value, or `nil` at the end.
        /// - Throws: What the read threw, or ``SQLiteError`` with
        ///   ``SQLiteError/Code-swift.struct/closed`` when the database closed; once.
        public mutating func next() async throws -> Value? {
            try await observer.next().map(SQLiteValueObservation<Value>.unboxed)
        }

        /// ``next()``, from code isolated to `actor`.
        ///
        /// - Parameter actor: The caller's actor.
        /// - Returns: The value, or `nil` at the end.
        /// - Throws: What the read threw, or `closed`.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws -> Value? {
            try await observer.next().map(SQLiteValueObservation<Value>.unboxed)
        }
    }
}
