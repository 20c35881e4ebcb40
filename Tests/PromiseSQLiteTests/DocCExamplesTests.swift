// swift-format-ignore-file
// (the DocC articles quote this file's code line for line, layout included)
import Glibc
import PromiseSQLite
import Testing

// The ```swift blocks of PromiseSQLite's "Migrations", "Savepoints" and "Backups" articles,
// each between `// DocC: begin` and `// DocC: end` exactly as written there (checked by
// PromiseCoreTests' `DocCCodeBlocksTests`), with assertions on what they do.
@Suite struct DocCArticleExamplesTests {
    @Test func migrations() async throws {
        let temporary = TemporaryDirectory()
        defer { temporary.cleanUp() }
        let db = try await SQLiteDatabase.open(path: temporary("app.sqlite")).get()
        defer { db.close() }

        // DocC: begin
        var migrator = SQLiteMigrator()
        try migrator.register("create users") { db in
            try db.execute("CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        }
        try migrator.register("add users.email") { db in
            try db.execute("ALTER TABLE users ADD COLUMN email TEXT")
        }
        let applied = try await migrator.migrate(db).get()   // both names the first time, [] after
        // DocC: end
        #expect(applied == ["create users", "add users.email"])
        #expect(try await migrator.migrate(db).get() == [])

        // The errors block, against a database a newer program migrated.
        var older = SQLiteMigrator()
        try older.register("create users") { _ in }
        do {
            let migrator = older
            // DocC: begin
            do {
                _ = try await migrator.migrate(db).get()
            } catch SQLiteError.Code.unknownMigration {
                print("a newer version of this program migrated the database")   // nothing ran
            } catch let error as SQLiteError where error.code == .migrationFailed {
                print(error.message)          // "migration 'add users.email' failed and was rolled back, so nothing of it was applied: …"
                print(error.underlying ?? "") // what the migration threw
            }
            // DocC: end
        }
        #expect(try await older.appliedMigrations(in: db).get() == ["create users", "add users.email"], "refused: nothing ran")

        // The block on what a database has, and the development switch.
        do {
            let db = SQLiteDatabase.inMemory()  // a database of its own: the blocks below read the file's
            defer { db.close() }
            let development = true
            var migrator = SQLiteMigrator()
            try migrator.register("create users") { db in try db.execute("CREATE TABLE users(id INTEGER PRIMARY KEY)") }
            try migrator.register("create posts") { db in try db.execute("CREATE TABLE posts(id INTEGER PRIMARY KEY)") }
            try migrator.register("add posts.title") { db in try db.execute("ALTER TABLE posts ADD COLUMN title TEXT") }
            // DocC: begin
            if try await migrator.hasBeenSuperseded(in: db).get() {
                print("a newer version of this program migrated the database; refusing to run")
            } else if try await !migrator.hasCompletedMigrations(in: db).get() {
                migrator.writeLockTimeout = .seconds(300)            // another process may be migrating
                migrator.eraseDatabaseOnSchemaChange = development   // never in a release
                _ = try await migrator.migrate(db, upTo: "create posts").get()
            }
            // DocC: end
            #expect(try await migrator.appliedMigrations(in: db).get() == ["create users", "create posts"])
            #expect(try await !migrator.hasCompletedMigrations(in: db).get(), "up to, not past, create posts")
        }

        // The rebuild block.
        do {
            var migrator = SQLiteMigrator()
            try migrator.register("create users") { _ in }
            try migrator.register("add users.email") { _ in }
            // DocC: begin
            try migrator.register("make users.email unique") { db in
                try db.executeScript("""
                    CREATE TABLE new_users(id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT UNIQUE);
                    INSERT INTO new_users SELECT id, name, email FROM users;
                    DROP TABLE users;
                    ALTER TABLE new_users RENAME TO users;
                    """)
            }
            // DocC: end
            _ = try await db.execute("INSERT INTO users(name, email) VALUES ('Ada', 'a@x')").get()
            #expect(try await migrator.migrate(db).get() == ["make users.email unique"])
            let duplicate = try #require(await sqliteError(db.execute("INSERT INTO users(name, email) VALUES ('Eve', 'a@x')")))
            #expect(duplicate.code == .constraintUnique)
        }
    }

    @Test func savepoints() async throws {
        struct Line: Sendable {
            let order: Int
            let sku: String
        }
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        try await db.executeScript("""
            CREATE TABLE orders(id INTEGER PRIMARY KEY);
            CREATE TABLE lines(order_id INTEGER NOT NULL REFERENCES orders(id), sku TEXT NOT NULL UNIQUE);
            """).get()
        let lines = [Line(order: 1, sku: "a"), Line(order: 2, sku: "b"), Line(order: 1, sku: "c"), Line(order: 3, sku: "b")]

        // DocC: begin
        let imported = try await db.transaction { db in
            var imported = 0
            for line in lines {
                do {
                    try db.savepoint { db in
                        try db.execute("INSERT INTO orders(id) VALUES (?)", [line.order])
                        try db.execute("INSERT INTO lines(order_id, sku) VALUES (?, ?)", [line.order, line.sku])
                    }
                    imported += 1
                } catch SQLiteError.Code.constraint {
                    // this line's two inserts are undone; the lines before it stay
                }
            }
            return imported
        }.get()
        // DocC: end
        // Line 3 repeats order 1 (primary key) and line 4 repeats sku "b": both undone alone.
        #expect(imported == 2)
        #expect(try await db.query(Int.self, "SELECT id FROM orders ORDER BY id").get() == [1, 2])
        #expect(try await db.query(String.self, "SELECT sku FROM lines ORDER BY sku").get() == ["a", "b"])
    }

    @Test func backups() async throws {
        let temporary = TemporaryDirectory()
        defer { temporary.cleanUp() }
        let dir = temporary.path
        let db = try await SQLiteDatabase.open(path: "\(dir)/app.sqlite").get()
        defer { db.close() }
        try await db.executeScript("CREATE TABLE t(x); INSERT INTO t VALUES (1), (2);").get()

        // DocC: begin
        try await db.backup(to: "\(dir)/app-backup.sqlite", pagesPerStep: 256) { progress in
            print("backup: \(Int(progress.fractionCompleted * 100))%")   // after every step
        }.get()
        // DocC: end
        _ = try await db.execute("DELETE FROM t").get()

        // DocC: begin
        let snapshot = SQLiteDatabase.inMemory()
        try await db.backup(to: snapshot).get()          // a private copy to query at leisure

        let saved = try await SQLiteDatabase.open(path: "\(dir)/app-backup.sqlite").get()
        try await saved.backup(to: db).get()             // db now holds what the backup held
        // DocC: end
        #expect(try await snapshot.scalar(Int.self, "SELECT count(*) FROM t").get() == 0)
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM t").get() == 2)

        // DocC: begin
        let nightly = db.backup(to: "\(dir)/nightly.sqlite").timeout(.seconds(600))
        // DocC: end
        try await nightly.get()
        #expect(access("\(dir)/nightly.sqlite", F_OK) == 0)
        snapshot.close()
        saved.close()
    }

    /// The examples in the doc comments of the API these articles document.
    @Test func docCommentExamples() async throws {
        let temporary = TemporaryDirectory()
        defer { temporary.cleanUp() }
        let db = try await SQLiteDatabase.open(path: temporary("app.sqlite")).get()
        defer { db.close() }
        // From SQLiteMigrator.
        var migrator = SQLiteMigrator()
        try migrator.register("create users") { db in
            try db.execute("CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        }
        try migrator.register("add users.email") { db in
            try db.execute("ALTER TABLE users ADD COLUMN email TEXT")
        }
        let applied = try await migrator.migrate(db).get()   // the names it ran, in order
        #expect(applied.count == 2)
        // From SQLiteConnection.savepoint(_:).
        _ = try await db.executeScript("CREATE TABLE lines(order_id, sku)").get()
        let order = 1
        let sku = "x"
        try await db.transaction { db in
            try db.savepoint { db in
                try db.execute("INSERT INTO lines(order_id, sku) VALUES (?, ?)", [order, sku])
            }
        }.get()
        // From SQLiteDatabase.backup(to:…).
        let copied = db.backup(to: temporary("backup.sqlite"), pagesPerStep: 1024) { progress in
            print("backup: \(progress)")
        }
        try await copied.get()
        let memory = SQLiteDatabase.inMemory()
        try await db.backup(to: memory).get()   // a private snapshot to query
        #expect(try await memory.scalar(Int.self, "SELECT count(*) FROM lines").get() == 1)
        memory.close()
    }
}
