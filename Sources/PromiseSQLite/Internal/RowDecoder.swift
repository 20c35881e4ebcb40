/// Where ``RowDecoder`` reads values: the current row of a live statement, or a materialized
/// ``SQLiteRow``. One reader serves every row of a query, so what it learns on the first row
/// (which column each key is, the keyed container) is reused on the next ones.
final class RowReader {
    let columns: SQLiteColumns
    private let statement: Statement?
    private var row: SQLiteRow?
    /// For the n-th key looked up in a row, the column it was found in last time (-1: none).
    private var hints: [Int] = []
    private var position = 0
    /// The keyed container of the last row, reused when the next row asks for the same key type.
    var keyedContainer: AnyObject?
    var keyedContainerType: ObjectIdentifier?

    init(statement: Statement) {
        self.statement = statement
        columns = statement.columns
    }

    init(row: SQLiteRow) {
        statement = nil
        self.row = row
        columns = row.columns
    }

    /// Starts a new row: key lookups follow the previous row's order again.
    @inline(__always)
    func startRow() {
        position = 0
    }

    @inline(__always)
    func value(at index: Int) -> SQLiteValue {
        if let statement { return statement.value(at: index) }
        return row!.values[index]
    }

    /// Whether a column is called `name`, trying the hint for the next lookup first (what
    /// `decodeIfPresent` asks before it decodes).
    @inline(__always)
    func contains(_ name: String) -> Bool {
        if position < hints.count {
            let hint = hints[position]
            if hint >= 0, columns.names[hint] == name { return true }
        }
        return columns.index(of: name) != nil
    }

    /// The column called `name`: rows are decoded key by key in the same order each time, so
    /// the column found for this position on the previous row is tried before hashing.
    @inline(__always)
    func index(of name: String) -> Int? {
        if position < hints.count {
            let hint = hints[position]
            if hint >= 0, columns.names[hint] == name {
                position += 1
                return hint
            }
        }
        let found = columns.index(of: name)
        if position < hints.count {
            hints[position] = found ?? -1
        } else if hints.count < 256 {
            hints.append(found ?? -1)
        }
        position += 1
        return found
    }
}

/// Holds a keyed container so ``RowReader`` can keep it across rows without knowing its type.
final class KeyedContainerHolder<Key: CodingKey> {
    let container: KeyedDecodingContainer<Key>
    init(_ container: KeyedDecodingContainer<Key>) { self.container = container }
}

/// Decodes a row into a `Decodable` type: keyed containers read columns by name, a single value
/// container reads one column (the first, at the top level), an unkeyed container reads the
/// columns in order.
struct RowDecoder: Decoder {
    let source: RowReader
    /// The column a nested value decodes from; `nil` at the top level (the whole row).
    let column: Int?

    var codingPath: [any CodingKey] {
        column.map { [ColumnKey(source.columns.names[$0], index: $0)] } ?? []
    }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard let column else {
            if source.keyedContainerType == ObjectIdentifier(Key.self), let holder = source.keyedContainer {
                return unsafeDowncast(holder, to: KeyedContainerHolder<Key>.self).container
            }
            let container = KeyedDecodingContainer(KeyedColumns<Key>(source: source))
            source.keyedContainer = KeyedContainerHolder(container)
            source.keyedContainerType = ObjectIdentifier(Key.self)
            return container
        }
        throw DecodingError.typeMismatch(
            [String: Any].self,
            DecodingError.Context(
                codingPath: codingPath,
                debugDescription:
                    "column '\(source.columns.names[column])' holds one value, not a keyed structure; store nested values as JSON text and decode that text yourself"
            )
        )
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard let column else { return UnkeyedColumns(source: source) }
        throw DecodingError.typeMismatch(
            [Any].self,
            DecodingError.Context(
                codingPath: codingPath,
                debugDescription: "column '\(source.columns.names[column])' holds one value, not a list"
            )
        )
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        let index = column ?? 0
        guard index < source.columns.names.count else {
            throw DecodingError.valueNotFound(
                Any.self,
                DecodingError.Context(codingPath: codingPath, debugDescription: "the result has no columns")
            )
        }
        return SingleColumn(source: source, index: index)
    }
}

