import PromiseSQLite
import PromiseTestSupport
import Testing

/// `SQLiteError` has the shape every product's error has (`PromiseLibraryError`).
@Suite struct SQLiteErrorModelTests {
    @Test func sqliteErrorFollowsTheModel() {
        expectTheErrorModel { SQLiteError(.constraintUnique, message: "UNIQUE constraint failed: users.email", sql: "INSERT INTO users …", underlying: $0) }
        #expect(SQLiteError(.error, message: "a", sql: "SELECT 1") != SQLiteError(.error, message: "a", sql: "SELECT 2"), "the SQL counts")
        #expect(SQLiteError.Code.shutdown == .closed && SQLiteError.Code.invalidArgument == .invalidUse)
    }
}
