/// Holds a keyed container so ``RowReader`` can keep it across rows without knowing its type.
///
/// The holder is generic over the container's whole type, not over its key: ``container()``
/// then copies the container with the type information the holder's own class carries. In
/// ``RowDecoder``, where the key type is known only at run time, copying a
/// `KeyedDecodingContainer<Key>` asks the runtime for that type on every row (a hash lookup of
/// about 330 instructions, `Benchmarks/sqlite-counts.sh`).
final class KeyedContainerHolder<Container> {
    private let value: Container
    init(_ value: Container) { self.value = value }

    /// The held container. Not inlined: inlined into generic code, the copy would look the
    /// container's type up again.
    @inline(never)
    func container() -> Container { value }
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
                return unsafeDowncast(holder, to: KeyedContainerHolder<KeyedDecodingContainer<Key>>.self).container()
            }
            return Self.makeKeyedContainer(Key.self, source)
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

    /// A new keyed container for the rows `source` reads, kept in `source` for the next rows.
    /// Out of line: a local `KeyedDecodingContainer<Key>` in ``container(keyedBy:)`` would make
    /// every call look its type up to size the stack.
    @inline(never)
    private static func makeKeyedContainer<Key: CodingKey>(_ type: Key.Type, _ source: RowReader) -> KeyedDecodingContainer<Key> {
        let container = KeyedDecodingContainer(KeyedColumns<Key>(source: source))
        source.keyedContainer = KeyedContainerHolder(container)
        source.keyedContainerType = ObjectIdentifier(Key.self)
        return container
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
    try convertColumn(source.value(at: index), T.self, source, index, path: path())
}

/// Converts `value`, read from column `index` of `source`, to `T`, or throws the
/// `DecodingError` a person can act on.
@inline(__always)
func convertColumn<T: SQLiteValueConvertible>(
    _ value: SQLiteValue, _ type: T.Type, _ source: RowReader, _ index: Int, path: @autoclosure () -> [any CodingKey]
) throws -> T {
    if let converted = T.fromSQLiteValue(value) { return converted }
    throw conversionFailure(value, T.self, source, index, path: path())
}

/// The `DecodingError` for `value`, read from column `index` of `source`, not converting to
/// `type`. Out of line, so that the functions that read a column keep no room on their stack
/// for the error.
@inline(never)
func conversionFailure(_ value: SQLiteValue, _ type: Any.Type, _ source: RowReader, _ index: Int, path: [any CodingKey]) -> DecodingError {
    let cause = conversionError(value, column: source.columns.names[index], index: index, type: type)
    let context = DecodingError.Context(codingPath: path, debugDescription: cause.message, underlyingError: cause)
    if value.isNull { return DecodingError.valueNotFound(type, context) }
    if case .invalidText = value { return DecodingError.dataCorrupted(context) }
    return DecodingError.typeMismatch(type, context)
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

/// Decodes rows into `T`: a column type (`Int`, `String`, …) from the first column, anything
/// else through ``RowDecoder``. Decides once per query, not once per row.
struct RowDecoding<T: Decodable> {
    let reader: RowReader
    private let single: Bool
    private let previous: UnsafeMutableRawPointer?

    /// Starts decoding on the calling thread with `reader` (``RowReader/enter()``): call
    /// ``finish()`` on the same thread when done.
    init(_ type: T.Type, reader: RowReader) {
        self.reader = reader
        single = T.self is any SQLiteValueConvertible.Type && !reader.columns.names.isEmpty
        previous = reader.enter()
    }

    /// Ends the decoding: the reader stops being the thread's, and its cached keyed container
    /// is dropped.
    func finish() {
        RowReader.leave(previous)
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
