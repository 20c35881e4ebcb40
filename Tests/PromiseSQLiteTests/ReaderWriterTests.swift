import PromiseCore
import PromiseSQLite
import Testing

/// ``SQLiteReader`` and ``SQLiteWriter``: one set of query methods for a database and a pool.
@Suite struct ReaderWriterTests {
    /// Code written once against the protocols, as a user would.
    private func addUser(_ name: String, to db: some SQLiteWriter) -> Promise<SQLiteChanges> {
        db.execute("INSERT INTO users(name) VALUES (?)", [name])
    }

    private func names(in db: some SQLiteReader) -> Promise<[String]> {
        db.query(String.self, "SELECT name FROM users ORDER BY name")
    }

    @Test func genericCodeRunsOnADatabaseAndOnAPool() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await SQLiteDatabase.open(path: dir("single.sqlite")).get()
        defer { db.close() }
        let pool = try await SQLiteDatabasePool.open(path: dir("pooled.sqlite"), readers: 2).get()
        defer { pool.close() }
        let writers: [any SQLiteWriter] = [db, pool]
        for writer in writers {
            try await writer.executeScript("CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT NOT NULL)").get()
            _ = try await addUser("Grace", to: writer).get()
            _ = try await addUser("Ada", to: writer).get()
            #expect(try await names(in: writer).get() == ["Ada", "Grace"])
            #expect(try await writer.scalar(Int.self, "SELECT count(*) FROM users").get() == 2)
            #expect(try await writer.queryFirst("SELECT name FROM users WHERE id = 1").get()?["name"] == .text("Grace"))
            #expect(try await writer.queryFirst(String.self, "SELECT name FROM users WHERE id = 99").get() == nil)
            #expect(try await writer.query("SELECT id FROM users").get().count == 2)
        }
    }

    @Test func withoutTransactionMeansEachStatementCommitsOnItsOwn() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        try await db.execute("CREATE TABLE t(n INTEGER NOT NULL)").get()
        let failed = db.writeWithoutTransaction { db in
            #expect(!db.isInTransaction)
            try db.execute("INSERT INTO t VALUES (1)")
            try db.execute("INSERT INTO t VALUES (NULL)")  // fails; the first insert stays
        }
        #expect(SQLiteError.Code.constraint.matches(await sqliteError(failed)?.code ?? .error))
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM t").get() == 1)
    }

    @Test func aPoolReadsOnAReaderAndWritesOnTheWriter() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let pool = try await SQLiteDatabasePool.open(path: dir("db.sqlite"), readers: 2).get()
        defer { pool.close() }
        try await pool.execute("CREATE TABLE t(n)").get()
        try await pool.writeWithoutTransaction { try $0.execute("INSERT INTO t VALUES (1)") }.get()
        let write = await sqliteError(pool.readWithoutTransaction { try $0.execute("INSERT INTO t VALUES (2)") })
        #expect(SQLiteError.Code.readOnly.matches(write?.code ?? .error), "\(String(describing: write))")
        #expect(try await pool.readWithoutTransaction { try $0.scalar(Int.self, "SELECT count(*) FROM t") }.get() == 1)
    }

    @Test func theConnectionIsInvalidOnceTheClosureReturned() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        let escaped = try await db.readWithoutTransaction { UncheckedBox($0) }.get()
        let late = await sqliteError(db.readWithoutTransaction { _ in try escaped.value.scalar(Int.self, "SELECT 1") })
        #expect(late?.code == .invalidUse)
    }
}
