/// One result row, read by column index or name.
///
/// ```swift
/// let row = try await db.queryFirst("SELECT id, name FROM users WHERE id = ?", [1]).get()
/// let name: String = try row!.get("name")
/// let id = try row!.get(0, as: Int.self)
/// ```
///
/// The rows of a `query` share buffers of values, a few thousand values each: reading a result
/// costs no allocation per row, and a row kept after the rest of its result was released keeps
/// its buffer alive (at most 4 096 values beside its own). Copy ``values`` to keep one row's
/// values on their own.
public struct SQLiteRow: Sendable, RandomAccessCollection, CustomStringConvertible {
    /// The buffer holding this row's values and its neighbours'.
    @usableFromInline let shared: SharedRowBuffer
    /// Where this row's values start in ``buffer``.
    @usableFromInline let start: Int

    init(_ buffer: RowBuffer, start: Int) {
        shared = SharedRowBuffer(buffer)
        self.start = start
    }

    /// A row of `values`, one per column of `columns`, in a buffer of its own.
    init(columns: SQLiteColumns, values: [SQLiteValue]) {
        let buffer = RowBuffer.make(columns: columns, rows: 1)
        buffer.appendRow(values)
        self.init(buffer, start: 0)
    }

    /// The buffer holding this row's values and its neighbours'.
    @inlinable var buffer: RowBuffer { shared.buffer }

    /// The rows in `buffers`, in order.
    static func rows(in buffers: [RowBuffer]) -> [SQLiteRow] {
        let count = buffers.reduce(0) { $0 + $1.count / Swift.max(1, $1.width) }
        return [SQLiteRow](unsafeUninitializedCapacity: count) { rows, initialized in
            for buffer in buffers where buffer.width > 0 {
                for start in stride(from: 0, to: buffer.count, by: buffer.width) {
                    (rows.baseAddress! + initialized).initialize(to: SQLiteRow(buffer, start: start))
                    initialized += 1
                }
            }
        }
    }

    /// The result's columns.
    public var columns: SQLiteColumns { buffer.columns }

    /// The values, in column order: a new array on every read, where `row[index]` and
    /// `get(_:as:)` read one value without copying the others.
    public var values: [SQLiteValue] { (0..<buffer.width).map { buffer.value(at: start + $0) } }

    /// The first column's index: 0.
    public var startIndex: Int { 0 }
    /// One past the last column's index.
    public var endIndex: Int { buffer.width }

    /// The value in column `index`.
    ///
    /// - Parameter index: The column index, from 0; out of range, the program stops, as for an
    ///   array.
    public subscript(index: Int) -> SQLiteValue {
        precondition(index >= 0 && index < buffer.width, "column index \(index) out of range: the row has \(buffer.width)")
        return buffer.value(at: start + index)
    }

    /// The value in the column called `name`, or `nil` when there is no such column.
    ///
    /// - Parameter name: The column name (case-insensitive, as in SQL).
    public subscript(name: String) -> SQLiteValue? {
        columns.index(of: name).map { self[$0] }
    }

    /// The value in column `index`, converted to `T`.
    ///
    /// - Parameters:
    ///   - index: The column index, from 0.
    ///   - type: The type to read; write `String?` to accept `NULL`.
    /// - Returns: The converted value.
    /// - Throws: ``SQLiteError`` (``SQLiteError/Code-swift.struct/range``) when there is no
    ///   such column, (``SQLiteError/Code-swift.struct/mismatch``) when the value does not
    ///   convert to `T`, or (``SQLiteError/Code-swift.struct/invalidUTF8``) when text that is
    ///   not valid UTF-8 is read as anything but bytes.
    @inlinable
    public func get<T: SQLiteValueConvertible>(_ index: Int, as type: T.Type = T.self) throws(SQLiteError) -> T {
        guard index >= 0, index < buffer.width, let converted = T.fromSQLiteValue(buffer.value(at: start + index)) else {
            throw readFailure(index, as: T.self)
        }
        return converted
    }

    /// The value in the column called `name`, converted to `T`.
    ///
    /// - Parameters:
    ///   - name: The column name (case-insensitive, as in SQL).
    ///   - type: The type to read; write `String?` to accept `NULL`.
    /// - Returns: The converted value.
    /// - Throws: ``SQLiteError`` (``SQLiteError/Code-swift.struct/range``) when there is no
    ///   such column, (``SQLiteError/Code-swift.struct/mismatch``) when the value does not
    ///   convert to `T`, or (``SQLiteError/Code-swift.struct/invalidUTF8``) when text that is
    ///   not valid UTF-8 is read as anything but bytes.
    @inlinable
    public func get<T: SQLiteValueConvertible>(_ name: String, as type: T.Type = T.self) throws(SQLiteError) -> T {
        guard let index = columns.index(of: name) else { throw readFailure(named: name) }
        return try get(index)
    }

