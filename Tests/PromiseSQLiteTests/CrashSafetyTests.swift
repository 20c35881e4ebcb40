import Glibc
import PromiseSQLite
import PromiseTestSupport
import Testing

// Serialized: each test runs SQLite writers in child processes that keep both CPUs busy.
@Suite(.serialized) struct CrashSafetyTests {
    @Test(arguments: [SQLiteConfiguration.JournalMode.delete, .wal])
    func aWriterKilledMidTransactionLeavesEveryCommittedBatchAndNoPartialOne(mode: SQLiteConfiguration.JournalMode) async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir("crash.sqlite")
        if mode == .wal {
            var wal = SQLiteConfiguration()
            wal.journalMode = .wal
            try await SQLiteDatabase.open(path: path, configuration: wal).get().close().get()
        }
        var batchesBefore = 0
        for round in 0..<3 {
            let helper = HelperProcess(["crash-writer", path], outputPath: dir("out-\(round)"))
            let twoCommits = try await eventually(.seconds(60)) {
                helper.output.split(separator: "\n").filter { $0.hasPrefix("committed ") }.count >= 2
            }
            #expect(twoCommits, "the writer must commit twice before it is killed: \(helper.output)")
            // Somewhere inside a later transaction (each takes tens of milliseconds).
            try await Task.sleep(for: .milliseconds(Int.random(in: 5...60)))
            kill(helper.pid, SIGKILL)
            #expect(try await helper.wait() == 128 + SIGKILL, "the writer must still have been writing: \(helper.output)")
            let acknowledged = helper.output.split(separator: "\n").filter { $0.hasPrefix("committed ") }.count

            let db = try await SQLiteDatabase.open(path: path).get()
            #expect(try await db.scalar(String.self, "PRAGMA integrity_check").get() == "ok")
            let totals = try #require(try await db.queryFirst("SELECT rows, batches FROM totals").get())
            let rows = try await db.scalar(Int.self, "SELECT count(*) FROM items").get()
            #expect(try totals.get("rows", as: Int.self) == rows, "the running total matches the rows: no half transaction")
            let incomplete = try await db.scalar(Int.self, "SELECT count(*) FROM (SELECT batch FROM items GROUP BY batch HAVING count(*) != 20000)").get()
            #expect(incomplete == 0, "every batch is complete or absent")
            // Every batch the writer saw committed survived.
            let batches = try await db.scalar(Int.self, "SELECT count(DISTINCT batch) FROM items").get() ?? 0
            #expect(batches >= batchesBefore + acknowledged)
            #expect(try totals.get("batches", as: Int.self) == batches)
            batchesBefore = batches
            try await db.close().get()
        }
    }

    /// A disk that really fills up (a 2 MiB tmpfs, ``SmallDisk``) under a writer committing
    /// batches: a clear "full" error, every committed batch there and no partial one, the
    /// database intact and usable, and writes work again once there is room.
    @Test(.enabled(if: SmallDisk.available, Comment(rawValue: SmallDisk.unavailableReason)), arguments: ["delete", "wal"])
    func aDiskThatFillsUpGivesAFullErrorAndKeepsEveryCommittedBatch(mode: String) async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let mountPoint = dir("disk")
        mkdir(mountPoint, 0o755)
        let helper = HelperProcess(
            ["disk-full", mountPoint, mode], outputPath: dir("out"), launcher: SmallDisk.launcher(mountingOn: mountPoint, kibibytes: 2048)
        )
        #expect(try await helper.wait() == 0, "the helper must run to the end: \(helper.output)")
        let fact = HelperFacts(helper.output)

        let committed = Int(fact("committed")) ?? -1
        #expect(committed > 5, "the disk filled before much was written: \(helper.output)")
        #expect(fact("error").hasPrefix("SQLiteError.full (SQLite 13): database or disk is full"), "\(fact("error"))")
        // Exactly the committed batches, each whole, the running total matching, no damage:
        // on the connection that failed, on a fresh one, and after reopening.
        let rows = committed * 200
        #expect(fact("same-connection-read") == "\(rows)")
        #expect(fact("after-error") == "\(rows) \(rows) \(committed) 0 ok")
        #expect(fact("recovered") == "ok")
        #expect(fact("reopened") == "\(rows + 200) \(rows + 200) \(committed + 1) 0 ok")
    }

    @Test func anotherProcessHoldingTheWriteLockGivesAClearBusyErrorAndLosesNothing() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir("locked.sqlite")
        let helper = HelperProcess(["hold-lock", path, dir("release")], outputPath: dir("out"))
        try await helper.waitFor("locked")

        var impatient = SQLiteConfiguration()
        impatient.busyTimeout = .milliseconds(200)
        let db = try await SQLiteDatabase.open(path: path, configuration: impatient).get()
        defer { db.close() }
        let error = await sqliteError(db.execute("INSERT INTO t VALUES ('test')"))
        #expect(SQLiteError.Code.busy.matches(error?.code ?? .error), "\(String(describing: error))")

        // A patient connection waits for the helper's commit and then writes.
        let patient = try await SQLiteDatabase.open(path: path).get()
        defer { patient.close() }
        let write = patient.execute("INSERT INTO t VALUES ('test')")
        let fd = open(dir("release"), O_WRONLY | O_CREAT, 0o644)
        close(fd)
        try await write.get()
        #expect(try await helper.wait() == 0)
        #expect(helper.output.contains("released"))
        #expect(try await patient.query(String.self, "SELECT who FROM t ORDER BY rowid").get() == ["helper", "test"])
    }
}
