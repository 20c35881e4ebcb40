internal import CSQLite

/// Turns an SQLite result code into ``SQLiteError`` (the module's one check function).
///
/// - Parameters:
///   - code: What the C call returned.
///   - db: The connection, for `sqlite3_errmsg` and the extended code; `nil` before one exists.
///   - sql: The statement, for the error's context.
/// - Throws: ``SQLiteError`` unless `code` is `SQLITE_OK`, `SQLITE_ROW` or `SQLITE_DONE`.
@inline(__always)
func sqliteCheck(_ code: Int32, _ db: OpaquePointer?, sql: String? = nil) throws(SQLiteError) {
    guard code != SQLITE_OK, code != SQLITE_ROW, code != SQLITE_DONE else { return }
    throw sqliteError(code, db, sql: sql)
}

/// The error for a failed call: the connection's extended code and message when they describe
/// `code`, otherwise SQLite's generic text for it.
func sqliteError(_ code: Int32, _ db: OpaquePointer?, sql: String?) -> SQLiteError {
    var extended = code
    var message = String(cString: sqlite3_errstr(code))
    var underlying: (any Error)?
    if let db {
        let connectionCode = sqlite3_extended_errcode(db)
        if connectionCode & 0xff == code & 0xff {
            extended = connectionCode
            message = String(cString: sqlite3_errmsg(db))
            // A Swift SQL function that threw failed the statement: keep its error.
            underlying = FunctionFailure.take(message: message)
        }
    }
    return SQLiteError(SQLiteError.Code(resultCode: extended), message: message, sql: sql, underlying: underlying)
}
