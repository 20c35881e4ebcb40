internal import CSQLite
internal import PromiseSystem

/// Binds the parameters of a statement about to run: from ``SQLiteBindings``
/// (`Statement.bind(_:)`), or one value at a time (``ParameterBinder/bind(_:_:_:)``).
@usableFromInline
typealias Binder = (Statement) throws(SQLiteError) -> Void

/// One prepared statement. Owned by its connection's thread: created, stepped, reset and
/// finalized there only.
@usableFromInline
final class Statement {
    let handle: OpaquePointer
    let sql: String
    private let db: OpaquePointer
    /// The connection that prepared it, which owns it: told when a run fails, for its
    /// change observers.
    private unowned let connection: Connection
    private var cachedColumns: SQLiteColumns?
    /// `SQLITE_STMTSTATUS_REPREPARE` when `cachedColumns` was read: a schema change re-prepares
    /// the statement inside `sqlite3_step`, and its columns may differ afterwards.
    private var columnsPreparedAt: Int32 = -1
    private var finalized = false
    /// Set while a run of this statement is in progress, so the cache neither hands it out
    /// twice nor evicts it.
    var inUse = false
    /// When the cache last handed it out.
    var lastUse: UInt64 = 0

    init(handle: OpaquePointer, sql: String, connection: Connection) {
        self.handle = handle
        self.sql = sql
        self.db = connection.db
        self.connection = connection
    }

    deinit {
        finalize()
    }

    /// Releases the statement; later calls do nothing.
    func finalize() {
        guard !finalized else { return }
        finalized = true
        sqlite3_finalize(handle)
    }

    /// Clears the previous run: resets the statement (so it no longer counts as running, which
    /// also ends a stale `sqlite3_interrupt`). Parameters are unbound only when a large text or
    /// blob was bound, so a cached statement does not keep its copy alive; every run binds every
    /// parameter anyway.
    func reset() {
        sqlite3_reset(handle)
        if holdsLargeValue {
            sqlite3_clear_bindings(handle)
            holdsLargeValue = false
        }
    }

    /// Set when a text or blob of 4 KiB or more was bound.
    private var holdsLargeValue = false

    /// Binds `bindings` to the parameters; every parameter must get a value.
    func bind(_ bindings: SQLiteBindings) throws(SQLiteError) {
        let parameterCount = self.parameterCount
        switch bindings.storage {
        case .positional(let values):
            try checkCount(values.count, parameterCount)
            for (offset, value) in values.enumerated() {
                try bind(value, at: Int32(offset + 1), name: nil)
            }
        case .literal(let values):
            try checkCount(values.count, parameterCount)
            // Read through the buffer: subscripting the array copies each existential out
            // (and destroys the copy), about 150 instructions a value.
            try values.withUnsafeBufferPointer { (buffer) throws(SQLiteError) in
                for offset in buffer.indices {
                    try bind(buffer[offset]?.sqliteValue ?? .null, at: Int32(offset + 1), name: nil)
                }
            }
        case .named(let values):
            var bound = [String?](repeating: nil, count: parameterCount + 1)
            for (name, value) in values {
                // SQLite reads a name as a C string: "a\0x" would quietly bind ":a".
                guard !name.utf8.contains(0) else {
                    let shown = name.replacing("\u{0}", with: "\\0")
                    throw SQLiteError(.invalidBinding, message: "the parameter name '\(shown)' contains a NUL byte; no parameter can be named so", sql: sql)
                }
                let index = parameterIndex(of: name)
                guard index > 0 else {
                    throw SQLiteError(.invalidBinding, message: "the statement has no parameter named '\(name)'", sql: sql)
                }
                if let earlier = bound[Int(index)] {
                    let what = earlier == name ? "'\(name)' is given twice" : "'\(earlier)' and '\(name)' name the same parameter"
                    throw SQLiteError(.invalidBinding, message: "\(what); give each parameter one value", sql: sql)
                }
                try bind(value, at: index, name: name)
                bound[Int(index)] = name
            }
            if parameterCount > 0, let missing = (1...parameterCount).first(where: { bound[$0] == nil }) {
                let name = sqlite3_bind_parameter_name(handle, Int32(missing)).map { String(cString: $0) } ?? "?\(missing)"
                throw SQLiteError(.invalidBinding, message: "no value was given for parameter \(name)", sql: sql)
            }
        }
    }

