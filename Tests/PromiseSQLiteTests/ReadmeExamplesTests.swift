// swift-format-ignore-file
// (documentation quotes this file's code line for line, layout included)
import PromiseSQLite
import Synchronization
import Testing

/// The README's PromiseSQLite example (its first half, as written there) and the rest of the
/// tour, with `dir` a fresh temporary directory.
@Suite struct ReadmeExamplesTests {
    @Test func promiseSQLiteTour() async throws {
        let temporary = TemporaryDirectory()
        defer { temporary.cleanUp() }
        let dir = temporary.path

        // README: begin
        struct User: Decodable, Sendable {
            let id: Int
            let name: String
            let email: String?
        }

        let db = SQLiteDatabase(path: "\(dir)/app.sqlite")       // opens on its own thread
        try await db.executeScript("""
            CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT UNIQUE);
            CREATE TABLE audit(user INTEGER REFERENCES users(id), note TEXT);
            """).get()

        let ada = try await db.transaction { db in               // BEGIN IMMEDIATE … COMMIT
            let id = try db.execute("INSERT INTO users(name, email) VALUES (?, ?)", binding: "Ada", "ada@example.com")
                .lastInsertRowID
            try db.execute("INSERT INTO audit VALUES (:user, :note)", ["user": id, "note": "signed up"])
            return id
        }.get()                                                  // rolled back if anything threw

        let users = try await db.query(User.self, "SELECT * FROM users").get()   // [User]

        do {
            try await db.execute("INSERT INTO users(name, email) VALUES (?, ?)", ["Eve", "ada@example.com"]).get()
        } catch SQLiteError.Code.constraint {                    // matches constraintUnique too
            print("taken")   // SQLiteError.constraintUnique (SQLite 2067): UNIQUE constraint failed: users.email — INSERT …
        }

        let slow = db.scalar(Int.self, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c")
            .timeout(.milliseconds(100))                         // interrupts the query, frees the connection
        try await db.close().get()                               // lets queued work finish first
        // README: end

        #expect(ada == 1)
        #expect(users.map(\.name) == ["Ada"])
        #expect(users.first?.email == "ada@example.com")
        do {
            _ = try await slow.get()
            Issue.record("the unbounded query must time out")
        } catch PromiseError.Code.timedOut {}
        let check = try await SQLiteDatabase.open(path: "\(dir)/app.sqlite").get()
        #expect(try await check.scalar(String.self, "SELECT note FROM audit WHERE user = 1").get() == "signed up")
        #expect(try await check.scalar(Int.self, "SELECT count(*) FROM users").get() == 1, "Eve's insert was refused")
        try await check.close().get()
    }
}

/// The DocC landing page's example, so it keeps compiling.
@Suite struct DocCExamplesTests {
    @Test func landingPageChain() async throws {
        let temporary = TemporaryDirectory()
        defer { temporary.cleanUp() }
        let dir = temporary.path
        struct User: Decodable, Sendable {
            let id: Int
            let name: String
            let email: String?
        }
        let db = SQLiteDatabase(path: "\(dir)/app.sqlite")
        let registered = Flag()
        let users = db.executeScript("""
                CREATE TABLE IF NOT EXISTS users(id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT UNIQUE);
                """)
            .then { db.execute("INSERT INTO users(name, email) VALUES (?, ?)", ["Ada", "ada@example.com"]) }
            .then { _ in db.query(User.self, "SELECT * FROM users WHERE name = :name", ["name": "Ada"]) }
            .catch { error in
                if case SQLiteError.Code.constraintUnique = error { registered.set() } else { print(error) }
            }
        #expect(try await users.get().map(\.email) == ["ada@example.com"])
        // Again: the insert hits the UNIQUE constraint and the catch sees it.
        let again = db.execute("INSERT INTO users(name, email) VALUES (?, ?)", ["Ada", "ada@example.com"])
            .catch { error in
                if case SQLiteError.Code.constraintUnique = error { registered.set() }
            }
        _ = try? await again.get()
        #expect(registered.isSet)
        try await db.close().get()
    }
}

/// A flag set from a callback.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}

/// Swift functions and change notifications, as a reader writes them.
@Suite struct ReadmeFunctionsAndCommitsTests {
    @Test func functionsAndCommits() async throws {
        let temporary = TemporaryDirectory()
        defer { temporary.cleanUp() }
        let db = try await SQLiteDatabase.open(path: temporary("app.sqlite")).get()
        try await db.execute("CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT NOT NULL)").get()
        let writer = Task {
            // The loop below waits for a commit after its sequence starts observing.
            try await Task.sleep(for: .milliseconds(50))
            while !Task.isCancelled {
                try await db.execute("INSERT INTO users(name) VALUES ('later')").get()
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        defer { writer.cancel() }

        // README: begin
        try await db.add(function: SQLiteFunction("initials", argumentCount: 1, options: [.deterministic, .innocuous]) { arguments in
            String.fromSQLiteValue(arguments[0])?.split(separator: " ").compactMap(\.first).map(String.init).joined()
        }).get()
        let changed = db.nextCommit(touching: ["users"])          // the next commit that changes users
        try await db.execute("INSERT INTO users(name) VALUES (initials(?))", ["Ada Lovelace"]).get()
        print(try await changed.get().tables)                    // ["users"], once committed
        for await commit in db.commits(touching: ["users"]) {    // every later one, until cancelled or closed
            print(commit.tables)
            break
        }
        // README: end

        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM users WHERE name = 'AL'").get() == 1)
        writer.cancel()
        _ = try? await writer.value
        try await db.close().get()
    }
}

extension ReadmeExamplesTests {
    /// Migrations, a savepoint and a backup, as a reader writes them.
    @Test func migrationsSavepointsAndBackups() async throws {
        let temporary = TemporaryDirectory()
        defer { temporary.cleanUp() }
        let dir = temporary.path
        let db = try await SQLiteDatabase.open(path: "\(dir)/notes.sqlite").get()

        // README: begin
        var migrator = SQLiteMigrator()
        try migrator.register("create notes") { db in                  // each in its own transaction
            try db.execute("CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        }
        let applied = try await migrator.migrate(db).get()              // the names applied now

        try await db.transaction { db in
            try db.execute("INSERT INTO notes(body) VALUES (?)", ["kept"])
            try? db.savepoint { db in                                   // rolls back alone
                try db.execute("INSERT INTO notes(body) VALUES (?)", ["undone"])
                try db.execute("INSERT INTO notes(id, body) VALUES (1, 'taken id')")
            }
        }.get()

        try await db.backup(to: "\(dir)/notes-backup.sqlite", pagesPerStep: 512) { progress in
            print("copied \(progress.copiedPages) of \(progress.totalPages) pages")
        }.get()                                                         // complete and fsynced, or absent
        // README: end

        #expect(applied == ["create notes"])
        #expect(try await db.query(String.self, "SELECT body FROM notes").get() == ["kept"])
        try await db.close().get()
        let copy = try await SQLiteDatabase.open(path: "\(dir)/notes-backup.sqlite").get()
        #expect(try await copy.query(String.self, "SELECT body FROM notes").get() == ["kept"])
        #expect(try await migrator.appliedMigrations(in: copy).get() == ["create notes"])
        try await copy.close().get()
    }
}
