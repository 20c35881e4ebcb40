public import PromiseSystem

/// Synchronous access to a database inside ``SQLiteDatabase/transaction(_:_:)``,
/// ``SQLiteDatabase/read(_:)`` and ``SQLiteReader/readWithoutTransaction(_:)``: the closure runs
/// on the connection's own thread, and each call runs one statement there, at once. Every
/// promise-returning query method of ``SQLiteReader`` and ``SQLiteWriter`` is one of these calls.
///
/// A connection is valid only while the closure it was passed to runs; calls after that throw
/// ``SQLiteError/Code-swift.struct/invalidUse``. Each call first checks whether the promise of
/// the surrounding operation was cancelled and throws `CancellationError` if so, so a cancelled
/// transaction stops at its next statement and rolls back.
public final class SQLiteConnection {
    let connection: Connection
    private let cancel: CancelFlag
    private var valid = true
    /// Whether the closure runs inside a transaction that must still be open at each call.
    private let transactional: Bool

    @usableFromInline
    init(_ connection: Connection, cancel: CancelFlag, transactional: Bool) {
        self.connection = connection
        self.cancel = cancel
        self.transactional = transactional
    }

    /// Ends this connection's validity (the closure returned).
    @usableFromInline
    func invalidate() { valid = false }

    /// Throws unless the connection may still be used. It returns nothing: callers use the
    /// stored `connection`, borrowed for the call, where a returned one would be retained.
    private func check() throws {
        guard valid else {
            throw SQLiteError(.invalidUse, message: "an SQLiteConnection was used after its closure returned; keep it inside the closure")
        }
        // SQLite rolls a transaction back by itself on some errors (ON CONFLICT ROLLBACK,
        // RAISE(ROLLBACK), a full disk), and a COMMIT or ROLLBACK run in the closure ends it:
        // statements after that would each commit on their own. Stop instead.
        if transactional, connection.isAutocommit {
            throw SQLiteError(
                .abort,
                message:
                    "the transaction is no longer open (SQLite rolled it back after an error, or the closure ran COMMIT or ROLLBACK); nothing after that point ran"
            )
        }
    }

    /// Runs one statement.
    ///
    /// - Parameters:
    ///   - sql: One SQL statement; `?` or `:name` marks a parameter.
    ///   - bindings: The parameters' values.
    /// - Returns: How many rows changed, and the last insert row id.
    /// - Throws: ``SQLiteError``, or `CancellationError` when the operation was cancelled.
    @discardableResult
    public func execute(_ sql: String, _ bindings: SQLiteBindings = .none) throws -> SQLiteChanges {
        try execute(sql, bind: { (statement) throws(SQLiteError) in try statement.bind(bindings) })
    }

    /// Runs every statement in `sql`, in order, without parameters (a schema, a migration).
    ///
    /// - Parameter sql: The statements, separated by `;`.
    /// - Throws: ``SQLiteError`` naming the statement that failed; the statements before it
    ///   stay applied unless a transaction around them rolls back.
    public func executeScript(_ sql: String) throws {
        try check()
        try connection.executeScript(sql, cancel: cancel)
    }

    /// Runs one query and returns all its rows.
    ///
    /// - Parameters:
    ///   - sql: One SQL statement.
    ///   - bindings: The parameters' values.
    /// - Returns: The rows.
    /// - Throws: ``SQLiteError``, or `CancellationError`.
    public func query(_ sql: String, _ bindings: SQLiteBindings = .none) throws -> [SQLiteRow] {
        try query(sql, bind: { (statement) throws(SQLiteError) in try statement.bind(bindings) })
    }

    /// Runs one query and decodes each row into `T` (see ``SQLiteRow/decode(_:)``).
    ///
    /// - Parameters:
    ///   - type: The type of each row.
    ///   - sql: One SQL statement.
    ///   - bindings: The parameters' values.
    /// - Returns: The decoded rows.
    /// - Throws: ``SQLiteError`` (a row that does not decode is ``SQLiteError/Code-swift.struct/mismatch``,
    ///   ``SQLiteError/Code-swift.struct/range`` or ``SQLiteError/Code-swift.struct/invalidUTF8``,
    ///   naming the column and the statement, with the `DecodingError` as ``SQLiteError/underlying``),
    ///   or `CancellationError`.
    public func query<T: Decodable>(_ type: T.Type, _ sql: String, _ bindings: SQLiteBindings = .none) throws -> [T] {
        try query(T.self, sql, bind: { (statement) throws(SQLiteError) in try statement.bind(bindings) })
    }

    /// Runs one query and returns its first row, or `nil` when it has none.
    ///
    /// - Parameters:
    ///   - sql: One SQL statement.
    ///   - bindings: The parameters' values.
    /// - Returns: The first row, or `nil`.
    /// - Throws: ``SQLiteError``, or `CancellationError`.
    public func queryFirst(_ sql: String, _ bindings: SQLiteBindings = .none) throws -> SQLiteRow? {
        try queryFirst(sql, bind: { (statement) throws(SQLiteError) in try statement.bind(bindings) })
    }

