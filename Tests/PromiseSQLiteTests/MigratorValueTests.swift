import Dispatch
import Glibc
import PromiseCore
import PromiseSQLite
import PromiseTestSupport
import Synchronization
import Testing

/// The migrator as a value: transaction control refused before it runs, `migrate(upTo:)`,
/// whether a database is complete or superseded, waiting for another connection's migration,
/// and erasing on a schema change.
@Suite struct MigratorValueTests {
    private func tableExists(_ db: SQLiteDatabase, _ name: String) async throws -> Bool {
        try await db.scalar(Int.self, "SELECT count(*) FROM sqlite_schema WHERE name = ?", [name]).get() == 1
    }

    /// A migration that ends the migrator's transaction itself is refused before the statement
    /// runs, so nothing of it stays, and the next run applies the fixed migration cleanly.
    @Test(arguments: ["COMMIT", "END", "ROLLBACK", "BEGIN"])
    func transactionControlIsRefusedBeforeItRunsAndNothingStays(statement: String) async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await SQLiteDatabase.open(path: dir("app.sqlite")).get()
        var broken = SQLiteMigrator()
        try broken.register("create t") { db in
            try db.execute("CREATE TABLE t(x)")
            try db.execute("INSERT INTO t VALUES (1)")
            try db.execute(statement)
        }
        let error = try #require(await sqliteError(broken.migrate(db)))
        #expect(error.code == .migrationFailed)
        #expect(error.message.contains("refused before it ran") && error.message.contains("nothing of it was applied"), "\(error)")
        #expect(try await !tableExists(db, "t"), "what ran before \(statement) was rolled back")
        #expect(try await broken.appliedMigrations(in: db).get() == [])

