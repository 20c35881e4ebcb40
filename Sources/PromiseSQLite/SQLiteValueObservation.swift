public import PromiseCore

/// A read that is run again after each commit that changes what it read: its first result,
/// then a new one after every such commit.
///
/// ```swift
/// let names = SQLiteValueObservation.query(String.self, "SELECT name FROM users ORDER BY name")
///     .removingDuplicates()
/// for try await list in names.values(in: db) {
///     print(list)   // [] at once, then ["Ada"] after the INSERT commits
/// }
/// ```
///
/// Which tables a read depends on is learned from SQLite as it runs (its authorizer reports
/// every table a statement reads, through views and subqueries), on every run, so a read that
/// reads other tables depending on what it found is followed correctly.
///
/// - A read runs only when the consumer asks for the next value (the iterator's `next()`, or
///   the callback of ``start(in:on:externalChangeInterval:_:)-(SQLiteDatabase,_,_,_)`` returned) and a commit touched
///   its tables since the last one. A burst of commits costs one read per consumer turn.
/// - A commit that changes the schema, or one by another connection, may change any table:
///   it always counts.
/// - With ``removingDuplicates()``, a result equal to the last one delivered is not delivered
///   again.
/// - On an ``SQLiteDatabasePool``, reads run on its readers, never on the writer.
/// - Commits by another process or another ``SQLiteDatabase`` on the same file are not seen by
///   SQLite's hooks: give `externalChangeInterval`, and `PRAGMA data_version` is polled on the
///   writing connection at that interval.
///
/// See <doc:ChangeNotifications>.
public struct SQLiteValueObservation<Value: Sendable>: Sendable {
    /// The read, its value boxed for ``ValueObserver``.
    let read: @Sendable (SQLiteConnection) throws -> any Sendable
    /// Whether two boxed values are the same, when duplicates are removed.
    let isDuplicate: (@Sendable (any Sendable, any Sendable) -> Bool)?

    /// Creates an observation of what `read` returns.
    ///
    /// - Parameter read: Reads from the connection and returns the value, on the connection's
    ///   thread, inside a read transaction (one snapshot). It runs again after commits that
    ///   change the tables it read; keep it free of side effects.
    public init(tracking read: @escaping @Sendable (SQLiteConnection) throws -> Value) {
        self.read = { try read($0) }
        self.isDuplicate = nil
    }

    private init(read: @escaping @Sendable (SQLiteConnection) throws -> any Sendable, isDuplicate: (@Sendable (any Sendable, any Sendable) -> Bool)?) {
        self.read = read
        self.isDuplicate = isDuplicate
    }

    /// `value`, boxed by this observation's read, as its type. The boxes ``ValueObserver``
    /// hands out all come from ``read``, so the cast always succeeds.
    static func unboxed(_ value: any Sendable) -> Value {
        value as! Value
    }

    /// This observation, leaving out a result equal to the last one delivered.
    ///
    /// - Returns: The observation with duplicates removed.
    public func removingDuplicates() -> SQLiteValueObservation<Value> where Value: Equatable {
        removingDuplicates(by: ==)
    }

    /// This observation, leaving out a result that `areDuplicates` says is the same as the
    /// last one delivered.
    ///
    /// - Parameter areDuplicates: Whether the last value delivered and a new one are the same.
    /// - Returns: The observation with duplicates removed.
    public func removingDuplicates(by areDuplicates: @escaping @Sendable (Value, Value) -> Bool) -> SQLiteValueObservation<Value> {
        SQLiteValueObservation(read: read) { areDuplicates(Self.unboxed($0), Self.unboxed($1)) }
    }

    /// The values, as an `AsyncSequence`: the first result, then one after each commit that
    /// changed what the last read used.
    ///
    /// - Parameters:
    ///   - db: The database.
    ///   - externalChangeInterval: How often to check for commits by other connections to the
    ///     same file (`PRAGMA data_version`), at least every millisecond (a shorter interval
    ///     counts as 1 ms); `nil` (the default) for none.
    /// - Returns: The values. Iteration throws what the read throws, and
    ///   ``SQLiteError/Code-swift.struct/closed`` once the database closed; it ends when the
    ///   iterating task is cancelled, or the sequence and its iterator are released.
    public func values(in db: SQLiteDatabase, externalChangeInterval: Duration? = nil) -> SQLiteObservedValues<Value> {
        SQLiteObservedValues(observer: started(reader: db, writer: db, externalChangeInterval: externalChangeInterval))
    }