    /// Runs one query and decodes its first row into `T`, or returns `nil` when it has none.
    ///
    /// - Parameters:
    ///   - type: The type of the row.
    ///   - sql: One SQL statement.
    ///   - bindings: The parameters' values.
    /// - Returns: The decoded row, or `nil`.
    /// - Throws: ``SQLiteError`` (a row that does not decode is ``SQLiteError/Code-swift.struct/mismatch``,
    ///   ``SQLiteError/Code-swift.struct/range`` or ``SQLiteError/Code-swift.struct/invalidUTF8``,
    ///   naming the column and the statement, with the `DecodingError` as ``SQLiteError/underlying``),
    ///   or `CancellationError`.
    public func queryFirst<T: Decodable>(_ type: T.Type, _ sql: String, _ bindings: SQLiteBindings = .none) throws -> T? {
        try queryFirst(T.self, sql, bind: { (statement) throws(SQLiteError) in try statement.bind(bindings) })
    }

    /// Runs one query and returns the first column of its first row: `SELECT count(*) …`.
    ///
    /// - Parameters:
    ///   - type: The column's type; `nil` is returned for no row and for `NULL`.
    ///   - sql: One SQL statement.
    ///   - bindings: The parameters' values.
    /// - Returns: The value, or `nil`.
    /// - Throws: ``SQLiteError`` (``SQLiteError/Code-swift.struct/mismatch`` when the value
    ///   does not convert to `T`), or `CancellationError`.
    public func scalar<T: SQLiteValueConvertible>(_ type: T.Type, _ sql: String, _ bindings: SQLiteBindings = .none) throws -> T? {
        try scalar(T.self, sql, bind: { (statement) throws(SQLiteError) in try statement.bind(bindings) })
    }

    /// Calls `body` with each row as it is read, without collecting them: for results too large
    /// to hold in memory.
    ///
    /// - Parameters:
    ///   - sql: One SQL statement.
    ///   - bindings: The parameters' values.
    ///   - body: Called once per row, on the connection's thread; throwing stops the query.
    /// - Throws: What `body` throws, ``SQLiteError``, or `CancellationError`.
    public func forEachRow(_ sql: String, _ bindings: SQLiteBindings = .none, _ body: (SQLiteRow) throws -> Void) throws {
        try forEachRow(sql, bind: { (statement) throws(SQLiteError) in try statement.bind(bindings) }, body)
    }

    /// Runs `body` in a savepoint nested in the current transaction (or in a new immediate
    /// transaction when none is open): released when `body` returns, rolled back to when it
    /// throws, leaving the outer transaction usable.
    ///
    /// `body`'s connection throws ``SQLiteError/Code-swift.struct/abort`` instead of running a
    /// statement once the transaction has ended (SQLite rolled it back after an error, say),
    /// as a transaction closure's does, so nothing after that point commits on its own.
    ///
    /// - Parameter body: The statements to run together.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, after rolling back.
    @discardableResult
    public func transaction<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try check()
        return try connection.transaction(.immediate, cancel: cancel) { try insideOpenTransaction(body) }
    }

    /// Whether a transaction is open on this connection.
    public var isInTransaction: Bool { valid && !connection.isAutocommit }

    /// Runs `body` with a view of this connection that, like a transaction closure's, throws
    /// instead of running a statement once the open transaction has ended (SQLite rolled it
    /// back after an error, say), so nothing after that point commits on its own. The view is
    /// invalid once `body` returns.
    func insideOpenTransaction<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        let view = SQLiteConnection(connection, cancel: cancel, transactional: true)
        defer { view.invalidate() }
        return try body(view)
    }
}

// MARK: Each method's one body, for ``SQLiteBindings`` and for values bound one at a time.

extension SQLiteConnection {
    @usableFromInline
    func execute(_ sql: String, bind: Binder) throws -> SQLiteChanges {
        try check()
        return try connection.execute(sql, cancel: cancel, bind: bind)
    }

    @usableFromInline
    func query(_ sql: String, bind: Binder) throws -> [SQLiteRow] {
        try check()
        return try connection.allRows(sql, cancel: cancel, bind: bind)
    }

    @usableFromInline
    func query<T: Decodable>(_ type: T.Type, _ sql: String, bind: Binder) throws -> [T] {
        try check()
        return try connection.decodeAll(T.self, sql, cancel: cancel, bind: bind)
    }

    @usableFromInline
    func queryFirst(_ sql: String, bind: Binder) throws -> SQLiteRow? {
        try check()
        return try connection.run(sql, cancel: cancel, bind: bind) { try $0.step() ? $0.row() : nil }
    }

