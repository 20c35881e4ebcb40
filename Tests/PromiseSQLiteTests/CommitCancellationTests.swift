import Dispatch
import PromiseSQLite
import PromiseTestSupport
import Synchronization
import Testing

/// A cancellation that races a transaction's `COMMIT`: whatever the promise reports must be
/// what happened to the data, so code that retries on cancellation never applies a change twice.
@Suite struct CommitCancellationTests {
    private enum Outcome { case fulfilled, cancelled }

    /// Runs one transaction that inserts `id`, cancels its promise from another thread once
    /// the body has returned (so while `COMMIT` runs, or just before or after it), and checks
    /// the promise against the table.
    private func raceOnce(_ db: SQLiteDatabase, id: Int, spin: Int) async throws -> Outcome {
        let bodyReturned = DispatchSemaphore(value: 0)
        let promise = db.transaction { connection in
            try connection.execute("INSERT INTO t(id) VALUES (?)", [id])
            bodyReturned.signal()
        }
        DispatchQueue.global().async {
            bodyReturned.wait()
            var sink = 0
            for step in 0..<spin { sink &+= step }
            if sink >= 0 { promise.cancel() }
        }
        let outcome: Outcome
        do {
            try await promise.get()
            outcome = .fulfilled
        } catch is CancellationError {
            outcome = .cancelled
        }
        let stored = try await db.scalar(Int.self, "SELECT count(*) FROM t WHERE id = ?", [id]).get()
        switch outcome {
        case .fulfilled: #expect(stored == 1, "transaction \(id) was fulfilled, so its row must be there")
        case .cancelled: #expect(stored == 0, "transaction \(id) was reported cancelled, yet it committed")
        }
        return outcome
    }

    @Test func aTransactionCancelledWhileItCommitsReportsWhatHappened() async throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        // A file database with synchronous FULL (the default): COMMIT syncs, so it lasts long
        // enough for cancellations to land inside it.
        let db = SQLiteDatabase(path: directory("commit.db"))
        defer { db.close() }
        try await db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY)").get()

        var counts = (fulfilled: 0, cancelled: 0)
        var id = 0
        // Spin lengths from none to a few hundred microseconds, so the cancel lands before the
        // COMMIT, inside it and after it; go on until both outcomes were seen a few times.
        while id < 2_000, id < 300 || counts.fulfilled < 5 || counts.cancelled < 5 {
            id += 1
            switch try await raceOnce(db, id: id, spin: (id * 7_919) % 200_000) {
            case .fulfilled: counts.fulfilled += 1
            case .cancelled: counts.cancelled += 1
            }
        }
        #expect(counts.fulfilled >= 5 && counts.cancelled >= 5, "the race was not exercised: \(counts) in \(id) rounds")
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM t").get() == counts.fulfilled)
    }

    @Test func aQueuedJobCancelledBeforeItStartsRejectsAtOnceAndNeverRuns() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        try await db.execute("CREATE TABLE t(id INTEGER)").get()
        let release = DispatchSemaphore(value: 0)
        let blocker = db.transaction { _ in release.wait() }
        var released = false
        defer { if !released { release.signal() } }
        let queued = db.execute("INSERT INTO t(id) VALUES (1)")
        queued.cancel()
        // Settled while the connection is still busy with the blocker.
        #expect(await isCancelled(queued))
        release.signal()
        released = true
        try await blocker.get()
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM t").get() == 0)
    }

    @Test func cancellingAChainedQueryStillInterruptsTheWorkUpstream() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        let runaway = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10000000000) SELECT count(*) FROM c"
        let query = db.scalar(Int.self, runaway)
        let chained = query.map { $0 ?? 0 }
        try await Task.sleep(for: .milliseconds(50))
        chained.cancel()
        #expect(await isCancelled(chained))
        #expect(await isCancelled(query), "upward cancellation reaches the query, which is interrupted")
        #expect(try await db.scalar(Int.self, "SELECT 42").get() == 42)
    }
}