        var fixed = SQLiteMigrator()
        try fixed.register("create t") { db in try db.execute("CREATE TABLE t(x)") }
        #expect(try await fixed.migrate(db).get() == ["create t"])
        try await db.close().get()
    }

    /// Catching the refused statement's error does not get a migration through; savepoints,
    /// and `transaction` inside a migration, are allowed.
    @Test func aSwallowedRefusalStillFailsAndSavepointsAreAllowed() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        var migrator = SQLiteMigrator()
        try migrator.register("sneaky") { db in
            try db.execute("CREATE TABLE s(x)")
            _ = try? db.execute("COMMIT")
            try db.execute("CREATE TABLE s2(x)")
        }
        let error = try #require(await sqliteError(migrator.migrate(db)))
        #expect(error.code == .migrationFailed && error.message.contains("COMMIT"), "\(error)")
        #expect(try await !tableExists(db, "s"))

        var nested = SQLiteMigrator()
        try nested.register("savepoints") { db in
            try db.execute("CREATE TABLE n(x)")
            try db.transaction { db in try db.execute("INSERT INTO n VALUES (1)") }
            try db.execute("SAVEPOINT mine")
            try db.execute("INSERT INTO n VALUES (2)")
            try db.execute("ROLLBACK TO mine")
            try db.execute("RELEASE mine")
        }
        #expect(try await nested.migrate(db).get() == ["savepoints"])
        #expect(try await db.query(Int.self, "SELECT x FROM n").get() == [1])
        // Outside a migration, the connection's transactions work as before.
        _ = try await db.execute("BEGIN").get()
        _ = try await db.execute("COMMIT").get()
    }

    /// SQLite can end the transaction on its own (`INSERT OR ROLLBACK`); a migration that goes
    /// on after that stops at its next statement instead of committing it alone.
    @Test func aMigrationCannotGoOnAfterSQLiteRolledItsTransactionBack() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        var migrator = SQLiteMigrator()
        try migrator.register("unique") { db in try db.executeScript("CREATE TABLE u(x UNIQUE); INSERT INTO u VALUES (1)") }
        try migrator.register("rolls back") { db in
            try db.execute("INSERT INTO u VALUES (2)")
            _ = try? db.execute("INSERT OR ROLLBACK INTO u VALUES (1)")
            try db.execute("CREATE TABLE leaked(x)")
        }
        let error = try #require(await sqliteError(migrator.migrate(db)))
        #expect(error.code == .migrationFailed)
        #expect(try await !tableExists(db, "leaked"), "nothing after the rollback committed on its own")
        #expect(try await migrator.appliedMigrations(in: db).get() == ["unique"])
    }

    /// A migration whose last statement made SQLite roll the transaction back (the error
    /// caught): the migrator's record of it is refused as well, so the migration is neither
    /// applied nor recorded, and runs again next time.
    @Test func aMigrationRolledBackByItsLastStatementIsNotRecorded() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        _ = try await db.executeScript("CREATE TABLE u(x UNIQUE); INSERT INTO u VALUES (1)").get()
        var migrator = SQLiteMigrator()
        try migrator.register("rolls back last") { db in
            try db.execute("CREATE TABLE x(a)")
            _ = try? db.execute("INSERT OR ROLLBACK INTO u VALUES (1)")
        }
        for _ in 0..<2 {
            let error = try #require(await sqliteError(migrator.migrate(db)))
            #expect(error.code == .migrationFailed, "\(error)")
            #expect(try await migrator.appliedMigrations(in: db).get() == [])
            #expect(try await !tableExists(db, "x"))
        }
        #expect(try await migrator.hasCompletedMigrations(in: db).get() == false)
    }

    /// `SQLiteConnection.transaction` opened outside a transaction stops at the statement after
    /// SQLite rolled it back, as a transaction closure does: nothing after it commits alone.
    @Test func aTransactionOpenedFromAConnectionStopsAfterSQLiteRolledItBack() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        _ = try await db.execute("CREATE TABLE t(x UNIQUE ON CONFLICT ROLLBACK)").get()
        let error = await #expect(throws: SQLiteError.self) {
            try await db.writeWithoutTransaction { db in
                try db.transaction { db in
                    try db.execute("INSERT INTO t VALUES (1)")
                    _ = try? db.execute("INSERT INTO t VALUES (1)")
                    try db.execute("INSERT INTO t VALUES (2)")
                }
            }.get()
        }
        #expect(error?.code == .abort, "\(String(describing: error))")
        #expect(try await db.query(Int.self, "SELECT x FROM t").get() == [], "nothing committed on its own")
    }

    @Test func migrateUpToStopsAtTheNamedMigration() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        var migrator = SQLiteMigrator()
        for name in ["a", "b", "c"] {
            try migrator.register(name) { db in try db.execute("CREATE TABLE \(name)(x)") }
        }
        let unknown = try #require(await sqliteError(migrator.migrate(db, upTo: "z")))
        #expect(unknown.code == .invalidArgument && unknown.message.contains("'a', 'b', 'c'"), "\(unknown)")
        #expect(try await migrator.appliedMigrations(in: db).get() == [], "nothing ran")
        #expect(try await migrator.migrate(db, upTo: "b").get() == ["a", "b"])
        #expect(try await migrator.migrate(db, upTo: "a").get() == [], "an earlier target is already applied")
        #expect(try await migrator.hasCompletedMigrations(in: db).get() == false)
        #expect(try await migrator.migrate(db).get() == ["c"])
    }

    @Test func completedAndSupersededAnswerWhatTheDatabaseRecords() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let pool = try await SQLiteDatabasePool.open(path: dir("pool.sqlite"), readers: 1).get()
        var older = SQLiteMigrator()
        try older.register("one") { db in try db.execute("CREATE TABLE one(x)") }
        var newer = older
        try newer.register("two") { db in try db.execute("CREATE TABLE two(x)") }

        #expect(try await older.hasCompletedMigrations(in: pool).get() == false)
        #expect(try await older.hasBeenSuperseded(in: pool).get() == false)
        _ = try await older.migrate(pool).get()
        #expect(try await older.hasCompletedMigrations(in: pool).get() == true)
        #expect(try await newer.hasCompletedMigrations(in: pool).get() == false)
        _ = try await newer.migrate(pool).get()
        #expect(try await older.hasBeenSuperseded(in: pool).get() == true)
        #expect(try await older.hasCompletedMigrations(in: pool).get() == true)
        #expect(try await newer.hasBeenSuperseded(in: pool).get() == false)
        #expect(await sqliteError(older.migrate(pool))?.code == .unknownMigration)
        try await pool.close().get()
    }

    /// Two connections to one file, and a migration running on the first that holds the write
    /// lock until `release` is signalled (300 s at most, so a broken build cannot hang).
    private struct HeldLock {
        let first: SQLiteDatabase
        let second: SQLiteDatabase
        let slow: SQLiteMigrator
        let running: Promise<[String]>
        let release: DispatchSemaphore

        init(_ dir: TemporaryDirectory, configuration: SQLiteConfiguration = SQLiteConfiguration()) async throws {
            first = try await SQLiteDatabase.open(path: dir("shared.sqlite"), configuration: configuration).get()
            second = try await SQLiteDatabase.open(path: dir("shared.sqlite"), configuration: configuration).get()
            let inside = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            var slow = SQLiteMigrator()
            try slow.register("slow") { db in
                try db.execute("CREATE TABLE slow(x)")
                inside.signal()
                _ = release.wait(timeout: .now() + 300)
            }
            self.slow = slow
            self.release = release
            running = slow.migrate(first)
            await Task.detached { inside.wait() }.value
        }

        func close() async throws {
            try await first.close().get()
            try await second.close().get()
        }
    }

    /// A second connection to the file (as a second process would be) waits for the first's
    /// long migration instead of failing `busy` after its 50 ms busy timeout; with a shorter
    /// `writeLockTimeout`, its error names that limit.
    @Test func aSecondConnectionWaitsForTheFirstsMigration() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        var configuration = SQLiteConfiguration()
        configuration.busyTimeout = .milliseconds(50)
        let held = try await HeldLock(dir, configuration: configuration)
        let (second, slow, running, release) = (held.second, held.slow, held.running, held.release)

        var impatient = slow
        impatient.writeLockTimeout = .milliseconds(20)
        let refused = try #require(await sqliteError(impatient.migrate(second)))
        #expect(refused.code == .busy && refused.message.contains("writeLockTimeout"), "\(refused)")

        // Started while the lock is held, and held 300 ms more: six times its busy timeout.
        let patient = slow.migrate(second)
        try await Task.sleep(for: .milliseconds(300))
        release.signal()
        #expect(try await patient.get() == [], "it waited, and found the migration applied")
        #expect(try await running.get() == ["slow"])
        var negative = slow
        negative.writeLockTimeout = .seconds(-1)
        #expect(await sqliteError(negative.migrate(second))?.code == .invalidArgument)
        try await held.close()
    }

    /// A migrate waiting for another connection's write lock stops waiting when cancelled,
    /// while that lock is still held (not when it is released, nor at its `writeLockTimeout`),
    /// and leaves the other migration alone. Checked by order, not by time.
    @Test func cancellingAMigrateThatWaitsForTheLockStopsItsWait() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let held = try await HeldLock(dir)
        let (second, slow, running, release) = (held.second, held.slow, held.running, held.release)
        var patient = slow
        patient.writeLockTimeout = .seconds(3600)
        let waiting = patient.migrate(second)
        try await Task.sleep(for: .milliseconds(100))
        waiting.cancel()
        #expect(await isCancelled(waiting))
        #expect(running.isPending, "the cancelled wait ended while the other migration still held the lock")
        release.signal()
        #expect(try await running.get() == ["slow"])
        #expect(try await slow.migrate(second).get() == [])
        try await held.close()
    }

    @Test func eraseOnSchemaChangeRebuildsAnEditedDatabaseOnly() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await SQLiteDatabase.open(path: dir("dev.sqlite")).get()
        var first = SQLiteMigrator()
        first.eraseDatabaseOnSchemaChange = true
        try first.register("notes") { db in try db.execute("CREATE TABLE notes(body TEXT)") }
        #expect(try await first.migrate(db).get() == ["notes"])
        _ = try await db.execute("INSERT INTO notes VALUES ('kept')").get()
        #expect(try await first.migrate(db).get() == [], "an unchanged schema is not erased")
        #expect(try await db.query(String.self, "SELECT body FROM notes").get() == ["kept"])

        var edited = SQLiteMigrator()
        try edited.register("notes") { db in try db.execute("CREATE TABLE notes(body TEXT, created INTEGER)") }
        #expect(try await edited.migrate(db).get() == [], "off, an edited migration is not run again")
        edited.eraseDatabaseOnSchemaChange = true
        #expect(try await edited.migrate(db).get() == ["notes"])
        #expect(try await db.query(String.self, "SELECT name FROM pragma_table_info('notes')").get() == ["body", "created"])
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM notes").get() == 0)
        try await db.close().get()
    }
}