    /// Decodes the row into `T`: a keyed type's properties are columns by name, a single
    /// value (`Int`, `String`, a `RawRepresentable` enum) is the first column.
    ///
    /// - Parameter type: The type to decode.
    /// - Returns: The decoded value.
    /// - Throws: ``SQLiteError`` naming the column that did not fit, with the `DecodingError`
    ///   as ``SQLiteError/underlying``: ``SQLiteError/Code-swift.struct/mismatch``,
    ///   ``SQLiteError/Code-swift.struct/range`` for a missing column, or
    ///   ``SQLiteError/Code-swift.struct/invalidUTF8`` for text that is not UTF-8.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        let decoding = RowDecoding(T.self, reader: RowReader(row: self))
        defer { decoding.finish() }
        do {
            return try decoding.decode()
        } catch let error as DecodingError {
            throw decodingFailure(error, decoding: T.self, sql: nil)
        }
    }

    // `get` is inlinable so that a caller's code is specialized for the type it reads: called
    // unspecialized across modules, each read asked the runtime for `Optional<T>` (about 500
    // instructions, `Benchmarks/sqlite-counts.sh`, FILTER=scan/promise-rows). Its failures are
    // built here, out of line.

    /// Why reading column `index` as `type` failed: there is no such column, or its value does
    /// not convert.
    @usableFromInline
    func readFailure(_ index: Int, as type: Any.Type) -> SQLiteError {
        guard index >= 0, index < buffer.width else {
            return SQLiteError(.range, message: "no column \(index): the row has \(buffer.width) (\(columns))")
        }
        return conversionError(self[index], column: columns.names[index], index: index, type: type)
    }

    /// The error for a read of a column the row does not have.
    @usableFromInline
    func readFailure(named name: String) -> SQLiteError {
        SQLiteError(.range, message: "no column named '\(name)'; the columns are \(columns)")
    }

    /// The row as `(id: 1, name: 'Ada')`.
    public var description: String {
        "(" + zip(columns.names, self).map { "\($0): \($1)" }.joined(separator: ", ") + ")"
    }
}

/// The error for a row that does not decode to `type`, with `error` as its underlying error:
/// the code of the ``SQLiteError`` a column conversion put under `error` (``SQLiteError/Code-swift.struct/mismatch``,
/// ``SQLiteError/Code-swift.struct/invalidUTF8``, or ``SQLiteError/Code-swift.struct/range``
/// for a missing column), and ``SQLiteError/Code-swift.struct/mismatch`` for a `DecodingError`
/// thrown by the type's own `init(from:)`. The message names the column (the coding path) and
/// the type; `sql` names the statement.
func decodingFailure(_ error: DecodingError, decoding type: Any.Type, sql: String?) -> SQLiteError {
    let context: DecodingError.Context
    switch error {
    case .typeMismatch(_, let found), .valueNotFound(_, let found), .keyNotFound(_, let found), .dataCorrupted(let found):
        context = found
    @unknown default:
        return SQLiteError(.mismatch, message: "a row does not decode to \(type): \(error)", sql: sql, underlying: error)
    }
    let code = (context.underlyingError as? SQLiteError)?.code ?? .mismatch
    var path = context.codingPath.map(\.stringValue)
    if case .keyNotFound(let key, _) = error { path.append(key.stringValue) }
    let place = path.isEmpty ? "" : " at column '\(path.joined(separator: "."))'"
    return SQLiteError(
        code, message: "a row does not decode to \(type)\(place): \(context.debugDescription)", sql: sql, underlying: error)
}

/// The error for a value that does not convert: `invalidUTF8` for text that is not UTF-8,
/// `mismatch` otherwise.
func conversionError(_ value: SQLiteValue, column: String, index: Int, type: Any.Type, sql: String? = nil) -> SQLiteError {
    let message = mismatchMessage(value, column: column, index: index, type: type)
    if case .invalidText = value { return SQLiteError(.invalidUTF8, message: message, sql: sql) }
    return SQLiteError(.mismatch, message: message, sql: sql)
}

/// "column 'age' (1) holds text, which does not convert to Int": the storage class, never the
/// value, so errors do not leak data into logs.
func mismatchMessage(_ value: SQLiteValue, column: String, index: Int, type: Any.Type) -> String {
    if case .invalidText(let bytes) = value {
        return "column '\(column)' (\(index)) holds text that is not valid UTF-8 (\(bytes.count) bytes), "
            + "which does not convert to \(type) without replacing bytes; read it as [UInt8] or Data for the bytes as stored"
    }
    return "column '\(column)' (\(index)) holds \(value.isNull ? "NULL" : value.storageClass), which does not convert to \(type)"
}
