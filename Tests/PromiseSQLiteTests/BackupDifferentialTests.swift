import Glibc
import PromiseSQLite
import PromiseTestSupport
import Testing

/// The `sqlite3` command-line shell (Debian's `sqlite3` package; `scripts/bootstrap` installs it).
enum SQLiteShell {
    static let path = "/usr/bin/sqlite3"
    static var available: Bool { access(path, X_OK) == 0 }

    /// Runs `sqlite3 ARGUMENTS`, standard output into `output`; its exit status.
    static func run(_ arguments: [String], output: String) async throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let command = [path] + arguments
        let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let status = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard status == 0 else { return -1 }
        return try await exitStatus(of: pid)
    }

    /// `sqlite3 DATABASE .dump`.
    static func dump(_ database: String, scratch: String) async throws -> [UInt8] {
        #expect(try await run([database, ".dump"], output: scratch) == 0)
        return contents(scratch)
    }
}

/// A whole file's bytes.
func contents(_ path: String) -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return [] }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = read(fd, &buffer, buffer.count)
        if n <= 0 { break }
        bytes += buffer[0..<n]
    }
    return bytes
}

@Suite(.enabled(if: SQLiteShell.available, "needs the sqlite3 shell: scripts/bootstrap installs it"))
struct BackupDifferentialTests {
    /// A source with what a real schema has: tables, indexes, a view, a trigger, NULLs,
    /// integers at the limits, reals, text in several scripts, blobs from 0 to 20 000 bytes, and
    /// deleted rows (free pages).
    private func makeVariedSource(_ path: String, journal: SQLiteConfiguration.JournalMode) async throws -> SQLiteDatabase {
        var configuration = SQLiteConfiguration()
        configuration.journalMode = journal
        let db = try await SQLiteDatabase.open(path: path, configuration: configuration).get()
        try await db.executeScript(
            """
            CREATE TABLE people(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score REAL, photo BLOB, big INTEGER);
            CREATE INDEX people_name ON people(name);
            CREATE TABLE log(at INTEGER, what TEXT);
            CREATE VIEW high AS SELECT name FROM people WHERE score > 0.5;
            CREATE TRIGGER people_log AFTER INSERT ON people BEGIN INSERT INTO log VALUES (new.id, new.name); END;
            CREATE TABLE keyless(a, b, c) ;
            """
        ).get()
        try await db.transaction { db in
            let names = ["Ada", "Grace", "Edsger", "Барбара", "李", "🙂 emoji", "quote ' and \" and ;", ""]
            for n in 0..<1500 {
                let photo: SQLiteValue = n % 7 == 0 ? .null : .blob((0..<(n * 13 % 20_000)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ n) })
                let big: SQLiteValue = n % 3 == 0 ? .integer(Int64.max - Int64(n)) : .integer(Int64.min + Int64(n))
                try db.execute(
                    "INSERT INTO people(name, score, photo, big) VALUES (?, ?, ?, ?)",
                    SQLiteBindings([.text(names[n % names.count] + " \(n)"), n % 5 == 0 ? .null : .real(Double(n) / 1500), photo, big])
                )
                try db.execute(
                    "INSERT INTO keyless VALUES (?, ?, ?)", SQLiteBindings([.integer(Int64(n)), .text(String(repeating: "x", count: n % 50)), .null]))
            }
            try db.execute("DELETE FROM people WHERE id % 4 = 0")
        }.get()
        return db
    }

    @Test(arguments: [SQLiteConfiguration.JournalMode.delete, .wal])
    func ourBackupMatchesTheShellsBackupAndRestore(journal: SQLiteConfiguration.JournalMode) async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await makeVariedSource(dir("source.sqlite"), journal: journal)
        defer { db.close() }
        try await db.backup(to: dir("ours.sqlite"), pagesPerStep: 3).get()
        // The shell reads the source through its own connection, as another process would.
        #expect(try await SQLiteShell.run([dir("source.sqlite"), ".backup '\(dir("shell.sqlite"))'"], output: dir("out")) == 0)

        let source = try await SQLiteShell.dump(dir("source.sqlite"), scratch: dir("dump-source"))
        let ours = try await SQLiteShell.dump(dir("ours.sqlite"), scratch: dir("dump-ours"))
        let shell = try await SQLiteShell.dump(dir("shell.sqlite"), scratch: dir("dump-shell"))
        #expect(source.count > 100_000)
        #expect(ours == source, "our backup dumps as the source does")
        #expect(ours == shell, "our backup dumps as the shell's does")

        // Page by page: the same pages, apart from the header's change counter (bytes 24-27)
        // and its copy at 92-95.
        var oursBytes = contents(dir("ours.sqlite"))
        var shellBytes = contents(dir("shell.sqlite"))
        #expect(oursBytes.count == shellBytes.count && oursBytes.count % 4096 == 0)
        for range in [24..<28, 92..<96] where oursBytes.count > 100 && shellBytes.count > 100 {
            oursBytes.replaceSubrange(range, with: [0, 0, 0, 0])
            shellBytes.replaceSubrange(range, with: [0, 0, 0, 0])
        }
        #expect(oursBytes == shellBytes, "the same pages as the shell's backup")

        // The shell restores our backup; we restore the shell's.
        _ = try await SQLiteShell.run([dir("restored-by-shell.sqlite"), ".restore '\(dir("ours.sqlite"))'"], output: dir("out"))
        #expect(try await SQLiteShell.dump(dir("restored-by-shell.sqlite"), scratch: dir("dump-r1")) == source)
        let fromShell = try await SQLiteDatabase.open(path: dir("shell.sqlite")).get()
        let restored = try await SQLiteDatabase.open(path: dir("restored-by-us.sqlite")).get()
        try await fromShell.backup(to: restored, pagesPerStep: 10).get()
        try await restored.close().get()
        try await fromShell.close().get()
        #expect(try await SQLiteShell.dump(dir("restored-by-us.sqlite"), scratch: dir("dump-r2")) == source)
    }

    @Test func aBackupOfAnEmptyDatabaseMatchesTheShells() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await SQLiteDatabase.open(path: dir("empty.sqlite")).get()
        defer { db.close() }
        try await db.backup(to: dir("ours.sqlite")).get()
        #expect(try await SQLiteShell.run([dir("empty.sqlite"), ".backup '\(dir("shell.sqlite"))'"], output: dir("out")) == 0)
        #expect(try await SQLiteShell.dump(dir("ours.sqlite"), scratch: dir("d1")) == (try await SQLiteShell.dump(dir("shell.sqlite"), scratch: dir("d2"))))
    }
}