/// A column as a coding key.
struct ColumnKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(_ name: String, index: Int) {
        stringValue = name
        intValue = index
    }

    init?(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init?(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}

/// Converts column `index` of `source` to `T`, or throws the `DecodingError` a person can act on.
@inline(__always)
func decodeColumn<T: SQLiteValueConvertible>(
    _ type: T.Type, _ source: RowReader, _ index: Int, path: @autoclosure () -> [any CodingKey]
) throws -> T {
    let value = source.value(at: index)
    if let converted = T.fromSQLiteValue(value) { return converted }
    let message = mismatchMessage(value, column: source.columns.names[index], index: index, type: T.self)
    if value.isNull {
        throw DecodingError.valueNotFound(T.self, DecodingError.Context(codingPath: path(), debugDescription: message))
    }
    if case .invalidText = value {
        throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: path(), debugDescription: message))
    }
    throw DecodingError.typeMismatch(T.self, DecodingError.Context(codingPath: path(), debugDescription: message))
}

/// Decodes any `Decodable` from column `index`: directly when it is a
/// ``SQLiteValueConvertible``, otherwise through a single-column decoder (enums with raw values,
/// wrappers around one value).
@inline(__always)
func decodeAny<T: Decodable>(
    _ type: T.Type, _ source: RowReader, _ index: Int, path: @autoclosure () -> [any CodingKey]
) throws -> T {
    if let convertible = T.self as? any SQLiteValueConvertible.Type {
        return try decodeExisting(convertible, source, index, path: path()) as! T
    }
    return try T(from: RowDecoder(source: source, column: index))
}

private func decodeExisting<C: SQLiteValueConvertible>(
    _ type: C.Type, _ source: RowReader, _ index: Int, path: @autoclosure () -> [any CodingKey]
) throws -> C {
    try decodeColumn(C.self, source, index, path: path())
}

/// `UInt` and `UInt64` do not bind (they may not fit SQLite's signed integers) but decode when
/// the stored integer fits.
@inline(__always)
func decodeUnsigned<T: FixedWidthInteger & UnsignedInteger>(
    _ type: T.Type, _ source: RowReader, _ index: Int, path: @autoclosure () -> [any CodingKey]
) throws -> T {
    let integer = try decodeColumn(Int64.self, source, index, path: path())
    guard let value = T(exactly: integer) else {
        throw DecodingError.typeMismatch(
            T.self,
            DecodingError.Context(
                codingPath: path(),
                debugDescription: "column '\(source.columns.names[index])' (\(index)) holds a negative integer, which does not convert to \(T.self)"
            ))
    }
    return value
}

