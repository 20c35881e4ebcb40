import Glibc
import PromiseSQLite
import Synchronization

/// The first migration the crash test and this helper share.
func registerFirstMigration(_ migrator: inout SQLiteMigrator) throws {
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
}

/// Runs "v1" and a "v2" that rebuilds `authors` (foreign keys off, as the migrator does) and
/// never returns: it says "inside v2" and sleeps until killed, or exits after 60 s.
func migrateUntilKilled(_ path: String) throws {
    let db = try awaitPromise(SQLiteDatabase.open(path: path))
    var migrator = SQLiteMigrator()
    try registerFirstMigration(&migrator)
    try migrator.register("v2") { db in
        try db.executeScript(
            """
            CREATE TABLE new_authors(id INTEGER PRIMARY KEY, name TEXT NOT NULL, born INTEGER);
            INSERT INTO new_authors(id, name) SELECT id, name FROM authors;
            DROP TABLE authors;
            ALTER TABLE new_authors RENAME TO authors;
            UPDATE books SET title = upper(title);
            """
        )
        say("inside v2")
        for _ in 0..<6000 { usleep(10_000) }
        exit(4)
    }
    _ = try awaitPromise(migrator.migrate(db))
    say("migrated")
}

/// Backs `path` up to `destination` one page per step; at the third report, blocks the
/// source's thread between two steps and says "holding", then waits to be killed (at most
/// 60 s).
func backupUntilKilled(_ path: String, to destination: String) throws {
    let db = try awaitPromise(SQLiteDatabase.open(path: path))
    let reports = Counter()
    // Reports run on the source's connection thread, right after their step: holding there
    // stops the copy at that page, however busy the machine (work submitted to the database
    // from elsewhere could queue behind the remaining steps).
    let copy = db.backup(to: destination, pagesPerStep: 1, on: .inline) { progress in
        guard reports.increment() == 3 else { return }
        say("holding after \(progress)")
        for _ in 0..<6000 { usleep(10_000) }
        exit(4)
    }
    try awaitPromise(copy)
    say("backed up")
}

/// A count shared with a progress callback.
final class Counter: Sendable {
    private let value = Mutex(0)

    /// Adds one and returns the new count.
    func increment() -> Int {
        value.withLock { value in
            value += 1
            return value
        }
    }
}
