internal import CSQLite
import Glibc
import Synchronization

/// Where ``RowDecoder`` reads values: the current row of a live statement, or a materialized
/// ``SQLiteRow``. One reader serves every row of a query, so what it learns on the first row
/// (which column each key is, the keyed container) is reused on the next ones. While it
/// decodes, it is its thread's current reader (``enter()``), which is how ``KeyedColumns``
/// finds it.
///
/// A reader belongs to one decoding loop on one thread, so its mutable state is exempt from
/// the run-time exclusivity checks (about 230 instructions a three-field row).
final class RowReader {
    let columns: SQLiteColumns
    /// The live statement's handle, read without retaining its ``Statement``: values are read
    /// only while the reader decodes on the calling thread (every container checks), and the
    /// decoding loop holds the statement until then.
    private let handle: OpaquePointer?
    private let row: SQLiteRow?
    /// The keys looked up in a row, in order, each with the column it named: the plan the next
    /// row is decoded by. Synthesized `init(from:)` asks for the same keys in the same order on
    /// every row, so a lookup is normally one comparison with the planned key.
    @exclusivity(unchecked) private var plan: [PlannedKey] = []
    @exclusivity(unchecked) private var position = 0
    /// The keyed container of the last row, reused when the next row asks for the same key type.
    @exclusivity(unchecked) var keyedContainer: AnyObject?
    @exclusivity(unchecked) var keyedContainerType: ObjectIdentifier?

    /// A key the plan expects at one position of the row.
    private struct PlannedKey {
        /// The key's type.
        var type: ObjectIdentifier
        /// The key's bytes when its type is trivially copyable and at most eight bytes (a
        /// synthesized `CodingKeys` case is one byte); `nil` otherwise.
        var bits: UInt64?
        /// The column it names, -1 when the result has none by that name.
        var column: Int
    }

    /// Tells this reader from every other: ``KeyedColumns`` holds it instead of a reference.
    let generation: UInt64

    private static let generations = Atomic<UInt64>(0)

    /// The thread-specific slot that holds the reader decoding on each thread.
    static let currentKey: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed (\(status)): no thread-specific key is left")
        return key
    }()

    init(statement: Statement) {
        handle = statement.handle
        row = nil
        columns = statement.columns
        generation = Self.generations.add(1, ordering: .relaxed).newValue
    }

    init(row: SQLiteRow) {
        handle = nil
        self.row = row
        columns = row.columns
        generation = Self.generations.add(1, ordering: .relaxed).newValue
    }

    /// Makes this reader the one decoding on the calling thread, until ``leave(_:)`` with what
    /// this returns (the reader it replaces, for a row decoded inside another's `init(from:)`).
    func enter() -> UnsafeMutableRawPointer? {
        let previous = pthread_getspecific(Self.currentKey)
        pthread_setspecific(Self.currentKey, Unmanaged.passUnretained(self).toOpaque())
        return previous
    }

    /// Puts back the reader that ``enter()`` replaced.
    static func leave(_ previous: UnsafeMutableRawPointer?) {
        pthread_setspecific(currentKey, previous)
    }

    /// Whether this reader is decoding on the calling thread.
    var isDecodingHere: Bool {
        pthread_getspecific(Self.currentKey) == Unmanaged.passUnretained(self).toOpaque()
    }

    /// Throws unless this reader is decoding on the calling thread: what the containers that
    /// hold the reader check before they read a value.
    func checkDecoding() throws {
        guard isDecodingHere else { throw Self.outsideDecoding() }
    }

    /// The error for a decoder or container used after its query's rows were decoded, or on
    /// another thread.
    static func outsideDecoding() -> DecodingError {
        DecodingError.dataCorrupted(
            DecodingError.Context(
                codingPath: [],
                debugDescription:
                    "a row's decoder or container was used after the query's rows were decoded, or on another thread; read every value inside init(from:), where they are handed out"
            ))
    }

    /// The reader numbered `generation`, if it is decoding on the calling thread (`key` is
    /// ``currentKey``). It is alive: its decoding loop holds it until ``leave(_:)``.
    @inline(__always)
    static func current(_ generation: UInt64, key: pthread_key_t) -> Unmanaged<RowReader>? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        let reader = Unmanaged<RowReader>.fromOpaque(pointer)
        return reader._withUnsafeGuaranteedRef { $0.generation == generation } ? reader : nil
    }

    /// Starts a new row: key lookups follow the plan from its start again.
    @inline(__always)
    func startRow() {
        position = 0
    }

    @inline(__always)
    func value(at index: Int) -> SQLiteValue {
        if let handle { return Statement.value(of: handle, at: index) }
        return row.unsafelyUnwrapped.values[index]
    }

    /// Whether column `index` of the current row is NULL, without reading its value.
    @inline(__always)
    func isNull(at index: Int) -> Bool {
        if let handle { return sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL }
        return row.unsafelyUnwrapped.values[index].isNull
    }

    /// `key`'s bytes, when equal bytes mean an equal key: its type is trivially copyable (no
    /// references, so the bytes are the whole value) and 0, 1, 2, 4 or 8 bytes long. A key's
    /// `stringValue` is taken to depend on its value alone, as every `CodingKey` the compiler
    /// synthesizes does.
    @inline(__always)
    private static func bits<Key: CodingKey>(of key: Key) -> UInt64? {
        guard _isPOD(Key.self) else { return nil }
        switch MemoryLayout<Key>.size {
        case 0: return 0
        case 1: return UInt64(unsafeBitCast(key, to: UInt8.self))
        case 2: return UInt64(unsafeBitCast(key, to: UInt16.self))
        case 4: return UInt64(unsafeBitCast(key, to: UInt32.self))
        case 8: return unsafeBitCast(key, to: UInt64.self)
        default: return nil
        }
    }

    /// The column the plan has for `key` at the current position, if the planned key is
    /// `key`: -1 for a key the result has no column for.
    @inline(__always)
    private func planned<Key: CodingKey>(_ key: Key) -> Int? {
        guard position < plan.count, let bits = Self.bits(of: key) else { return nil }
        let entry = plan[position]
        guard entry.bits == bits, entry.type == ObjectIdentifier(Key.self) else { return nil }
        return entry.column
    }

    /// Whether the result has a column for `key` (what `decodeIfPresent` asks before it decodes).
    @inline(__always)
    func contains<Key: CodingKey>(_ key: Key) -> Bool {
        if let column = planned(key) { return column >= 0 }
        return columns.index(of: key.stringValue) != nil
    }

    /// The column for `key`, following the plan: the key planned at this position is compared
    /// with `key` before its name is looked up.
    @inline(__always)
    func index<Key: CodingKey>(of key: Key) -> Int? {
        if let column = planned(key) {
            position += 1
            return column >= 0 ? column : nil
        }
        return lookUp(key)
    }

    /// Finds `key`'s column by name and records it in the plan at the current position.
    @inline(never)
    private func lookUp<Key: CodingKey>(_ key: Key) -> Int? {
        let name = key.stringValue
        var found: Int?
        // A key whose bytes do not identify it: its name is compared with the planned column's.
        if position < plan.count, plan[position].bits == nil, plan[position].column >= 0,
            columns.names[plan[position].column] == name
        {
            found = plan[position].column
        } else {
            found = columns.index(of: name)
        }
        let entry = PlannedKey(type: ObjectIdentifier(Key.self), bits: Self.bits(of: key), column: found ?? -1)
        if position < plan.count {
            plan[position] = entry
        } else if plan.count < 256 {
            plan.append(entry)
        }
        position += 1
        return found
    }
}

