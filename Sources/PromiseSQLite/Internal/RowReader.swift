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
    /// another thread. Out of line, like every error of the read path: inlined, it would make
    /// each read reserve stack room for the error.
    @inline(never)
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
        return row.unsafelyUnwrapped[index]
    }

    /// Column `index` of the current row when it holds an integer or a real; `nil` for text,
    /// blobs and NULL. What the numeric reads try first: no text is copied for them.
    @inline(__always)
    func number(at index: Int) -> SQLiteValue? {
        guard let handle else {
            let value = row.unsafelyUnwrapped[index]
            switch value {
            case .integer, .real: return value
            default: return nil
            }
        }
        guard let value = sqlite3_column_value(handle, Int32(index)) else { return nil }
        return SQLiteValue.number(copying: value)
    }

    /// Column `index` of the current row when it holds valid UTF-8 text; `nil` otherwise
    /// (including when SQLite fails to hand the text over), where ``value(at:)`` says why.
    @inline(__always)
    func text(at index: Int) -> String? {
        guard let handle else {
            if case .text(let text) = row.unsafelyUnwrapped[index] { return text }
            return nil
        }
        guard let value = sqlite3_column_value(handle, Int32(index)) else { return nil }
        return SQLiteValue.validText(copying: value)
    }

    /// Whether column `index` of the current row is NULL, without reading its value.
    @inline(__always)
    func isNull(at index: Int) -> Bool {
        if let handle { return sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL }
        return row.unsafelyUnwrapped[index].isNull
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
