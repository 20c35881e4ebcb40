import PromiseSQLite
import PromiseTestSupport
import Testing

/// A query that runs for minutes unless interrupted: a recursive CTE counting to 10^10.
private let runaway = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10000000000) SELECT count(*) FROM c"

@Suite struct CancellationTests {
    @Test func cancellingARunningQueryInterruptsIt() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        try await expectCancellationStops(db.scalar(Int.self, runaway), on: db, unstopped: "uninterrupted, it runs for minutes")
    }

    @Test func aTimeoutInterruptsARunawayQuery() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        let started = ContinuousClock.now
        let timed = db.scalar(Int.self, runaway).timeout(.milliseconds(200))
        // Queued behind the runaway query: it runs once the time-out has interrupted it.
        let next = db.scalar(Int.self, "SELECT 7")
        let nextSettled = SettleTime(of: next)
        do {
            _ = try await timed.get()
            Issue.record("the runaway query must time out")
        } catch PromiseError.Code.timedOut {}
        #expect(try await next.get() == 7)
        expectTimeLimit(
            nextSettled.since(started), under: .seconds(60),
            "the query queued behind the timed-out one settling (uninterrupted, the first runs for minutes)")
    }

    @Test func anInterruptDoesNotLeakIntoTheNextOperation() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        try await db.execute("CREATE TABLE t(a)").get()
        for _ in 0..<20 {
            let query = db.scalar(Int.self, runaway)
            let next = db.execute("INSERT INTO t VALUES (1)")
            try await Task.sleep(for: .milliseconds(5))
            query.cancel()
            try await next.get()
        }
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM t").get() == 20)
    }

    @Test func aCancelledQueuedOperationNeverStarts() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        try await db.execute("CREATE TABLE t(a)").get()
        let entered = Gate()
        let proceed = Gate()
        let blocker = db.transaction { _ in
            entered.open()
            proceed.wait()
        }
        try await entered.opened()
        let queued = db.execute("INSERT INTO t VALUES (1)")
        let kept = db.execute("INSERT INTO t VALUES (2)")
        queued.cancel()
        proceed.open()
        try await blocker.get()
        try await kept.get()
        #expect(await isCancelled(queued))
        #expect(try await db.query(Int.self, "SELECT a FROM t").get() == [2])
    }

    @Test func taskCancellationReachesTheQuery() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        let task = Task { try await db.scalar(Int.self, runaway).get() }
        try await Task.sleep(for: .milliseconds(100))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try await db.scalar(Int.self, "SELECT 1").get() == 1)
    }

    @Test func cancellingAStatementWaitingForALockStopsTheWait() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let holder = try await SQLiteDatabase.open(path: dir("db.sqlite")).get()
        defer { holder.close() }
        try await holder.execute("CREATE TABLE t(n)").get()
        var patient = SQLiteConfiguration()
        patient.busyTimeout = .seconds(120)
        let waiter = try await SQLiteDatabase.open(path: dir("db.sqlite"), configuration: patient).get()
        defer { waiter.close() }
        let entered = Gate()
        let proceed = Gate()
        let holding = holder.transaction { db in
            try db.execute("INSERT INTO t VALUES (1)")
            entered.open()
            proceed.wait()
        }
        try await entered.opened()
        let started = ContinuousClock.now
        let blocked = waiter.execute("INSERT INTO t VALUES (2)").timeout(.milliseconds(200))
        await #expect(throws: PromiseError.self) { try await blocked.get() }
        // The connection is free long before the 120-second busy timeout.
        let next = waiter.scalar(Int.self, "SELECT 1")
        let settled = SettleTime(of: next)
        #expect(try await next.get() == 1)
        expectTimeLimit(settled.since(started), under: .seconds(60), "the cancelled wait for the lock settling (the busy timeout is 120 s)")
        proceed.open()
        try await holding.get()
        #expect(try await waiter.query(Int.self, "SELECT n FROM t").get() == [1])
    }
}
