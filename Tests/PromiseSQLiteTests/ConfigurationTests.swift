import Glibc
import PromiseSQLite
import Synchronization
import Testing

@Suite struct ConfigurationTests {
    @Test func theSafeDefaultsAreApplied() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await SQLiteDatabase.open(path: dir("db.sqlite")).get()
        defer { db.close() }
        #expect(try await db.scalar(Int.self, "PRAGMA foreign_keys").get() == 1)
        // The busy timeout is PromiseSQLite's own busy handler (one that stops waiting on
        // cancel), so PRAGMA busy_timeout does not show it: ConcurrencyTests time the wait.
        #expect(SQLiteConfiguration().busyTimeout == .seconds(5))
        #expect(try await db.scalar(Int.self, "PRAGMA synchronous").get() == 2, "FULL")
        #expect(try await db.scalar(Int.self, "PRAGMA trusted_schema").get() == 0)
        #expect(try await db.scalar(String.self, "PRAGMA journal_mode").get() == "delete")
        // Defensive mode: even with writable_schema on, the schema table cannot be written.
        try await db.execute("CREATE TABLE t(a)").get()
        try await db.execute("PRAGMA writable_schema = ON").get()
        let error = await sqliteError(db.execute("UPDATE sqlite_schema SET sql = 'garbage' WHERE name = 't'"))
        #expect(error != nil)
        #expect(try await db.scalar(String.self, "SELECT sql FROM sqlite_schema WHERE name = 't'").get() == "CREATE TABLE t(a)")
    }

    @Test func optionsAreApplied() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        var configuration = SQLiteConfiguration()
        configuration.journalMode = .wal
        configuration.synchronous = .normal
        configuration.foreignKeys = false
        configuration.busyTimeout = .milliseconds(1234)
        let db = try await SQLiteDatabase.open(path: dir("db.sqlite"), configuration: configuration).get()
        defer { db.close() }
        #expect(try await db.scalar(String.self, "PRAGMA journal_mode").get() == "wal")
        #expect(try await db.scalar(Int.self, "PRAGMA synchronous").get() == 1)
        #expect(try await db.scalar(Int.self, "PRAGMA foreign_keys").get() == 0)
    }

    @Test func readOnlyAndNoCreateAccessAreHonoured() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        var mustExist = SQLiteConfiguration()
        mustExist.access = .readWrite
        let error = await sqliteError(SQLiteDatabase.open(path: dir("absent.sqlite"), configuration: mustExist))
        #expect(error?.code == .cannotOpen)
        let created = try await SQLiteDatabase.open(path: dir("absent.sqlite")).get()
        try await created.close().get()
        let reopened = try await SQLiteDatabase.open(path: dir("absent.sqlite"), configuration: mustExist).get()
        try await reopened.close().get()
    }
}

@Suite struct DatabasePoolTests {
    @Test func readsRunConcurrentlyOnSeveralReaders() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let pool = try await SQLiteDatabasePool.open(path: dir("db.sqlite"), readers: 4).get()
        defer { pool.close() }
        #expect(pool.readers.count == 4)
        try await pool.execute("CREATE TABLE t(n)").get()
        let inside = Atomic<Int>(0)
        // Each read waits until all four are inside at once: only possible on four threads.
        let reads = (0..<4).map { _ in
            pool.read { db -> Bool in
                inside.add(1, ordering: .relaxed)
                let deadline = ContinuousClock.now + .seconds(10)
                while inside.load(ordering: .relaxed) < 4 && ContinuousClock.now < deadline { usleep(1000) }
                return try db.scalar(Int.self, "SELECT count(*) FROM t") == 0
            }
        }
        #expect(try await all(reads).get() == [true, true, true, true])
    }

    @Test func readersAreNotBlockedByAWriterAndSeeOnlyCommittedData() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let pool = try await SQLiteDatabasePool.open(path: dir("db.sqlite"), readers: 2).get()
        defer { pool.close() }
        try await pool.execute("CREATE TABLE t(n)").get()
        try await pool.execute("INSERT INTO t VALUES (1)").get()
        let entered = Gate()
        let proceed = Gate()
        let writing = pool.transaction { db in
            try db.execute("INSERT INTO t VALUES (2)")
            entered.open()
            proceed.wait()
        }
        try await entered.opened()
        // The writer holds its transaction open; reads still complete, without the uncommitted row.
        #expect(try await pool.query(Int.self, "SELECT n FROM t").get() == [1])
        #expect(try await pool.scalar(Int.self, "SELECT count(*) FROM t").get() == 1)
        let write = await sqliteError(pool.read { db in try db.execute("INSERT INTO t VALUES (3)") })
        #expect(SQLiteError.Code.readOnly.matches(write?.code ?? .error))
        proceed.open()
        try await writing.get()
        #expect(try await pool.query(Int.self, "SELECT n FROM t ORDER BY n").get() == [1, 2])
    }

    @Test func aPoolRefusesInMemoryDatabasesAndZeroReaders() async throws {
        #expect(await sqliteError(SQLiteDatabasePool.open(path: ":memory:"))?.code == .invalidUse)
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        #expect(await sqliteError(SQLiteDatabasePool.open(path: dir("db.sqlite"), readers: 0))?.code == .invalidUse)
    }

    /// A reader count past ``SQLiteDatabasePool/maxReaders`` (each reader is a thread) is refused
    /// with the range, and opens nothing; `Int.max` used to trap while reserving the readers.
    @Test(arguments: [SQLiteDatabasePool.maxReaders + 1, 1_000_000, Int.max, Int.min])
    func aPoolRefusesAReaderCountOutOfRange(readers: Int) async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let error = await sqliteError(SQLiteDatabasePool.open(path: dir("db.sqlite"), readers: readers))
        #expect(error?.code == .invalidUse)
        #expect(error?.message.contains("1 to \(SQLiteDatabasePool.maxReaders) readers") == true, "\(String(describing: error))")
        #expect(access(dir("db.sqlite"), F_OK) != 0, "nothing was opened")
    }
}
