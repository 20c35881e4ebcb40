// The methods that take their parameters' values as arguments (`binding: 1, "Ada"`) rather
// than as ``SQLiteBindings``. They are inlined into the caller, where every value's type is
// known, so each value is bound through its own type's conversion: no existential box and no
// array per statement, as an array literal of `any SQLiteValueConvertible` costs.

extension SQLiteConnection {
    /// Runs one statement, binding `first`, then `values`, to its parameters in order.
    ///
    /// ```swift
    /// try db.execute("INSERT INTO users(name, age) VALUES (?, ?)", binding: "Ada", 36)
    /// ```
    ///
    /// Each value is converted by its own type, in the calling code: a loop of inserts binds
    /// without boxing its values or building an array for each statement, as
    /// ``execute(_:_:)`` with an array literal does. An optional binds `NULL` for `nil`.
    ///
    /// - Parameters:
    ///   - sql: One SQL statement; each `?` (or `?NNN`, `:name`, in the order of their indexes)
    ///     takes the next value.
    ///   - first: The first parameter's value.
    ///   - values: The other parameters' values; a missing or extra value is an error.
    /// - Returns: How many rows changed, and the last insert row id.
    /// - Throws: ``SQLiteError`` (``SQLiteError/Code-swift.struct/invalidBinding`` when the
    ///   number of values does not match), or `CancellationError` when the operation was
    ///   cancelled.
    @inlinable
    @discardableResult
    public func execute<First: SQLiteValueConvertible, each Value: SQLiteValueConvertible>(_ sql: String, binding first: First, _ values: repeat each Value)
        throws -> SQLiteChanges
    {
        try execute(sql, bind: { (statement) throws(SQLiteError) in try ParameterBinder.bind(statement, first, repeat each values) })
    }

    /// Runs one query, binding `first`, then `values`, to its parameters in order, and returns all its rows.
    ///
    /// - Parameters:
    ///   - sql: One SQL statement.
    ///   - first: The first parameter's value.
    ///   - values: The other parameters' values, as in ``execute(_:binding:_:)``.
    /// - Returns: The rows.
    /// - Throws: ``SQLiteError``, or `CancellationError`.
    @inlinable
    public func query<First: SQLiteValueConvertible, each Value: SQLiteValueConvertible>(_ sql: String, binding first: First, _ values: repeat each Value)
        throws -> [SQLiteRow]
    {
        try query(sql, bind: { (statement) throws(SQLiteError) in try ParameterBinder.bind(statement, first, repeat each values) })
    }

    /// Runs one query, binding `first`, then `values`, to its parameters in order, and decodes each row into
    /// `T` (see ``SQLiteRow/decode(_:)``).
    ///
    /// - Parameters:
    ///   - type: The type of each row.
    ///   - sql: One SQL statement.
    ///   - first: The first parameter's value.
    ///   - values: The other parameters' values, as in ``execute(_:binding:_:)``.
    /// - Returns: The decoded rows.
    /// - Throws: ``SQLiteError`` (a row that does not decode is ``SQLiteError/Code-swift.struct/mismatch``,
    ///   ``SQLiteError/Code-swift.struct/range`` or ``SQLiteError/Code-swift.struct/invalidUTF8``,
    ///   naming the column and the statement, with the `DecodingError` as ``SQLiteError/underlying``),
    ///   or `CancellationError`.
    @inlinable
    public func query<T: Decodable, First: SQLiteValueConvertible, each Value: SQLiteValueConvertible>(
        _ type: T.Type, _ sql: String, binding first: First, _ values: repeat each Value
    ) throws -> [T] {
        try query(T.self, sql, bind: { (statement) throws(SQLiteError) in try ParameterBinder.bind(statement, first, repeat each values) })
    }