    /// How many parameters the statement has (the largest `?NNN` index).
    var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }

    /// Binds `value` to the parameter at `index`, counted from 1.
    func bind(_ value: SQLiteValue, at index: Int32) throws(SQLiteError) {
        try bind(value, at: index, name: nil)
    }

    func checkCount(_ given: Int, _ parameterCount: Int) throws(SQLiteError) {
        guard given != parameterCount else { return }
        throw SQLiteError(
            .invalidBinding,
            message: "the statement has \(parameterCount) parameter\(parameterCount == 1 ? "" : "s") but \(given) value\(given == 1 ? " was" : "s were") given",
            sql: sql
        )
    }

    /// The index of `:name`, `@name` or `$name` (or of `name` spelled with its prefix); 0 if none.
    private func parameterIndex(of name: String) -> Int32 {
        if let first = name.utf8.first, first == UInt8(ascii: ":") || first == UInt8(ascii: "@") || first == UInt8(ascii: "$") {
            return sqlite3_bind_parameter_index(handle, name)
        }
        for prefix in [":", "@", "$"] {
            let index = sqlite3_bind_parameter_index(handle, prefix + name)
            if index > 0 { return index }
        }
        return 0
    }

    private func bind(_ value: SQLiteValue, at index: Int32, name: String?) throws(SQLiteError) {
        switch value {
        case .null:
            try checkBound(sqlite3_bind_null(handle, index))
        case .integer(let integer):
            try bind(integer: integer, at: index)
        case .real(let real):
            try bind(real: real, at: index, name: name)
        case .text(let text):
            try bind(text: text, at: index)
        case .invalidText(let bytes):
            try checkBound(bytes.withUnsafeBufferPointer { bind(utf8: $0, at: index) })
        case .blob(let bytes):
            let status = bytes.withUnsafeBytes { raw in
                guard let base = raw.baseAddress, raw.count > 0 else {
                    // A nil pointer would bind NULL, not the empty blob.
                    return sqlite3_bind_zeroblob(handle, index, 0)
                }
                if raw.count >= 4096 { holdsLargeValue = true }
                return sqlite3_bind_blob64(handle, index, base, UInt64(raw.count), csqlite_transient())
            }
            try checkBound(status)
        }
    }

    /// Binds `integer` to the parameter at `index`, counted from 1.
    @inline(__always)
    func bind(integer: Int64, at index: Int32) throws(SQLiteError) {
        try checkBound(sqlite3_bind_int64(handle, index, integer))
    }

    /// Binds `real` to the parameter at `index`; NaN is refused (SQLite would store NULL).
    /// `name` is the parameter's name for the error, when it was bound by name.
    @inline(__always)
    func bind(real: Double, at index: Int32, name: String? = nil) throws(SQLiteError) {
        guard !real.isNaN else {
            throw SQLiteError(
                .invalidBinding,
                message: "parameter \(name ?? String(index)) is NaN, which SQLite would store as NULL; bind nil if NULL is meant",
                sql: sql
            )
        }
        try checkBound(sqlite3_bind_double(handle, index, real))
    }

    /// Binds `text` to the parameter at `index`; SQLite copies it.
    @inline(__always)
    func bind(text: String, at index: Int32) throws(SQLiteError) {
        // A native string lends its UTF-8 in place; any other is copied into one first.
        let status =
            text.utf8.withContiguousStorageIfAvailable { bind(utf8: $0, at: index) }
            ?? {
                var native = text
                return native.withUTF8 { bind(utf8: $0, at: index) }
            }()
        try checkBound(status)
    }

    /// Binds `bytes` as text (SQLite copies them); returns SQLite's status.
    private func bind(utf8 bytes: UnsafeBufferPointer<UInt8>, at index: Int32) -> Int32 {
        // A nil pointer would bind NULL, not the empty string.
        guard let base = bytes.baseAddress else {
            return sqlite3_bind_text(handle, index, "", 0, csqlite_static())
        }
        if bytes.count >= 4096 { holdsLargeValue = true }
        return sqlite3_bind_text64(handle, index, base, UInt64(bytes.count), csqlite_transient(), UInt8(SQLITE_UTF8))
    }

    @inline(__always)
    private func checkBound(_ status: Int32) throws(SQLiteError) {
        guard status != SQLITE_OK else { return }
        throw sqliteError(status, db, sql: sql)
    }

    /// Advances to the next row: `true` when there is one, `false` when the statement is done.
    @inline(__always)
    func step() throws(SQLiteError) -> Bool {
        let status = sqlite3_step(handle)
        if status == SQLITE_ROW { return true }
        if status == SQLITE_DONE { return false }
        let error = sqliteError(status, db, sql: sql)
        connection.observationHub?.statementFailed(handle)
        throw error
    }

    /// The result columns' names, cached until SQLite re-prepares the statement (after a schema
    /// change). Read it after the first `step()`, which is where a re-prepare happens.
    var columns: SQLiteColumns {
        let prepared = sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_REPREPARE, 0)
        if let cachedColumns, prepared == columnsPreparedAt { return cachedColumns }
        columnsPreparedAt = prepared
        let count = Int(sqlite3_column_count(handle))
        let names = (0..<count).map { index in
            sqlite3_column_name(handle, Int32(index)).map { String(cString: $0) } ?? "column\(index)"
        }
        let columns = SQLiteColumns(names)
        cachedColumns = columns
        return columns
    }

    /// The current row's value in column `index`.
    @inline(__always)
    func value(at index: Int) -> SQLiteValue {
        Statement.value(of: handle, at: index)
    }

    /// The current row's value in column `index` of the statement `handle`
    /// (``SQLiteValue/init(copying:textAfterFailure:)``).
    @inline(__always)
    static func value(of handle: OpaquePointer, at index: Int) -> SQLiteValue {
        guard let value = sqlite3_column_value(handle, Int32(index)) else { return .null }
        return SQLiteValue(copying: value) { sqlite3_column_text(handle, Int32(index)) }
    }

    /// The current row, copied out of the statement.
    func row() -> SQLiteRow {
        row(columns: columns)
    }

    /// The current row, copied out of the statement, whose columns are `columns` (this
    /// statement's ``columns``, read after the first step).
    func row(columns: SQLiteColumns) -> SQLiteRow {
        let buffer = RowBuffer.make(columns: columns, rows: 1)
        buffer.appendRow(of: self)
        return SQLiteRow(buffer, start: 0)
    }

    /// Whether the statement only reads (`sqlite3_stmt_readonly`).
    var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }
}
