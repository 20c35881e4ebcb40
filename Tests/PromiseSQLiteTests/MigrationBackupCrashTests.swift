import Glibc
import PromiseSQLite
import PromiseTestSupport
import Testing

// Serialized: each test kills a child process that writes SQLite files.
@Suite(.serialized) struct MigrationBackupCrashTests {
    /// `v1` as the helper registers it, for the test's own migrator.
    private func migratorWithFirst() throws -> SQLiteMigrator {
        var migrator = SQLiteMigrator()
        try migrator.register("v1") { db in
            try db.executeScript(
                """
                CREATE TABLE authors(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE books(id INTEGER PRIMARY KEY, author INTEGER NOT NULL REFERENCES authors(id), title TEXT NOT NULL);
                """
            )
            for n in 1...200 {
                try db.execute("INSERT INTO authors(id, name) VALUES (?, ?)", [n, "author \(n)"])
                try db.execute("INSERT INTO books(author, title) VALUES (?, ?)", [n, "book \(n)"])
            }
        }
        return migrator
    }

    @Test(arguments: [SQLiteConfiguration.JournalMode.delete, .wal])
    func aMigrationKilledHalfwayLeavesTheDatabaseAsItWasBefore(mode: SQLiteConfiguration.JournalMode) async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir("app.sqlite")
        var configuration = SQLiteConfiguration()
        configuration.journalMode = mode
        let before = try await SQLiteDatabase.open(path: path, configuration: configuration).get()
        #expect(try await migratorWithFirst().migrate(before).get() == ["v1"])
        let schemaBefore = try await before.query(String.self, "SELECT name || coalesce(sql, '') FROM sqlite_schema ORDER BY name").get()
        try await before.close().get()

        let helper = HelperProcess(["migrate-crash", path], outputPath: dir("out"))
        try await helper.waitFor("inside v2")
        kill(helper.pid, SIGKILL)
        #expect(try await helper.wait() == 128 + SIGKILL, "\(helper.output)")

        let db = try await SQLiteDatabase.open(path: path).get()
        #expect(try await db.scalar(String.self, "PRAGMA integrity_check").get() == "ok")
        #expect(try await db.query(String.self, "SELECT name || coalesce(sql, '') FROM sqlite_schema ORDER BY name").get() == schemaBefore)
        #expect(try await migratorWithFirst().appliedMigrations(in: db).get() == ["v1"])
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM books WHERE title = upper(title)").get() == 0)
        #expect(try await db.query(String.self, "SELECT name FROM pragma_table_info('authors')").get() == ["id", "name"])
        #expect(try await db.query("PRAGMA foreign_key_check").get().isEmpty)
        // The next run applies it.
        var migrator = try migratorWithFirst()
        try migrator.register("v2") { db in
            try db.executeScript(
                """
                CREATE TABLE new_authors(id INTEGER PRIMARY KEY, name TEXT NOT NULL, born INTEGER);
                INSERT INTO new_authors(id, name) SELECT id, name FROM authors;
                DROP TABLE authors;
                ALTER TABLE new_authors RENAME TO authors;
                """
            )
        }
        #expect(try await migrator.migrate(db).get() == ["v2"])
        try await db.close().get()
    }

    @Test(arguments: [false, true])
    func aBackupKilledHalfwayLeavesNothingUnderItsName(replacing: Bool) async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let source = try await makeSource(dir("source.sqlite"), rows: 400)
        try await source.close().get()
        if replacing {
            let old = try await makeSource(dir("backup.sqlite"), rows: 7)
            try await old.close().get()
        }
        let oldBytes = contents(dir("backup.sqlite"))

        let helper = HelperProcess(["backup-crash", dir("source.sqlite"), dir("backup.sqlite")], outputPath: dir("out"))
        try await helper.waitFor("holding after")
        kill(helper.pid, SIGKILL)
        #expect(try await helper.wait() == 128 + SIGKILL, "\(helper.output)")

        // The copy was under way: its temporary file is there, partly written.
        let temporary = directoryEntries(dir.path).filter { $0.hasPrefix(".backup.sqlite.backup") }
        #expect(temporary.count == 1, "\(directoryEntries(dir.path))")
        if replacing {
            #expect(contents(dir("backup.sqlite")) == oldBytes, "the old backup is untouched")
            let old = try await SQLiteDatabase.open(path: dir("backup.sqlite")).get()
            #expect(try await old.scalar(Int.self, "SELECT count(*) FROM items").get() == 7)
            try await old.close().get()
        } else {
            #expect(access(dir("backup.sqlite"), F_OK) != 0, "no file under the backup's name")
        }
        // The source is intact, and a new backup works.
        let db = try await SQLiteDatabase.open(path: dir("source.sqlite")).get()
        #expect(try await db.scalar(String.self, "PRAGMA integrity_check").get() == "ok")
        try await db.backup(to: dir("backup.sqlite")).get()
        try await db.close().get()
        let copy = try await SQLiteDatabase.open(path: dir("backup.sqlite")).get()
        #expect(try await copy.scalar(Int.self, "SELECT count(*) FROM items").get() == 400)
        try await copy.close().get()
    }
}
