import Glibc
import PromiseSQLite
import Synchronization
import Testing

/// The name of the calling thread, from /proc (independent of the code under test).
private func currentThreadName() -> String {
    let fd = open("/proc/thread-self/comm", O_RDONLY)
    guard fd >= 0 else { return "?" }
    defer { close(fd) }
    var bytes = [UInt8](repeating: 0, count: 64)
    let n = read(fd, &bytes, bytes.count)
    return n > 0 ? String(decoding: bytes[0..<n], as: UTF8.self).trimmingSuffix("\n") : "?"
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}

@Suite struct ConcurrencyTests {
    @Test func statementsRunOnTheConnectionsOwnNamedThread() async throws {
        var configuration = SQLiteConfiguration()
        configuration.threadName = "orders-db"
        let db = SQLiteDatabase(path: ":memory:", configuration: configuration)
        defer { db.close() }
        let callerThread = pthread_self()
        let (name, thread) = try await db.transaction { _ in (currentThreadName(), UInt(pthread_self())) }.get()
        #expect(name == "orders-db")
        #expect(thread != UInt(callerThread))
        let again = try await db.read { _ in UInt(pthread_self()) }.get()
        #expect(again == thread, "one connection, one thread")
    }

    @Test func theDefaultThreadNameSaysWhichProductItBelongsTo() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        #expect(try await db.read { _ in currentThreadName() }.get() == "promise-sqlite")
    }

    @Test func tenThousandConcurrentOperationsAllCompleteInOrder() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        try await db.execute("CREATE TABLE t(n INTEGER)").get()
        let inserts = (0..<10_000).map { db.execute("INSERT INTO t(n) VALUES (?)", [$0]) }
        let reads = (0..<1_000).map { _ in db.scalar(Int.self, "SELECT count(*) FROM t") }
        let changes = try await all(inserts).get()
        #expect(changes.map(\.lastInsertRowID) == (1...10_000).map(Int64.init), "FIFO: row ids follow submission order")
        let counts = try await all(reads).get().map { $0 ?? -1 }
        #expect(counts.allSatisfy { $0 == 10_000 }, "every read was queued after every insert")
        #expect(try await db.query(Int.self, "SELECT n FROM t ORDER BY rowid").get() == Array(0..<10_000))
    }

    @Test func operationsFromManyThreadsAllRunExactlyOnce() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        try await db.execute("CREATE TABLE t(producer INTEGER, n INTEGER)").get()
        let results = try await withThrowingTaskGroup(of: [Int64].self) { group in
            for producer in 0..<8 {
                group.addTask {
                    let promises = (0..<500).map { db.execute("INSERT INTO t VALUES (?, ?)", [producer, $0]) }
                    return try await all(promises).get().map(\.lastInsertRowID)
                }
            }
            var collected: [[Int64]] = []
            for try await ids in group { collected.append(ids) }
            return collected
        }
        for ids in results { #expect(ids == ids.sorted(), "in order per producer") }
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM t").get() == 4_000)
        let perProducer = try await db.query(Int.self, "SELECT count(DISTINCT n) FROM t GROUP BY producer").get()
        #expect(perProducer == Array(repeating: 500, count: 8))
    }

    @Test func closeLetsQueuedWorkFinishThenRefusesNewWork() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await SQLiteDatabase.open(path: dir("db.sqlite")).get()
        try await db.execute("CREATE TABLE t(n)").get()
        let queued = (0..<1_000).map { db.execute("INSERT INTO t VALUES (?)", [$0]) }
        let closed = db.close()
        let late = db.execute("INSERT INTO t VALUES (-1)")
        let again = db.close()
        #expect(again !== closed, "each caller gets its own promise")
        // A caller giving up on its close (a timeout) does not cancel anyone else's.
        again.cancel()
        try await closed.get()
        try await db.close().get()
        #expect(try await all(queued).get().count == 1_000)
        let refusal = await sqliteError(late)
        #expect(refusal?.code == .closed)
        #expect(refusal?.description == "SQLiteError.closed: the database was closed; open a new SQLiteDatabase")
        let reopened = try await SQLiteDatabase.open(path: dir("db.sqlite")).get()
        defer { reopened.close() }
        #expect(try await reopened.scalar(Int.self, "SELECT count(*) FROM t").get() == 1_000)
        #expect(try await reopened.scalar(Int.self, "SELECT count(*) FROM t WHERE n = -1").get() == 0)
    }

    @Test func aDatabaseDroppedWithoutCloseStillFinishesItsWork() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        var pending: Promise<SQLiteChanges>?
        do {
            let db = SQLiteDatabase(path: dir("db.sqlite"))
            _ = db.execute("CREATE TABLE t(n)")
            pending = db.execute("INSERT INTO t VALUES (1)")
        }
        _ = try await pending?.get()
        let db = try await SQLiteDatabase.open(path: dir("db.sqlite")).get()
        defer { db.close() }
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM t").get() == 1)
    }

    @Test func aWriterHoldingTheLockMakesTheOtherWaitThenFailClearlyLosingNothing() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let first = try await SQLiteDatabase.open(path: dir("db.sqlite")).get()
        defer { first.close() }
        try await first.execute("CREATE TABLE t(who TEXT)").get()
        var impatient = SQLiteConfiguration()
        impatient.busyTimeout = .milliseconds(300)
        let second = try await SQLiteDatabase.open(path: dir("db.sqlite"), configuration: impatient).get()
        defer { second.close() }

        let entered = Gate()
        let proceed = Gate()
        let holder = first.transaction { db in
            try db.execute("INSERT INTO t VALUES ('first')")
            entered.open()
            proceed.wait()
        }
        try await entered.opened()
        let started = ContinuousClock.now
        let error = await sqliteError(second.execute("INSERT INTO t VALUES ('second')"))
        let waited = ContinuousClock.now - started
        #expect(SQLiteError.Code.busy.matches(error?.code ?? .error))
        #expect(error?.message == "database is locked")
        #expect(waited >= .milliseconds(250), "the busy timeout must make it wait first, waited \(waited)")
        proceed.open()
        try await holder.get()

        // After the lock is gone the second connection writes, and the first write is there.
        try await second.execute("INSERT INTO t VALUES ('second')").get()
        #expect(try await first.query(String.self, "SELECT who FROM t ORDER BY rowid").get() == ["first", "second"])
    }

    @Test func aWriterWaitsForALockReleasedWithinTheBusyTimeout() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let first = try await SQLiteDatabase.open(path: dir("db.sqlite")).get()
        defer { first.close() }
        try await first.execute("CREATE TABLE t(n)").get()
        let second = try await SQLiteDatabase.open(path: dir("db.sqlite")).get()
        defer { second.close() }
        let entered = Gate()
        let holder = first.transaction { db in
            try db.execute("INSERT INTO t VALUES (1)")
            entered.open()
            usleep(200_000)
        }
        try await entered.opened()
        try await second.execute("INSERT INTO t VALUES (2)").get()
        try await holder.get()
        #expect(try await second.query(Int.self, "SELECT n FROM t ORDER BY rowid").get() == [1, 2])
    }

    @Test func theStatementCacheStaysBoundedAndCorrect() async throws {
        var configuration = SQLiteConfiguration()
        configuration.statementCacheCapacity = 4
        let db = SQLiteDatabase(path: ":memory:", configuration: configuration)
        defer { db.close() }
        // 50 distinct statements, each used several times, interleaved: evictions and reuse.
        for round in 0..<3 {
            for n in 0..<50 {
                #expect(try await db.scalar(Int.self, "SELECT \(n) + ?", [round]).get() == n + round)
            }
        }
        // SQLite's own list of this connection's prepared statements: the cache's 4, plus the
        // statement asking.
        let prepared = try await db.scalar(Int.self, "SELECT count(*) FROM sqlite_stmt").get()
        #expect(prepared == 5, "the cache holds at most 4 statements")
        // A statement nested in another's row loop, with the same SQL, gets its own.
        let nested = try await db.read { db in
            var sums: [Int] = []
            try db.forEachRow("SELECT value FROM (SELECT 1 AS value UNION ALL SELECT 2)") { row in
                let inner = try db.scalar(Int.self, "SELECT value FROM (SELECT 1 AS value UNION ALL SELECT 2)") ?? 0
                sums.append(try row.get(0, as: Int.self) + inner)
            }
            return sums
        }.get()
        #expect(nested == [2, 3])
    }
}
