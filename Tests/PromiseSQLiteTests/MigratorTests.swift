import Glibc
import PromiseSQLite
import PromiseTestSupport
import Testing

private struct MigrationBoom: Error {}

@Suite struct MigratorTests {
    private func tables(_ db: SQLiteDatabase) async throws -> [String] {
        try await db.query(
            String.self,
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name != '\(SQLiteMigrator.tableName)' ORDER BY name"
        ).get()
    }

    private func twoStepMigrator() throws -> SQLiteMigrator {
        var migrator = SQLiteMigrator()
        try migrator.register("create users") { db in
            try db.execute("CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        }
        try migrator.register("add users.email") { db in
            try db.execute("ALTER TABLE users ADD COLUMN email TEXT")
        }
        return migrator
    }

    @Test func appliesOnlyTheMissingMigrationsAndFulfilsWithTheirNames() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await SQLiteDatabase.open(path: dir("app.sqlite")).get()
        var first = SQLiteMigrator()
        try first.register("create users") { db in
            try db.execute("CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        }
        #expect(try await first.migrate(db).get() == ["create users"])
        #expect(try await first.migrate(db).get() == [])

        let second = try twoStepMigrator()
        #expect(second.migrations == ["create users", "add users.email"])
        #expect(try await second.migrate(db).get() == ["add users.email"])
        #expect(try await second.migrate(db).get() == [])
        #expect(try await second.appliedMigrations(in: db).get() == ["create users", "add users.email"])
        _ = try await db.execute("INSERT INTO users(name, email) VALUES ('Ada', 'ada@example.com')").get()
        let stamp = try await db.scalar(String.self, "SELECT applied_at FROM \(SQLiteMigrator.tableName) LIMIT 1").get()
        #expect(stamp?.hasSuffix("Z") == true)
        try await db.close().get()

        // Reopened: the record is in the file.
        let again = try await SQLiteDatabase.open(path: dir("app.sqlite")).get()
        #expect(try await twoStepMigrator().migrate(again).get() == [])
        try await again.close().get()
    }

    @Test func theMigrationCodesArePromiseSQLitesOwn() {
        for (code, name) in [(SQLiteError.Code.migrationFailed, "migrationFailed"), (.unknownMigration, "unknownMigration")] {
            #expect(code.name == name && code.resultCode == nil && code.primary == code)
            #expect(!SQLiteError.Code.error.matches(code) && code != .invalidUse)
        }
        #expect(SQLiteError.Code.migrationFailed != .unknownMigration)
        let error = SQLiteError(.migrationFailed, message: "migration 'x' failed and was rolled back: boom")
        #expect(error.description.hasPrefix("SQLiteError.migrationFailed: migration 'x' failed"), "\(error)")
    }

    @Test func aFreshDatabaseHasNoAppliedMigrations() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        #expect(try await twoStepMigrator().appliedMigrations(in: db).get() == [])
        #expect(try await SQLiteMigrator().migrate(db).get() == [])
    }

    @Test func anUnknownRecordedMigrationIsRefusedBeforeAnythingRuns() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        var newer = try twoStepMigrator()
        try newer.register("add posts") { db in try db.execute("CREATE TABLE posts(id INTEGER PRIMARY KEY)") }
        _ = try await newer.migrate(db).get()

        // An older program knows only the first migration, and brings one of its own.
        var older = SQLiteMigrator()
        try older.register("create users") { db in try db.execute("CREATE TABLE users(id INTEGER PRIMARY KEY)") }
        try older.register("old-only") { db in try db.execute("CREATE TABLE old_only(x)") }
        let error = try #require(await sqliteError(older.migrate(db)))
        #expect(error.code == .unknownMigration)
        #expect(error.message.contains("'add users.email'") && error.message.contains("'add posts'"), "\(error)")
        if case SQLiteError.Code.unknownMigration = error {} else { Issue.record("~= must match") }
        #expect(try await tables(db) == ["posts", "users"], "old-only never ran")
    }

    @Test func aFailedMigrationRollsBackAndNamesItself() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await SQLiteDatabase.open(path: dir("app.sqlite")).get()
        defer { db.close() }
        var migrator = SQLiteMigrator()
        try migrator.register("ok") { db in try db.execute("CREATE TABLE a(x)") }
        try migrator.register("half") { db in
            try db.execute("CREATE TABLE b(x)")
            try db.execute("INSERT INTO a VALUES (1)")
            try db.execute("INSERT INTO nowhere VALUES (1)")
        }
        try migrator.register("never") { db in try db.execute("CREATE TABLE c(x)") }
        let error = try #require(await sqliteError(migrator.migrate(db)))
        #expect(error.code == .migrationFailed)
        #expect(error.message.contains("migration 'half' failed"), "\(error)")
        #expect((error.underlying as? SQLiteError)?.code == .error)
        #expect(error.sql == "INSERT INTO nowhere VALUES (1)")
        #expect(try await tables(db) == ["a"])
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM a").get() == 0)
        #expect(try await migrator.appliedMigrations(in: db).get() == ["ok"])
        #expect(try await db.scalar(Int.self, "PRAGMA foreign_keys").get() == 1, "foreign keys are back on")

        // A Swift error is wrapped the same way, and keeps its type underneath.
        var throwing = SQLiteMigrator()
        try throwing.register("ok") { _ in }
        try throwing.register("throws") { db in
            try db.execute("CREATE TABLE d(x)")
            throw MigrationBoom()
        }
        let thrown = try #require(await sqliteError(throwing.migrate(db)))
        #expect(thrown.code == .migrationFailed && thrown.underlying is MigrationBoom)
        #expect(try await tables(db) == ["a"])
    }

