internal import CSQLite
internal import PromiseSystem

extension SQLiteValue {
    /// The value an `sqlite3_value` holds, copied out: the one conversion from SQLite's values
    /// to ``SQLiteValue``, used for columns (through `sqlite3_column_value`), for the arguments
    /// of scalar functions and for the steps of aggregates. Text that is not valid UTF-8 is
    /// kept byte for byte as ``invalidText(_:)``.
    ///
    /// The `sqlite3_value_*` calls skip the connection checks that every `sqlite3_column_*`
    /// call repeats (about 25 instructions a call, two or three calls a column). A column's
    /// value is unprotected: safe where only one thread uses the connection at a time, which is
    /// how every ``Connection`` is used, and valid until the statement steps, resets or is
    /// finalized, which the value is copied out before.
    ///
    /// - Parameters:
    ///   - value: The value, valid for the duration of the call.
    ///   - textAfterFailure: Asked for the text when `sqlite3_value_text` returns `NULL`, which
    ///     means SQLite ran out of memory adding the terminator or converting from UTF-16. A
    ///     column passes `sqlite3_column_text`, which then records the failure on its
    ///     statement; `nil` (the default) reads as empty text.
    @inline(__always)
    init(copying value: OpaquePointer, textAfterFailure: () -> UnsafePointer<UInt8>? = { nil }) {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER:
            self = .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT:
            self = .real(sqlite3_value_double(value))
        case SQLITE_TEXT:
            guard let text = sqlite3_value_text(value) ?? textAfterFailure() else {
                self = .text("")
                return
            }
            let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(value)))
            self = UTF8Text.string(validating: bytes).map { .text($0) } ?? .invalidText([UInt8](bytes))
        case SQLITE_BLOB:
            let count = Int(sqlite3_value_bytes(value))
            guard count > 0, let bytes = sqlite3_value_blob(value) else {
                self = .blob([])
                return
            }
            self = .blob([UInt8](UnsafeRawBufferPointer(start: bytes, count: count)))
        default:
            self = .null
        }
    }

    /// The number an `sqlite3_value` holds, as ``integer(_:)`` or ``real(_:)``; `nil` for
    /// text, blobs and `NULL`. What a numeric read tries before ``init(copying:textAfterFailure:)``:
    /// no text is copied for it.
    @inline(__always)
    static func number(copying value: OpaquePointer) -> SQLiteValue? {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
        default: return nil
        }
    }

    /// The text an `sqlite3_value` holds when it is valid UTF-8; `nil` for every other value,
    /// for text that is not UTF-8 and when SQLite fails to hand the text over, all of which
    /// ``init(copying:textAfterFailure:)`` tells apart. What a `String` read tries first.
    @inline(__always)
    static func validText(copying value: OpaquePointer) -> String? {
        guard sqlite3_value_type(value) == SQLITE_TEXT, let text = sqlite3_value_text(value) else { return nil }
        return UTF8Text.string(validating: UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(value))))
    }
}