    /// Runs one query, binding `first`, then `values`, to its parameters in order, and returns its first
    /// row, or `nil` when it has none.
    ///
    /// - Parameters:
    ///   - sql: One SQL statement.
    ///   - first: The first parameter's value.
    ///   - values: The other parameters' values, as in ``execute(_:binding:_:)``.
    /// - Returns: The first row, or `nil`.
    /// - Throws: ``SQLiteError``, or `CancellationError`.
    @inlinable
    public func queryFirst<First: SQLiteValueConvertible, each Value: SQLiteValueConvertible>(_ sql: String, binding first: First, _ values: repeat each Value)
        throws -> SQLiteRow?
    {
        try queryFirst(sql, bind: { (statement) throws(SQLiteError) in try ParameterBinder.bind(statement, first, repeat each values) })
    }

    /// Runs one query, binding `first`, then `values`, to its parameters in order, and decodes its first row
    /// into `T`, or returns `nil` when it has none.
    ///
    /// - Parameters:
    ///   - type: The type of the row.
    ///   - sql: One SQL statement.
    ///   - first: The first parameter's value.
    ///   - values: The other parameters' values, as in ``execute(_:binding:_:)``.
    /// - Returns: The decoded row, or `nil`.
    /// - Throws: ``SQLiteError`` (a row that does not decode is ``SQLiteError/Code-swift.struct/mismatch``,
    ///   ``SQLiteError/Code-swift.struct/range`` or ``SQLiteError/Code-swift.struct/invalidUTF8``,
    ///   naming the column and the statement, with the `DecodingError` as ``SQLiteError/underlying``),
    ///   or `CancellationError`.
    @inlinable
    public func queryFirst<T: Decodable, First: SQLiteValueConvertible, each Value: SQLiteValueConvertible>(
        _ type: T.Type, _ sql: String, binding first: First, _ values: repeat each Value
    ) throws -> T? {
        try queryFirst(T.self, sql, bind: { (statement) throws(SQLiteError) in try ParameterBinder.bind(statement, first, repeat each values) })
    }

    /// Runs one query, binding `first`, then `values`, to its parameters in order, and returns the first
    /// column of its first row.
    ///
    /// ```swift
    /// let name = try db.scalar(String.self, "SELECT name FROM users WHERE id = ?", binding: id)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The column's type; `nil` is returned for no row and for `NULL`.
    ///   - sql: One SQL statement.
    ///   - first: The first parameter's value.
    ///   - values: The other parameters' values, as in ``execute(_:binding:_:)``.
    /// - Returns: The value, or `nil`.
    /// - Throws: ``SQLiteError`` (``SQLiteError/Code-swift.struct/mismatch`` when the value
    ///   does not convert to `T`), or `CancellationError`.
    @inlinable
    public func scalar<T: SQLiteValueConvertible, First: SQLiteValueConvertible, each Value: SQLiteValueConvertible>(
        _ type: T.Type, _ sql: String, binding first: First, _ values: repeat each Value
    ) throws -> T? {
        try scalar(T.self, sql, bind: { (statement) throws(SQLiteError) in try ParameterBinder.bind(statement, first, repeat each values) })
    }

    /// Calls `body` with each row of a query as it is read, binding `values` to its parameters
    /// in order.
    ///
    /// - Parameters:
    ///   - sql: One SQL statement.
    ///   - first: The first parameter's value.
    ///   - values: The other parameters' values, as in ``execute(_:binding:_:)``.
    ///   - body: Called once per row, on the connection's thread; throwing stops the query.
    /// - Throws: What `body` throws, ``SQLiteError``, or `CancellationError`.
    @inlinable
    public func forEachRow<First: SQLiteValueConvertible, each Value: SQLiteValueConvertible>(
        _ sql: String, binding first: First, _ values: repeat each Value, body: (SQLiteRow) throws -> Void
    ) throws {
        try forEachRow(sql, bind: { (statement) throws(SQLiteError) in try ParameterBinder.bind(statement, first, repeat each values) }, body)
    }
}
