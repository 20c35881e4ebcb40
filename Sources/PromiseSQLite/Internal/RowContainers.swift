/// The keyed container of a row. It reads through a ``ReaderReference``, so copying it (the
/// standard library's box does for every value) costs no reference counting (about 150
/// instructions a three-field row).
struct KeyedColumns<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let reader: ReaderReference

    init(source: RowReader) {
        reader = ReaderReference(source)
    }

    var codingPath: [any CodingKey] { [] }

    @inline(__always)
    private func withSource<R>(_ body: (RowReader) throws -> R) throws -> R {
        try reader.withReader(body)
    }

    var allKeys: [Key] {
        (try? withSource { source in source.columns.names.compactMap { Key(stringValue: $0) } }) ?? []
    }

    func contains(_ key: Key) -> Bool {
        (try? withSource { $0.contains(key) }) ?? false
    }

    @inline(__always)
    private static func index(_ key: Key, _ source: RowReader) throws -> Int {
        if let index = source.index(of: key) { return index }
        throw missingColumn(key, source)
    }

    /// The error for `key` naming no column of the result.
    @inline(never)
    private static func missingColumn(_ key: Key, _ source: RowReader) -> DecodingError {
        let message = "the result has no column named '\(key.stringValue)'; its columns are \(source.columns)"
        return DecodingError.keyNotFound(
            key,
            DecodingError.Context(codingPath: [], debugDescription: message, underlyingError: SQLiteError(.range, message: message)))
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        try withSource { source in try source.isNull(at: Self.index(key, source)) }
    }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try numericColumn(key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try textColumn(key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try numericColumn(key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try numericColumn(key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try numericColumn(key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try numericColumn(key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try numericColumn(key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try numericColumn(key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try numericColumn(key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try numericColumn(key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try numericColumn(key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try numericColumn(key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        try withSource { source in try decodeUnsigned(UInt.self, source, Self.index(key, source), path: [key]) }
    }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try withSource { source in try decodeUnsigned(UInt64.self, source, Self.index(key, source), path: [key]) }
    }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try withSource { source in try decodeAny(T.self, source, Self.index(key, source), path: [key]) }
    }

    // The reads of one type try the common case first: a number read as a number, text as a
    // string, converted by the type's own `fromSQLiteValue`. Anything else (NULL, another
    // storage class, a number that does not fit, text that is not UTF-8) goes through
    // `decodeColumn`, which converts the same way and throws the error that says why.

    @inline(__always)
    private func numericColumn<T: SQLiteValueConvertible>(_ key: Key) throws -> T {
        try withSource { source in
            let index = try Self.index(key, source)
            if let number = source.number(at: index), let converted = T.fromSQLiteValue(number) { return converted }
            return try decodeColumn(T.self, source, index, path: [key])
        }
    }

    @inline(__always)
    private func textColumn(_ key: Key) throws -> String {
        try withSource { source in
            let index = try Self.index(key, source)
            if let text = source.text(at: index) { return text }
            return try decodeColumn(String.self, source, index, path: [key])
        }
    }

    // `decodeIfPresent` answers `nil` for a missing column or a NULL, like the protocol's own
    // version, but finds the column once where that one asks `contains`, `decodeNil` and
    // `decode` in turn.
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try optionalColumn(key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try optionalColumn(key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try optionalColumn(key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try optionalColumn(key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try optionalColumn(key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try optionalColumn(key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try optionalColumn(key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try optionalColumn(key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try optionalColumn(key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try optionalColumn(key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try optionalColumn(key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try optionalColumn(key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
        try withSource { source in
            guard let index = Self.presentIndex(key, source) else { return nil }
            return try decodeUnsigned(UInt.self, source, index, path: [key])
        }
    }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        try withSource { source in
            guard let index = Self.presentIndex(key, source) else { return nil }
            return try decodeUnsigned(UInt64.self, source, index, path: [key])
        }
    }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try withSource { source in
            guard let index = Self.presentIndex(key, source) else { return nil }
            return try decodeAny(T.self, source, index, path: [key])
        }
    }

    /// The column for `key` when the result has one and its value is not NULL.
    @inline(__always)
    private static func presentIndex(_ key: Key, _ source: RowReader) -> Int? {
        guard let index = source.index(of: key), !source.isNull(at: index) else { return nil }
        return index
    }

    @inline(__always)
    private func optionalColumn<T: SQLiteValueConvertible>(_ key: Key) throws -> T? {
        try withSource { source in
            guard let index = source.index(of: key) else { return nil }
            let value = source.value(at: index)
            if value.isNull { return nil }
            return try convertColumn(value, T.self, source, index, path: [key])
        }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try withSource { source in try RowDecoder(source: source, column: Self.index(key, source)).container(keyedBy: type) }
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try withSource { source in try RowDecoder(source: source, column: Self.index(key, source)).unkeyedContainer() }
    }

    func superDecoder() throws -> any Decoder {
        try withSource { source in RowDecoder(source: source, column: nil) }
    }
    func superDecoder(forKey key: Key) throws -> any Decoder {
        try withSource { source in try RowDecoder(source: source, column: Self.index(key, source)) }
    }
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
        try source.checkDecoding()
        try checkNotAtEnd(Any.self)
        guard source.isNull(at: currentIndex) else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try source.checkDecoding()
        try checkNotAtEnd(T.self)
        let index = currentIndex
        let value = try decodeAny(T.self, source, index, path: [ColumnKey(source.columns.names[index], index: index)])
        currentIndex += 1
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try source.checkDecoding()
        try checkNotAtEnd(NestedKey.self)
        defer { currentIndex += 1 }
        return try RowDecoder(source: source, column: currentIndex).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try source.checkDecoding()
        try checkNotAtEnd([Any].self)
        defer { currentIndex += 1 }
        return try RowDecoder(source: source, column: currentIndex).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        try source.checkDecoding()
        try checkNotAtEnd(Any.self)
        defer { currentIndex += 1 }
        return RowDecoder(source: source, column: currentIndex)
    }
}

struct SingleColumn: SingleValueDecodingContainer {
    let source: RowReader
    let index: Int
    var codingPath: [any CodingKey] { [ColumnKey(source.columns.names[index], index: index)] }

    /// `false` outside the decoding, so that the `decode` that follows throws.
    func decodeNil() -> Bool { source.isDecodingHere && source.isNull(at: index) }
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
    func decode(_ type: UInt.Type) throws -> UInt {
        try source.checkDecoding()
        return try decodeUnsigned(UInt.self, source, index, path: codingPath)
    }
    func decode(_ type: UInt64.Type) throws -> UInt64 {
        try source.checkDecoding()
        return try decodeUnsigned(UInt64.self, source, index, path: codingPath)
    }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try source.checkDecoding()
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
        try source.checkDecoding()
        return try decodeColumn(T.self, source, index, path: codingPath)
    }
}