/// Names a ``RowReader`` without holding a reference to it: its ``RowReader/generation``.
/// The reader is reached through ``RowReader/current(_:key:)``, so only while it decodes on
/// the calling thread.
///
/// The keyed container holds this: the standard library copies a keyed container for every
/// value it decodes, and a reference would be retained and released each time. A container
/// kept after its query's rows were decoded, or used from another thread, throws instead of
/// reading a statement that has moved on or been finalized. (Kept from one row and used while
/// a later row of the same query decodes, it reads that later row, as the decoder does.)
struct ReaderReference {
    let generation: UInt64
    /// ``RowReader/currentKey``, copied here so that reading it needs no check that the
    /// global is initialized.
    let currentKey: pthread_key_t

    init(_ reader: RowReader) {
        generation = reader.generation
        currentKey = RowReader.currentKey
    }

    /// Runs `body` with the reader, which stays alive (it is decoding) without being retained.
    @inline(__always)
    func withReader<R>(_ body: (RowReader) throws -> R) throws -> R {
        guard let reader = RowReader.current(generation, key: currentKey) else { throw RowReader.outsideDecoding() }
        return try reader._withUnsafeGuaranteedRef(body)
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
    try convertColumn(source.value(at: index), T.self, source, index, path: path())
}

/// Converts `value`, read from column `index` of `source`, to `T`, or throws the
/// `DecodingError` a person can act on.
@inline(__always)
func convertColumn<T: SQLiteValueConvertible>(
    _ value: SQLiteValue, _ type: T.Type, _ source: RowReader, _ index: Int, path: @autoclosure () -> [any CodingKey]
) throws -> T {
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
        throw DecodingError.keyNotFound(
            key,
            DecodingError.Context(
                codingPath: [],
                debugDescription: "the result has no column named '\(key.stringValue)'; its columns are \(source.columns)"
            ))
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        try withSource { source in try source.isNull(at: Self.index(key, source)) }
    }
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
        try withSource { source in try decodeUnsigned(UInt.self, source, Self.index(key, source), path: [key]) }
    }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try withSource { source in try decodeUnsigned(UInt64.self, source, Self.index(key, source), path: [key]) }
    }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try withSource { source in try decodeAny(T.self, source, Self.index(key, source), path: [key]) }
    }

    @inline(__always)
    private func column<T: SQLiteValueConvertible>(_ key: Key) throws -> T {
        try withSource { source in try decodeColumn(T.self, source, Self.index(key, source), path: [key]) }
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
