// A second process for PromiseSQLiteTests: a writer to kill with SIGKILL mid-transaction, a
// process that holds the write lock, a writer on a disk that fills up, and a migration and a
// backup to kill half-way. Prints progress
// lines on standard output, unbuffered.
import Glibc
import PromiseSQLite

/// Writes one line straight to descriptor 1, so a SIGKILL loses nothing already said.
func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    say("usage: promisesqlite-helper crash-writer PATH | hold-lock PATH RELEASE-FILE | disk-full DIR delete|wal | migrate-crash PATH | backup-crash PATH DEST")
    exit(2)
}
let path = arguments[2]

do {
    switch arguments[1] {
    case "crash-writer":
        // Batches of 20 000 rows, each batch one transaction that also bumps a running total:
        // after a crash every batch must be complete or absent, and the total must match.
        let db = try awaitPromise(SQLiteDatabase.open(path: path))
        try awaitPromise(
            db.executeScript(
                """
                CREATE TABLE IF NOT EXISTS items(batch INTEGER NOT NULL, n INTEGER NOT NULL, payload TEXT NOT NULL);
                CREATE TABLE IF NOT EXISTS totals(id INTEGER PRIMARY KEY CHECK (id = 1), rows INTEGER NOT NULL, batches INTEGER NOT NULL);
                INSERT OR IGNORE INTO totals VALUES (1, 0, 0);
                """))
        // Never outlive the test that started us (a test process that crashed): stop when
        // re-parented.
        let parent = getppid()
        var batch = try awaitPromise(db.scalar(Int.self, "SELECT coalesce(max(batch), 0) FROM items")) ?? 0
        while true {
            batch += 1
            let current = batch
            _ = try awaitPromise(
                db.transaction { db in
                    for n in 0..<20_000 {
                        try db.execute("INSERT INTO items VALUES (?, ?, ?)", [current, n, "payload \(current)-\(n)"])
                    }
                    try db.execute("UPDATE totals SET rows = rows + 20000, batches = batches + 1")
                })
            say("committed \(batch)")
            if getppid() != parent { exit(3) }
        }
    case "hold-lock":
        // Holds the write lock until RELEASE-FILE exists (at most 60 s), whatever the load.
        guard arguments.count > 3 else {
            say("usage: promisesqlite-helper hold-lock PATH RELEASE-FILE")
            exit(2)
        }
        let release = arguments[3]
        let db = try awaitPromise(SQLiteDatabase.open(path: path))
        _ = try awaitPromise(db.execute("CREATE TABLE IF NOT EXISTS t(who TEXT)"))
        try awaitPromise(
            db.transaction { db in
                try db.execute("INSERT INTO t VALUES ('helper')")
                say("locked")
                for _ in 0..<6000 where access(release, F_OK) != 0 {
                    usleep(10_000)
                }
            })
        say("released")
        try awaitPromise(db.close())
    case "disk-full":
        // PATH is an empty 2 MiB tmpfs (the test mounts one in this process's own mount
        // namespace). Batches of 200 rows go into a database there until the disk is full;
        // then the facts, one `key: value` line each, for the test to judge.
        let modes: [String: SQLiteConfiguration.JournalMode] = ["delete": .delete, "wal": .wal]
        guard arguments.count > 3, let mode = modes[arguments[3]] else {
            say("usage: promisesqlite-helper disk-full DIR delete|wal")
            exit(2)
        }
        try diskFull(in: path, mode: mode)
    case "migrate-crash":
        // Applies "v1" if needed, then starts "v2", a table rebuild, and stops inside it,
        // for the test to kill: the database must come back without any of v2.
        try migrateUntilKilled(path)
    case "backup-crash":
        // Copies PATH to DEST one page per step and, once some pages are copied, blocks the
        // source's thread between two steps, for the test to kill: nothing may appear at DEST.
        guard arguments.count > 3 else {
            say("usage: promisesqlite-helper backup-crash PATH DEST")
            exit(2)
        }
        try backupUntilKilled(path, to: arguments[3])
    default:
        say("unknown command \(arguments[1])")
        exit(2)
    }
} catch {
    say("error: \(error)")
    exit(1)
}