struct KeyedColumns<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let source: RowReader
    var codingPath: [any CodingKey] { [] }

    var allKeys: [Key] {
        source.columns.names.compactMap { Key(stringValue: $0) }
    }

    func contains(_ key: Key) -> Bool {
        source.contains(key.stringValue)
    }

    @inline(__always)
    private func index(_ key: Key) throws -> Int {
        if let index = source.index(of: key.stringValue) { return index }
        throw DecodingError.keyNotFound(
            key,
            DecodingError.Context(
                codingPath: [],
                debugDescription: "the result has no column named '\(key.stringValue)'; its columns are \(source.columns)"
            ))
    }

    func decodeNil(forKey key: Key) throws -> Bool { try source.value(at: index(key)).isNull }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try column(key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try column(key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try column(key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try column(key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try column(key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try column(key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try column(key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try column(key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try column(key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try column(key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try column(key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try column(key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        let index = try index(key)
        return try decodeUnsigned(UInt.self, source, index, path: [key])
    }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        let index = try index(key)
        return try decodeUnsigned(UInt64.self, source, index, path: [key])
    }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let index = try index(key)
        return try decodeAny(T.self, source, index, path: [key])
    }

    @inline(__always)
    private func column<T: SQLiteValueConvertible>(_ key: Key) throws -> T {
        let index = try index(key)
        return try decodeColumn(T.self, source, index, path: [key])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try RowDecoder(source: source, column: index(key)).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try RowDecoder(source: source, column: index(key)).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { RowDecoder(source: source, column: nil) }
    func superDecoder(forKey key: Key) throws -> any Decoder { try RowDecoder(source: source, column: index(key)) }
}

struct UnkeyedColumns: UnkeyedDecodingContainer {
    let source: RowReader
    var currentIndex = 0
    var codingPath: [any CodingKey] { [] }
    var count: Int? { source.columns.names.count }
    var isAtEnd: Bool { currentIndex >= source.columns.names.count }

    init(source: RowReader) {
        self.source = source
    }

    private func checkNotAtEnd<T>(_ type: T.Type) throws {
        guard isAtEnd else { return }
        throw DecodingError.valueNotFound(
            T.self,
            DecodingError.Context(
                codingPath: [],
                debugDescription: "the row has only \(source.columns.names.count) columns (\(source.columns))"
            ))
    }

    mutating func decodeNil() throws -> Bool {
        try checkNotAtEnd(Any.self)
        guard source.value(at: currentIndex).isNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try checkNotAtEnd(T.self)
        let index = currentIndex
        let value = try decodeAny(T.self, source, index, path: [ColumnKey(source.columns.names[index], index: index)])
        currentIndex += 1
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try checkNotAtEnd(NestedKey.self)
        defer { currentIndex += 1 }
        return try RowDecoder(source: source, column: currentIndex).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try checkNotAtEnd([Any].self)
        defer { currentIndex += 1 }
        return try RowDecoder(source: source, column: currentIndex).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        try checkNotAtEnd(Any.self)
        defer { currentIndex += 1 }
        return RowDecoder(source: source, column: currentIndex)
    }
}

struct SingleColumn: SingleValueDecodingContainer {
    let source: RowReader
    let index: Int
    var codingPath: [any CodingKey] { [ColumnKey(source.columns.names[index], index: index)] }

    func decodeNil() -> Bool { source.value(at: index).isNull }
    func decode(_ type: Bool.Type) throws -> Bool { try column() }
    func decode(_ type: String.Type) throws -> String { try column() }
    func decode(_ type: Double.Type) throws -> Double { try column() }
    func decode(_ type: Float.Type) throws -> Float { try column() }
    func decode(_ type: Int.Type) throws -> Int { try column() }
    func decode(_ type: Int8.Type) throws -> Int8 { try column() }
    func decode(_ type: Int16.Type) throws -> Int16 { try column() }
    func decode(_ type: Int32.Type) throws -> Int32 { try column() }
    func decode(_ type: Int64.Type) throws -> Int64 { try column() }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try column() }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try column() }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try column() }
    func decode(_ type: UInt.Type) throws -> UInt { try decodeUnsigned(UInt.self, source, index, path: codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeUnsigned(UInt64.self, source, index, path: codingPath) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let convertible = T.self as? any SQLiteValueConvertible.Type {
            return try open(convertible) as! T
        }
        // Not a column type: let T decode itself from this one column (a RawRepresentable
        // enum asks for a single value container again and gets this column).
        return try T(from: RowDecoder(source: source, column: index))
    }

    private func open<C: SQLiteValueConvertible>(_ type: C.Type) throws -> C {
        try decodeColumn(C.self, source, index, path: codingPath)
    }

    @inline(__always)
    private func column<T: SQLiteValueConvertible>() throws -> T {
        try decodeColumn(T.self, source, index, path: codingPath)
    }
}

/// Decodes rows into `T`: a column type (`Int`, `String`, …) from the first column, anything
/// else through ``RowDecoder``. Decides once per query, not once per row.
struct RowDecoding<T: Decodable> {
    let reader: RowReader
    private let single: Bool

    init(_ type: T.Type, reader: RowReader) {
        self.reader = reader
        single = T.self is any SQLiteValueConvertible.Type && !reader.columns.names.isEmpty
    }

    /// Drops the cached keyed container, which refers back to the reader: call when done.
    func finish() {
        reader.keyedContainer = nil
        reader.keyedContainerType = nil
    }

    /// Decodes the reader's current row.
    @inline(__always)
    func decode() throws -> T {
        reader.startRow()
        if single {
            return try decodeAny(T.self, reader, 0, path: [ColumnKey(reader.columns.names[0], index: 0)])
        }
        return try T(from: RowDecoder(source: reader, column: nil))
    }
}
