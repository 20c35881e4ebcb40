public import PromiseCore

// The promise-returning methods that take their parameters' values as arguments
// (`binding: 1, "Ada"`): each runs the ``SQLiteConnection`` method of the same name, which
// binds every value through its own type rather than an existential box.

extension SQLiteReader {
    /// Runs one query, binding `first`, then `values`, to its parameters in order, and collects its rows.
    ///
    /// - Parameters:
    ///   - sql: One SQL statement.
    ///   - first: The first parameter's value.
    ///   - values: The other parameters' values, as in ``SQLiteConnection/execute(_:binding:_:)``.
    /// - Returns: A promise of the rows, rejected with ``SQLiteError``.
    @inlinable
    public func query<First: SQLiteValueConvertible, each Value: SQLiteValueConvertible>(_ sql: String, binding first: First, _ values: repeat each Value)
        -> Promise<[SQLiteRow]>
    {
        readWithoutTransaction { try $0.query(sql, binding: first, repeat each values) }
    }

    /// Runs one query, binding `first`, then `values`, to its parameters in order, and decodes each row
    /// into `T`, as ``query(_:_:_:)`` does.
    ///
    /// - Parameters:
    ///   - type: The type of each row.
    ///   - sql: One SQL statement.
    ///   - first: The first parameter's value.
    ///   - values: The other parameters' values, as in ``SQLiteConnection/execute(_:binding:_:)``.
    /// - Returns: A promise of the decoded rows, rejected with ``SQLiteError``; a row that
    ///   does not decode is ``SQLiteError/Code-swift.struct/mismatch`` (``SQLiteError/Code-swift.struct/range``
    ///   for a missing column, ``SQLiteError/Code-swift.struct/invalidUTF8`` for text that is not
    ///   UTF-8) naming the column and the statement, with the `DecodingError` as
    ///   ``SQLiteError/underlying``.
    @inlinable
    public func query<T: Decodable & Sendable, First: SQLiteValueConvertible, each Value: SQLiteValueConvertible>(
        _ type: T.Type, _ sql: String, binding first: First, _ values: repeat each Value
    ) -> Promise<[T]> {
        readWithoutTransaction { try $0.query(T.self, sql, binding: first, repeat each values) }
    }

    /// Runs one query, binding `first`, then `values`, to its parameters in order, and returns its first row,
    /// or `nil` when it has none.
    ///
    /// - Parameters:
    ///   - sql: One SQL statement.
    ///   - first: The first parameter's value.
    ///   - values: The other parameters' values, as in ``SQLiteConnection/execute(_:binding:_:)``.
    /// - Returns: A promise of the first row or `nil`.
    @inlinable
    public func queryFirst<First: SQLiteValueConvertible, each Value: SQLiteValueConvertible>(_ sql: String, binding first: First, _ values: repeat each Value)
        -> Promise<SQLiteRow?>
    {
        readWithoutTransaction { try $0.queryFirst(sql, binding: first, repeat each values) }
    }

    /// Runs one query, binding `first`, then `values`, to its parameters in order, and decodes its first row
    /// into `T`, or gives `nil` when it has none.
    ///
    /// - Parameters:
    ///   - type: The type of the row.
    ///   - sql: One SQL statement.
    ///   - first: The first parameter's value.
    ///   - values: The other parameters' values, as in ``SQLiteConnection/execute(_:binding:_:)``.
    /// - Returns: A promise of the decoded row or `nil`.
    @inlinable
    public func queryFirst<T: Decodable & Sendable, First: SQLiteValueConvertible, each Value: SQLiteValueConvertible>(
        _ type: T.Type, _ sql: String, binding first: First, _ values: repeat each Value
    ) -> Promise<T?> {
        readWithoutTransaction { try $0.queryFirst(T.self, sql, binding: first, repeat each values) }
    }

    /// Runs one query, binding `first`, then `values`, to its parameters in order, and gives the first column
    /// of its first row.
    ///
    /// ```swift
    /// let name = try await db.scalar(String.self, "SELECT name FROM users WHERE id = ?", binding: id).get()
    /// ```
    ///
    /// - Parameters:
    ///   - type: The column's type.
    ///   - sql: One SQL statement.
    ///   - first: The first parameter's value.
    ///   - values: The other parameters' values, as in ``SQLiteConnection/execute(_:binding:_:)``.
    /// - Returns: A promise of the value, `nil` for no row or `NULL`; rejected with
    ///   ``SQLiteError/Code-swift.struct/mismatch`` when it does not convert to `T`.
    @inlinable
    public func scalar<T: SQLiteValueConvertible, First: SQLiteValueConvertible, each Value: SQLiteValueConvertible>(
        _ type: T.Type, _ sql: String, binding first: First, _ values: repeat each Value
    ) -> Promise<T?> {
        readWithoutTransaction { try $0.scalar(T.self, sql, binding: first, repeat each values) }
    }
}

extension SQLiteWriter {
    /// Runs one statement, binding `first`, then `values`, to its parameters in order.
    ///
    /// ```swift
    /// let id = try await db.execute("INSERT INTO users(name, age) VALUES (?, ?)", binding: "Ada", 36).get().lastInsertRowID
    /// ```
    ///
    /// - Parameters:
    ///   - sql: One SQL statement; two statements are an error (use ``executeScript(_:)``).
    ///   - first: The first parameter's value.
    ///   - values: The other parameters' values, as in ``SQLiteConnection/execute(_:binding:_:)``.
    /// - Returns: A promise of the rows changed and the last insert row id, rejected with
    ///   ``SQLiteError``.
    @inlinable
    public func execute<First: SQLiteValueConvertible, each Value: SQLiteValueConvertible>(_ sql: String, binding first: First, _ values: repeat each Value)
        -> Promise<SQLiteChanges>
    {
        writeWithoutTransaction { try $0.execute(sql, binding: first, repeat each values) }
    }
}