    @usableFromInline
    func queryFirst<T: Decodable>(_ type: T.Type, _ sql: String, bind: Binder) throws -> T? {
        try check()
        return try connection.decodeFirst(T.self, sql, cancel: cancel, bind: bind)
    }

    @usableFromInline
    func scalar<T: SQLiteValueConvertible>(_ type: T.Type, _ sql: String, bind: Binder) throws -> T? {
        try check()
        return try connection.scalar(T.self, sql, cancel: cancel, bind: bind)
    }

    @usableFromInline
    func forEachRow(_ sql: String, bind: Binder, _ body: (SQLiteRow) throws -> Void) throws {
        try check()
        try connection.forEachRow(sql, cancel: cancel, bind: bind) { try body($0.row(columns: $1)) }
    }
}

extension Connection {
    /// Decodes every row of `sql` into `T` straight from the statement, without an
    /// intermediate ``SQLiteRow``.
    func decodeAll<T: Decodable>(_ type: T.Type, _ sql: String, cancel: CancelFlag?, bind: Binder) throws -> [T] {
        // The loop is written out here, not passed to forEachRow as a closure: in this
        // unspecialized generic code, a closure called per row would look up the metadata of
        // [T] and RowDecoding<T> on every call. RowAccumulator avoids the same for the append.
        return try run(sql, cancel: cancel, bind: bind) { statement in
            // The columns are read after the first step: a schema change re-prepares the
            // statement there, and its columns may differ from the cached ones.
            guard try statement.step() else { return [] }
            let decoding = RowDecoding(T.self, reader: RowReader(statement: statement))
            defer { decoding.finish() }
            var values = RowAccumulator<T>()
            do {
                repeat {
                    try cancel?.check()
                    values.append(try decoding.decode())
                } while try statement.step()
            } catch let error as DecodingError {
                throw decodingFailure(error, decoding: T.self, sql: sql)
            }
            return values.array()
        }
    }

    /// Every row of `sql`. Their values are copied into ``RowBuffer``s, never grown, which the
    /// rows in each share: no allocation per row, and no copy of what was read. The first
    /// buffer has room for one row, each next one for twice as many, up to
    /// ``RowBuffer/capacity`` values: room left unused is less than what the rows fill.
    func allRows(_ sql: String, cancel: CancelFlag?, bind: Binder) throws -> [SQLiteRow] {
        // The loop is written out, as decodeAll's is: through forEachRow's closure, a row
        // cost 46 instructions more (1 666 against 1 620, `Benchmarks/sqlite-counts.sh`).
        try run(sql, cancel: cancel, bind: bind) { statement in
            // The columns are read after the first step: a schema change re-prepares the
            // statement there, and its columns may differ from the cached ones.
            guard try statement.step() else { return [] }
            let columns = statement.columns
            let width = columns.names.count
            guard width > 0 else { return [] }
            let rowsPerBuffer = RowBuffer.rows(width: width)
            var rowsInNext = 1
            var buffers: [RowBuffer] = []
            var more = true
            while more {
                let buffer = RowBuffer.make(columns: columns, rows: rowsInNext)
                buffers.append(buffer)
                for _ in 0..<rowsInNext {
                    try cancel?.check()
                    buffer.appendRow(of: statement)
                    more = try statement.step()
                    if !more { break }
                }
                rowsInNext = Swift.min(rowsInNext * 2, rowsPerBuffer)
            }
            return SQLiteRow.rows(in: buffers)
        }
    }

    /// Decodes the first row of `sql` into `T`, or returns `nil` when there is none.
    func decodeFirst<T: Decodable>(_ type: T.Type, _ sql: String, cancel: CancelFlag?, bind: Binder) throws -> T? {
        try run(sql, cancel: cancel, bind: bind) { statement in
            guard try statement.step() else { return nil }
            let decoding = RowDecoding(T.self, reader: RowReader(statement: statement))
            defer { decoding.finish() }
            do {
                return try decoding.decode()
            } catch let error as DecodingError {
                throw decodingFailure(error, decoding: T.self, sql: sql)
            }
        }
    }

    /// The first column of the first row, or `nil` for no row or `NULL`.
    func scalar<T: SQLiteValueConvertible>(_ type: T.Type, _ sql: String, cancel: CancelFlag?, bind: Binder) throws -> T? {
        try run(sql, cancel: cancel, bind: bind) { statement in
            guard try statement.step() else { return nil }
            guard statement.columns.names.count > 0 else {
                throw SQLiteError(.range, message: "the statement returns no columns", sql: sql)
            }
            let value = statement.value(at: 0)
            if value.isNull { return nil }
            if let converted = T.fromSQLiteValue(value) { return converted }
            throw conversionError(value, column: statement.columns.names[0], index: 0, type: T.self, sql: sql)
        }
    }
}
