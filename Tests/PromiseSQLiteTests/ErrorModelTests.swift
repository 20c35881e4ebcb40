import PromiseCore
import PromiseSQLite
import PromiseTestSupport
import Testing

/// `SQLiteError` has the shape every product's error has (`PromiseLibraryError`).
@Suite struct SQLiteErrorModelTests {
    @Test func sqliteErrorFollowsTheModel() {
        expectTheErrorModel { SQLiteError(.constraintUnique, message: "UNIQUE constraint failed: users.email", sql: "INSERT INTO users …", underlying: $0) }
        #expect(SQLiteError(.error, message: "a", sql: "SELECT 1") != SQLiteError(.error, message: "a", sql: "SELECT 2"), "the SQL counts")
        // A bad argument and a misuse are two conditions, each printed by its own name.
        #expect(SQLiteError.Code.invalidArgument != .invalidUse)
        #expect(SQLiteError.Code.invalidArgument.name == "invalidArgument" && SQLiteError.Code.invalidUse.name == "invalidUse")
        #expect(SQLiteError.Code.invalidArgument.resultCode == nil && SQLiteError.Code.invalidArgument.primary == .invalidArgument)
    }
}

/// The adapters' deinit policy: a database dropped without `close()` is closed on its own
/// thread after its queued work; a close that succeeds loses nothing and is not reported.
@Suite struct SQLiteDeinitPolicyTests {
    @Test func aDatabaseDroppedWithoutCloseIsClosedAfterItsWork() async throws {
        NotShutDownRecorder.install
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let inserted: Promise<SQLiteChanges>
        do {
            let db = SQLiteDatabase(path: dir("dropped.sqlite"))
            _ = db.execute("CREATE TABLE t(n)")
            inserted = db.execute("INSERT INTO t VALUES (1)")
        }
        // The queued work still runs, then the connection closes on its thread.
        #expect(try await inserted.get().changes == 1)
        let reopened = try await SQLiteDatabase.open(path: dir("dropped.sqlite")).get()
        #expect(try await reopened.scalar(Int.self, "SELECT count(*) FROM t").get() == 1)
        try await reopened.close().get()
        #expect(NotShutDownRecorder.reports(mentioning: dir("dropped.sqlite")).isEmpty)
    }
}
