/// The error of every PromiseSQLite operation: SQLite's result code and message, and the SQL
/// that failed.
///
/// ```swift
/// do {
///     _ = try await db.execute("INSERT INTO users(email) VALUES (?)", ["ada@example.com"]).get()
/// } catch SQLiteError.Code.constraint {
///     // matches every constraint code: unique, foreign key, not null, check …
/// }
/// ```
///
/// Bound values are never part of the error or its description, so logging an error does not
/// log the data that was being written.
public struct SQLiteError: PromiseLibraryError {
    /// The code: an extended SQLite result code, or a condition PromiseSQLite detects itself.
    public let code: Code
    /// SQLite's own message (`sqlite3_errmsg`), or PromiseSQLite's explanation.
    public let message: String
    /// The SQL text of the statement that failed, when there was one.
    public let sql: String?
    /// The error that caused this one, if any.
    public var underlying: (any Error)? { cause.error }
    private let cause: UnderlyingCause

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The code.
    ///   - message: What went wrong, in words a person can act on.
    ///   - sql: The statement that failed, if any.
    ///   - underlying: The error that caused this one, if any.
    public init(_ code: Code, message: String, sql: String? = nil, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
        self.cause = UnderlyingCause(underlying)
    }

    /// One line in the format every product's error shares, with the statement flattened to
    /// one line and cut at 200 characters:
    /// `SQLiteError.constraintUnique (SQLite 2067): UNIQUE constraint failed: users.email — INSERT INTO users …`.
    public var description: String {
        let statement = sql.map { sql in
            let flat = sql.split(whereSeparator: \.isNewline).joined(separator: " ")
            return flat.count > 200 ? flat.prefix(200) + "…" : flat
        }
        return libraryErrorDescription(cCode: code.resultCode.map { "SQLite \($0)" }, context: statement)
    }
}