    @Test func aTableRebuildRunsWithForeignKeysOffAndIsCheckedBeforeCommit() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        var migrator = SQLiteMigrator()
        try migrator.register("schema") { db in
            try db.executeScript(
                """
                CREATE TABLE authors(id INTEGER PRIMARY KEY, name TEXT);
                CREATE TABLE books(id INTEGER PRIMARY KEY, author INTEGER NOT NULL REFERENCES authors(id));
                INSERT INTO authors VALUES (1, 'Ada');
                INSERT INTO books VALUES (1, 1);
                """
            )
        }
        // Dropping a referenced table fails with foreign keys on; the rebuild procedure works.
        try migrator.register("rebuild authors") { db in
            guard try db.scalar(Int.self, "PRAGMA foreign_keys") == 0 else { throw MigrationBoom() }
            try db.executeScript(
                """
                CREATE TABLE new_authors(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
                INSERT INTO new_authors SELECT id, coalesce(name, '') FROM authors;
                DROP TABLE authors;
                ALTER TABLE new_authors RENAME TO authors;
                """
            )
        }
        #expect(try await migrator.migrate(db).get() == ["schema", "rebuild authors"])
        #expect(try await db.scalar(Int.self, "PRAGMA foreign_keys").get() == 1)

        // A rebuild that loses a referenced row is refused at the check, and rolled back.
        var breaking = SQLiteMigrator()
        for name in migrator.migrations { try breaking.register(name) { _ in } }
        try breaking.register("lose authors") { db in
            try db.execute("DELETE FROM authors")
        }
        let error = try #require(await sqliteError(breaking.migrate(db)))
        #expect(error.code == .migrationFailed)
        let violation = try #require(error.underlying as? SQLiteError)
        #expect(violation.code == .constraintForeignKey)
        #expect(violation.message.contains("books row 1 → authors"), "\(violation)")
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM authors").get() == 1)
        #expect(try await db.scalar(Int.self, "PRAGMA foreign_keys").get() == 1)