    /// The values, read on the pool's readers; see ``values(in:externalChangeInterval:)-(SQLiteDatabase,_)``.
    ///
    /// - Parameters:
    ///   - pool: The pool.
    ///   - externalChangeInterval: How often to check for commits by other connections.
    /// - Returns: The values.
    public func values(in pool: SQLiteDatabasePool, externalChangeInterval: Duration? = nil) -> SQLiteObservedValues<Value> {
        SQLiteObservedValues(observer: started(reader: pool, writer: pool.writer, externalChangeInterval: externalChangeInterval))
    }

    /// Calls `onChange` on `context` with the first result, then with each new one, until the
    /// returned promise is cancelled.
    ///
    /// ```swift
    /// let watching = SQLiteValueObservation.query(Int.self, "SELECT count(*) FROM orders")
    ///     .start(in: db) { counts in print("orders: \(counts[0])") }
    /// // ...
    /// watching.cancel()
    /// ```
    ///
    /// - Parameters:
    ///   - db: The database.
    ///   - context: Where `onChange` runs; `nil` means `Promises.defaultContext`. One call at
    ///     a time: the next read waits until the call returns.
    ///   - externalChangeInterval: How often to check for commits by other connections.
    ///   - onChange: Receives each value.
    /// - Returns: A promise that stays pending while the observation runs. Cancelling it stops
    ///   the observation; it is rejected with what a read threw, or with
    ///   ``SQLiteError/Code-swift.struct/closed`` once the database closed.
    public func start(
        in db: SQLiteDatabase, on context: (any ExecutionContext)? = nil, externalChangeInterval: Duration? = nil,
        _ onChange: @escaping @Sendable (Value) -> Void
    ) -> Promise<Void> {
        started(reader: db, writer: db, externalChangeInterval: externalChangeInterval).deliver(on: context) { onChange(Self.unboxed($0)) }
    }

    /// ``start(in:on:externalChangeInterval:_:)-(SQLiteDatabase,_,_,_)``, read on the pool's readers.
    ///
    /// - Parameters:
    ///   - pool: The pool.
    ///   - context: Where `onChange` runs.
    ///   - externalChangeInterval: How often to check for commits by other connections.
    ///   - onChange: Receives each value.
    /// - Returns: A promise that stays pending while the observation runs.
    public func start(
        in pool: SQLiteDatabasePool, on context: (any ExecutionContext)? = nil, externalChangeInterval: Duration? = nil,
        _ onChange: @escaping @Sendable (Value) -> Void
    ) -> Promise<Void> {
        started(reader: pool, writer: pool.writer, externalChangeInterval: externalChangeInterval).deliver(on: context) { onChange(Self.unboxed($0)) }
    }

    private func started(reader: any SQLiteReader, writer: SQLiteDatabase, externalChangeInterval: Duration?) -> ValueObserver {
        let observer = ValueObserver(
            read: read, isDuplicate: isDuplicate, reader: reader, writer: writer, externalChangeInterval: externalChangeInterval)
        observer.start()
        return observer
    }
}

extension SQLiteValueObservation {
    /// An observation of one query's rows, decoded into `T` as
    /// ``SQLiteReader/query(_:_:_:)-(T.Type,_,_)`` decodes them.
    ///
    /// - Parameters:
    ///   - type: The type of each row.
    ///   - sql: One SQL statement.
    ///   - bindings: The parameters' values.
    /// - Returns: The observation.
    public static func query<T: Decodable & Sendable>(
        _ type: T.Type, _ sql: String, _ bindings: SQLiteBindings = .none
    ) -> SQLiteValueObservation<[T]> where Value == [T] {
        SQLiteValueObservation<[T]>(tracking: { try $0.query(T.self, sql, bindings) })
    }
}
