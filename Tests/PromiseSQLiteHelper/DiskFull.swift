import Glibc
import PromiseSQLite

/// Fills `dir`, an empty 2 MiB tmpfs, with committed batches until SQLite reports the disk
/// full, then prints what is true of the database (checked with a second connection and after
/// reopening), frees room and writes again. One `key: value` line per fact.
///
///   committed:   batches whose transaction was fulfilled before the failure
///   error:       how the failing transaction was rejected
///   same-connection-read: a read on the connection that failed, right after
///   after-error: rows, the running total, incomplete batches and integrity, read by a fresh
///                connection
///   recovered:   the next transaction once a filler file is removed
///   reopened:    the same facts after closing and reopening
func diskFull(in dir: String, mode: SQLiteConfiguration.JournalMode) throws {
    let path = "\(dir)/db.sqlite"
    // 512 KiB nobody needs, removed later to make room.
    let filler = open("\(dir)/filler", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    let block = [UInt8](repeating: 0, count: 512 * 1024)
    guard filler >= 0, write(filler, block, block.count) == block.count else {
        say("setup: cannot write the filler file: errno \(errno)")
        exit(2)
    }
    close(filler)

    var configuration = SQLiteConfiguration()
    configuration.journalMode = mode
    let db = try awaitPromise(SQLiteDatabase.open(path: path, configuration: configuration))
    try awaitPromise(
        db.executeScript(
            """
            CREATE TABLE items(batch INTEGER NOT NULL, n INTEGER NOT NULL, payload TEXT NOT NULL);
            CREATE TABLE totals(id INTEGER PRIMARY KEY CHECK (id = 1), rows INTEGER NOT NULL, batches INTEGER NOT NULL);
            INSERT INTO totals VALUES (1, 0, 0);
            """))

    @Sendable func batch(_ number: Int) -> Promise<Void> {
        db.transaction { db in
            for n in 0..<200 {
                try db.execute("INSERT INTO items VALUES (?, ?, ?)", [number, n, String(repeating: "p", count: 100) + "\(number)-\(n)"])
            }
            try db.execute("UPDATE totals SET rows = rows + 200, batches = batches + 1")
        }
    }

    var committed = 0
    var failure: (any Error)?
    while failure == nil && committed < 10_000 {
        do {
            try awaitPromise(batch(committed + 1))
            committed += 1
        } catch {
            failure = error
        }
    }
    say("committed: \(committed)")
    say("error: \(failure.map { "\($0)" } ?? "none")")
    let sameConnection = Result { try awaitPromise(db.scalar(Int.self, "SELECT count(*) FROM items")) ?? -1 }
    say("same-connection-read: \((try? sameConnection.get()).map(String.init) ?? "\(sameConnection)")")

    /// "ROWS TOTAL-ROWS BATCHES INCOMPLETE INTEGRITY", read by the connection given.
    func facts(_ reader: SQLiteDatabase) throws -> String {
        let rows = try awaitPromise(reader.scalar(Int.self, "SELECT count(*) FROM items")) ?? -1
        let totalRows = try awaitPromise(reader.scalar(Int.self, "SELECT rows FROM totals")) ?? -1
        let batches = try awaitPromise(reader.scalar(Int.self, "SELECT count(DISTINCT batch) FROM items")) ?? -1
        let incomplete = try awaitPromise(reader.scalar(Int.self, "SELECT count(*) FROM (SELECT batch FROM items GROUP BY batch HAVING count(*) != 200)")) ?? -1
        let integrity = try awaitPromise(reader.scalar(String.self, "PRAGMA integrity_check")) ?? "?"
        return "\(rows) \(totalRows) \(batches) \(incomplete) \(integrity)"
    }
    let second = try awaitPromise(SQLiteDatabase.open(path: path, configuration: configuration))
    say("after-error: \(try facts(second))")
    try awaitPromise(second.close())

    unlink("\(dir)/filler")
    let next = Result { try awaitPromise(batch(committed + 1)) }
    say("recovered: \((try? next.get()) != nil ? "ok" : "\(next)")")
    try awaitPromise(db.close())
    let reopened = try awaitPromise(SQLiteDatabase.open(path: path, configuration: configuration))
    say("reopened: \(try facts(reopened))")
    try awaitPromise(reopened.close())
}