        // Immediate checks: the statement itself fails.
        var immediate = SQLiteMigrator()
        for name in migrator.migrations { try immediate.register(name) { _ in } }
        try immediate.register("lose authors now", foreignKeyChecks: .immediate) { db in
            guard try db.scalar(Int.self, "PRAGMA foreign_keys") == 1 else { throw MigrationBoom() }
            try db.execute("DELETE FROM authors")
        }
        let immediateError = try #require(await sqliteError(immediate.migrate(db)))
        #expect((immediateError.underlying as? SQLiteError)?.code == .constraintForeignKey)
        #expect(immediateError.sql == "DELETE FROM authors")
    }

    @Test func foreignKeysStayOffWhenTheConnectionHasThemOff() async throws {
        var configuration = SQLiteConfiguration()
        configuration.foreignKeys = false
        let db = SQLiteDatabase.inMemory(configuration: configuration)
        defer { db.close() }
        var migrator = SQLiteMigrator()
        try migrator.register("one") { db in try db.execute("CREATE TABLE t(x)") }
        _ = try await migrator.migrate(db).get()
        #expect(try await db.scalar(Int.self, "PRAGMA foreign_keys").get() == 0)
    }

    @Test func registrationMistakesAreClearErrors() async throws {
        var migrator = SQLiteMigrator()
        #expect(throws: SQLiteError.self) { try migrator.register("") { _ in } }
        #expect(throws: SQLiteError.self) { try migrator.register("a\u{0}b") { _ in } }
        try migrator.register("one") { db in try db.execute("CREATE TABLE t(x)") }
        do {
            try migrator.register("one") { _ in }
            Issue.record("a duplicate name must be refused")
        } catch SQLiteError.Code.invalidUse {
        } catch {
            Issue.record("unexpected \(error)")
        }
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        // A migrator is a value: a migration registered after migrate() was called changes what
        // the next call runs, never the one under way.
        let running = migrator.migrate(db)
        try migrator.register("two") { db in try db.execute("CREATE TABLE u(x)") }
        #expect(try await running.get() == ["one"])
        #expect(migrator.migrations == ["one", "two"])
        #expect(try await migrator.migrate(db).get() == ["two"])
        // Names with any characters are bound, never spliced.
        var odd = SQLiteMigrator()
        try odd.register("it's \"quoted\"; DROP TABLE t") { _ in }
        #expect(try await odd.migrate(SQLiteDatabase.inMemory()).get() == ["it's \"quoted\"; DROP TABLE t"])
    }

    @Test func aMigrationThatEndsItsTransactionIsRefused() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        var migrator = SQLiteMigrator()
        try migrator.register("commits") { db in
            try db.execute("CREATE TABLE t(x)")
            try db.execute("COMMIT")
        }
        let error = try #require(await sqliteError(migrator.migrate(db)))
        #expect(error.code == .migrationFailed)
        #expect(try await migrator.appliedMigrations(in: db).get() == [])
    }

    @Test func migratingInsideAnOpenTransactionIsRefused() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        _ = try await db.execute("BEGIN").get()
        let error = try #require(await sqliteError(try twoStepMigrator().migrate(db)))
        #expect(error.code == .invalidUse)
        _ = try await db.execute("ROLLBACK").get()
        #expect(try await twoStepMigrator().migrate(db).get().count == 2)
    }

    @Test func aPoolMigratesOnItsWriterAndItsReadersSeeTheSchema() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let pool = try await SQLiteDatabasePool.open(path: dir("pool.sqlite"), readers: 2).get()
        let migrator = try twoStepMigrator()
        #expect(try await migrator.migrate(pool).get() == ["create users", "add users.email"])
        _ = try await pool.execute("INSERT INTO users(name, email) VALUES ('Ada', 'a@x')").get()
        #expect(try await pool.query(String.self, "SELECT email FROM users").get() == ["a@x"])
        #expect(try await migrator.appliedMigrations(in: pool).get().count == 2)
        try await pool.close().get()
    }

    @Test func twoMigratorsRacingOnOneFileApplyEachMigrationOnce() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let a = try await SQLiteDatabase.open(path: dir("race.sqlite")).get()
        let b = try await SQLiteDatabase.open(path: dir("race.sqlite")).get()
        var migrator = SQLiteMigrator()
        for n in 0..<20 {
            try migrator.register("m\(n)") { db in
                try db.execute("CREATE TABLE t\(n)(x)")
            }
        }
        let registered = migrator
        async let first = registered.migrate(a).get()
        async let second = registered.migrate(b).get()
        let (one, two) = try await (first, second)
        #expect((one + two).sorted() == migrator.migrations.sorted(), "each applied exactly once: \(one) + \(two)")
        #expect(try await migrator.appliedMigrations(in: a).get() == migrator.migrations, "recorded in registration order")
        a.close()
        b.close()
    }

    @Test func cancellingStopsTheRunningMigrationAndRollsItBack() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        let gate = Gate()
        let release = Gate()
        var migrator = SQLiteMigrator()
        try migrator.register("first") { db in try db.execute("CREATE TABLE first(x)") }
        try migrator.register("slow") { db in
            try db.execute("CREATE TABLE slow(x)")
            gate.open()
            release.wait()
            try db.execute("INSERT INTO slow VALUES (1)")
        }
        let running = migrator.migrate(db)
        try await gate.opened()
        running.cancel()
        release.open()
        #expect(await isCancelled(running))
        #expect(try await db.scalar(Int.self, "PRAGMA foreign_keys").get() == 1, "foreign keys are back on after a cancellation")
        #expect(try await migrator.appliedMigrations(in: db).get() == ["first"])
        #expect(try await tables(db) == ["first"])
        // A later run applies it.
        var retry = SQLiteMigrator()
        try retry.register("first") { _ in }
        try retry.register("slow") { db in try db.execute("CREATE TABLE slow(x)") }
        #expect(try await retry.migrate(db).get() == ["slow"])
    }

    @Test func aMigrationCancelledWhileQueuedNeverStarts() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        let gate = Gate()
        let busy = db.readWithoutTransaction { _ in gate.wait() }
        let migrating = try twoStepMigrator().migrate(db)
        migrating.cancel()
        gate.open()
        try await busy.get()
        #expect(await isCancelled(migrating))
        #expect(try await db.query(String.self, "SELECT name FROM sqlite_schema").get() == [], "not even the record table")
    }

    @Test func awaitingAMigrationOnTheConnectionsOwnThreadFailsInsteadOfHanging() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        let migrator = try twoStepMigrator()
        let waited = db.readWithoutTransaction { _ in try awaitPromise(migrator.migrate(db)) }
        do {
            _ = try await waited.get()
            Issue.record("awaitPromise on the connection's thread must fail")
        } catch PromiseError.Code.deadlock {}
        // The migration itself runs once the thread is free.
        #expect(try await migrator.appliedMigrations(in: db).get() == migrator.migrations)
    }

    @Test func aClosedDatabaseRejectsTheMigration() async throws {
        let db = SQLiteDatabase.inMemory()
        try await db.close().get()
        let error = try #require(await sqliteError(try twoStepMigrator().migrate(db)))
        #expect(error.code == .closed)
    }

    @Test func aDroppedDatabaseStillSettlesItsMigration() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        var db: SQLiteDatabase? = SQLiteDatabase(path: dir("dropped.sqlite"))
        let running = try twoStepMigrator().migrate(db!)
        db = nil
        #expect(try await running.get().count == 2)
        let again = try await SQLiteDatabase.open(path: dir("dropped.sqlite")).get()
        #expect(try await twoStepMigrator().appliedMigrations(in: again).get().count == 2)
        try await again.close().get()
    }
}
