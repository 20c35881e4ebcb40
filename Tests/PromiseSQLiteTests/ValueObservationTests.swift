import Dispatch
@testable import PromiseSQLite
import PromiseTestSupport
import Synchronization
import Testing

/// `SQLiteValueObservation` on database files: values after commits, the tables learned from
/// SQLite, duplicates, bursts, pools, other connections, and the hostile cases.
@Suite struct ValueObservationTests {
    /// Counts the runs of a read.
    final class Reads: Sendable {
        let count = Atomic<Int>(0)
        func add() { count.add(1, ordering: .relaxed) }
        var value: Int { count.load(ordering: .relaxed) }
    }

    static func open(_ dir: TemporaryDirectory, _ name: String = "v.sqlite") async throws -> SQLiteDatabase {
        let db = try await SQLiteDatabase.open(path: dir(name)).get()
        try await db.executeScript(
            """
            CREATE TABLE IF NOT EXISTS a(x INTEGER);
            CREATE TABLE IF NOT EXISTS b(x INTEGER);
            CREATE VIEW IF NOT EXISTS both_tables AS SELECT x FROM a UNION ALL SELECT x FROM b;
            """
        ).get()
        return db
    }

    /// The number of rows in `a`.
    static let countOfA = SQLiteValueObservation { try $0.scalar(Int.self, "SELECT count(*) FROM a") ?? -1 }

    /// The number of rows in `a`, counting each run of the read in `reads`.
    static func countOfA(counting reads: Reads) -> SQLiteValueObservation<Int> {
        SQLiteValueObservation { connection in
            reads.add()
            return try connection.scalar(Int.self, "SELECT count(*) FROM a") ?? -1
        }
    }

    /// Waits (up to 180 s) until `condition` holds; whether it did. Only a hang takes that
    /// long: beside the other suites under AddressSanitizer, a first value took over 60 s to
    /// arrive (twice in CI, 0.1 s in a run of this suite alone).
    static func eventually(_ condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(180)
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(2))
        }
        return false
    }

    /// How a running observation's promise stands, for a failure message.
    static func describe(_ watching: Promise<Void>) -> String {
        watching.isPending ? "is still running" : "ended with \(String(describing: watching.error))"
    }

    /// Waits (up to 180 s) until the consumer of `values` waits for a change.
    static func waiting<V>(_ values: SQLiteObservedValues<V>) async throws -> Bool {
        try await eventually { values.observer.waitsForAChange }
    }

    @Test func theFirstValueThenOneAfterEachCommitToATableItRead() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        let reads = Reads()
        let values = Self.countOfA(counting: reads).values(in: db)
        var iterator = values.makeAsyncIterator()
        #expect(try await iterator.next() == 0)
        let consumer = Task { [iterator] in
            var iterator = iterator
            return try await iterator.next()
        }
        #expect(try await Self.waiting(values))
        try await db.execute("INSERT INTO b VALUES (1)").get()  // not read: no new read, no value
        try await db.execute("INSERT INTO a VALUES (1)").get()
        #expect(try await consumer.value == 1, "a read after the commit to b would have delivered 0")
        #expect(reads.value == 2)
        values.cancel()
        #expect(try await ObservationTests.stopsObserving(db))
        try await db.close().get()
    }

    @Test func theTablesComeFromSQLiteThroughViewsAndOnEveryRun() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        // The table read depends on what the first query finds.
        try await db.executeScript("CREATE TABLE choice(name TEXT); INSERT INTO choice VALUES ('a')").get()
        let values = SQLiteValueObservation { connection in
            let table = try connection.scalar(String.self, "SELECT name FROM choice") ?? "a"
            let view = try connection.scalar(Int.self, "SELECT count(*) FROM both_tables") ?? -1
            return [table, String(view)]
        }.values(in: db)
        var iterator = values.makeAsyncIterator()
        #expect(try await iterator.next() == ["a", "0"])
        try await db.execute("INSERT INTO b VALUES (1)").get()  // through the view
        #expect(try await iterator.next() == ["a", "1"])
        try await db.execute("UPDATE choice SET name = 'b'").get()
        #expect(try await iterator.next() == ["b", "1"])
        values.cancel()
        try await db.close().get()
    }

    @Test func duplicatesAreNeverDeliveredWhenRemoved() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        let reads = Reads()
        let values = SQLiteValueObservation { connection in
            reads.add()
            return try connection.query(Int.self, "SELECT x FROM a ORDER BY x")
        }.removingDuplicates().values(in: db)
        var iterator = values.makeAsyncIterator()
        #expect(try await iterator.next() == [])
        try await db.execute("INSERT INTO a VALUES (1)").get()
        #expect(try await iterator.next() == [1])
        let consumer = Task { [iterator] in
            var iterator = iterator
            return try await iterator.next()
        }
        #expect(try await Self.waiting(values))
        try await db.execute("UPDATE a SET x = x").get()  // read again, same result: not delivered
        #expect(try await Self.eventually { reads.value >= 3 })
        #expect(reads.value == 3)
        try await db.execute("INSERT INTO a VALUES (2)").get()
        #expect(try await consumer.value == [1, 2])
        values.cancel()
        try await db.close().get()
    }

    @Test func aBurstOfCommitsIsOneRead() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        let reads = Reads()
        let values = Self.countOfA(counting: reads).values(in: db)
        var iterator = values.makeAsyncIterator()
        #expect(try await iterator.next() == 0)
        for value in 0..<100 { try await db.execute("INSERT INTO a VALUES (?)", [value]).get() }
        #expect(try await iterator.next() == 100)
        #expect(reads.value == 2)
        values.cancel()
        try await db.close().get()
    }

    @Test func aPoolReadsOnItsReadersAndSeesItsWriter() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let pool = try await SQLiteDatabasePool.open(path: dir("p.sqlite"), readers: 2).get()
        try await pool.execute("CREATE TABLE t(x INTEGER)").get()
        let writer = try await pool.writer.submit { connection, _ in ObjectIdentifier(connection) }.get()
        let readOn = Mutex<Set<ObjectIdentifier>>([])
        let values = SQLiteValueObservation { connection in
            readOn.withLock { _ = $0.insert(ObjectIdentifier(connection.connection)) }
            return try connection.scalar(Int.self, "SELECT count(*) FROM t") ?? -1
        }.values(in: pool)
        var iterator = values.makeAsyncIterator()
        #expect(try await iterator.next() == 0)
        try await pool.execute("INSERT INTO t VALUES (1)").get()
        #expect(try await iterator.next() == 1)
        #expect(!readOn.withLock { $0.contains(writer) } && !readOn.withLock { $0.isEmpty })
        values.cancel()
        try await pool.close().get()
    }

    @Test func anotherConnectionsCommitIsSeenAtTheIntervalGiven() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir, "shared.sqlite")
        let other = try await SQLiteDatabase.open(path: dir("shared.sqlite")).get()
        let values = Self.countOfA.values(in: db, externalChangeInterval: .milliseconds(5))
        var iterator = values.makeAsyncIterator()
        #expect(try await iterator.next() == 0)
        try await other.execute("INSERT INTO a VALUES (1)").get()
        #expect(try await iterator.next() == 1)
        values.cancel()
        try await other.close().get()
        try await db.close().get()
    }

    /// A commit made by another process: the `sqlite3` shell, writing to the same file.
    @Test(.enabled(if: SQLiteShell.available, "needs the sqlite3 shell: scripts/bootstrap installs it"))
    func anotherProcesssCommitIsSeenAtTheIntervalGiven() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir, "shared.sqlite")
        let values = Self.countOfA.values(in: db, externalChangeInterval: .milliseconds(5))
        var iterator = values.makeAsyncIterator()
        #expect(try await iterator.next() == 0)
        let status = try await SQLiteShell.run([dir("shared.sqlite"), "INSERT INTO a VALUES (1), (2)"], output: dir("shell.out"))
        #expect(status == 0)
        #expect(try await iterator.next() == 2)
        values.cancel()
        try await db.close().get()
    }

    @Test func aZeroOrNegativeIntervalPollsAtTheShortestIntervalAndStillWorks() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir, "shared.sqlite")
        let other = try await SQLiteDatabase.open(path: dir("shared.sqlite")).get()
        let observation = Self.countOfA
        for interval: Duration in [.zero, .seconds(-5)] {
            let values = observation.values(in: db, externalChangeInterval: interval)
            #expect(values.observer.externalChangeInterval == .milliseconds(1))
            var iterator = values.makeAsyncIterator()
            let first = try #require(try await iterator.next())
            try await other.execute("INSERT INTO a VALUES (1)").get()
            #expect(try await iterator.next() == first + 1)
            values.cancel()
        }
        try await other.close().get()
        try await db.close().get()
    }

    @Test func anObservedTableThatIsDroppedEndsWithTheReadsError() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        let values = SQLiteValueObservation { try $0.scalar(Int.self, "SELECT count(*) FROM b") ?? -1 }.values(in: db)
        var iterator = values.makeAsyncIterator()
        #expect(try await iterator.next() == 0)
        try await db.executeScript("DROP VIEW both_tables; DROP TABLE b").get()
        await #expect(throws: SQLiteError.self) { try await iterator.next() }
        #expect(try await iterator.next() == nil, "the error once, then the end")
        #expect(try await ObservationTests.stopsObserving(db))
        try await db.close().get()
    }

    @Test func aMigrationRacingAnObservationIsSeen() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        let values = Self.countOfA.values(in: db)
        var iterator = values.makeAsyncIterator()
        #expect(try await iterator.next() == 0)
        var migrator = SQLiteMigrator()
        try migrator.register("seed") { db in
            try db.execute("CREATE TABLE c(x INTEGER)")
            try db.execute("INSERT INTO a VALUES (1), (2)")
        }
        let migrating = migrator.migrate(db)
        #expect(try await iterator.next() == 2)
        #expect(try await migrating.get() == ["seed"])
        values.cancel()
        try await db.close().get()
    }

    @Test func callbacksRunOnTheContextOneAtATimeUntilCancelled() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        let queue = DispatchQueue(label: "observer")
        let seen = Mutex<[Int]>([])
        let watching = Self.countOfA
            .start(in: db, on: queue) { count in
                dispatchPrecondition(condition: .onQueue(queue))
                seen.withLock { $0.append(count) }
            }
        #expect(try await Self.eventually { !seen.withLock { $0.isEmpty } }, "no first value; the observation \(Self.describe(watching))")
        try await db.execute("INSERT INTO a VALUES (1)").get()
        #expect(try await Self.eventually { seen.withLock { $0.count >= 2 } }, "no second value; the observation \(Self.describe(watching))")
        #expect(seen.withLock { $0 } == [0, 1])
        watching.cancel()
        #expect(await isCancelled(watching))
        #expect(try await ObservationTests.stopsObserving(db))
        try await db.close().get()
    }

    /// 10 000 observations take 2 s. Under a sanitizer, beside the other suites, they take
    /// minutes and starve those of both cores, so there they are 2 000.
    @Test func tenThousandObservationsEachSeeTheCommitOnce() async throws {
        let count = Sanitizer.address || Sanitizer.thread ? 2_000 : 10_000
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        let reads = Reads()
        let observation = Self.countOfA(counting: reads)
        let all = (0..<count).map { _ in observation.values(in: db) }
        var iterators = all.map { $0.makeAsyncIterator() }
        var firsts = 0
        for index in iterators.indices where try await iterators[index].next() == 0 { firsts += 1 }
        #expect(firsts == count)
        try await db.execute("INSERT INTO a VALUES (1)").get()
        try await db.execute("INSERT INTO b VALUES (1)").get()
        var seconds = 0
        for index in iterators.indices where try await iterators[index].next() == 1 { seconds += 1 }
        #expect(seconds == count)
        #expect(reads.value == 2 * count, "one read each for the first value and one for the commit to a")
        for values in all { values.cancel() }
        #expect(try await ObservationTests.stopsObserving(db))
        try await db.close().get()
    }

    @Test func cancellingOrDroppingEndsTheObservation() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        let observation = Self.countOfA

        // Cancelled before its registration or first read ran.
        let early = observation.values(in: db)
        early.cancel()
        var earlyIterator = early.makeAsyncIterator()
        #expect(try await earlyIterator.next() == nil)
        #expect(try await ObservationTests.stopsObserving(db))

        // The iterating task is cancelled while it waits for a change.
        let values = observation.values(in: db)
        let consumer = Task {
            var count = 0
            for try await _ in values { count += 1 }
            return count
        }
        #expect(try await Self.waiting(values))
        consumer.cancel()
        #expect(try await consumer.value == 1)
        #expect(try await ObservationTests.stopsObserving(db))

        // Released without being iterated.
        do { _ = observation.values(in: db) }
        #expect(try await ObservationTests.stopsObserving(db))
        try await db.close().get()
    }

    /// A context that refuses the observation's call (an invalidated queue) ends it with the
    /// refusal, instead of leaving its promise pending and the database held.
    @Test func aContextThatRefusesTheCallEndsTheObservation() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        let queue = InvalidatableQueue(queue: DispatchQueue(label: "observer"))
        let seen = Mutex<[Int]>([])
        let watching = Self.countOfA.start(in: db, on: queue) { count in seen.withLock { $0.append(count) } }
        #expect(try await Self.eventually { !seen.withLock { $0.isEmpty } }, "no first value; the observation \(Self.describe(watching))")
        queue.invalidate()
        try await db.execute("INSERT INTO a VALUES (1)").get()
        let error = await #expect(throws: PromiseError.self) { try await watching.get() }
        #expect(error?.code == .contextInvalidated, "\(String(describing: error))")
        #expect(seen.withLock { $0 } == [0])
        try await db.close().get()
    }

    @Test func closingTheDatabaseEndsWithClosed() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        let observation = Self.countOfA
        let values = observation.values(in: db)
        let watching = observation.start(in: db) { _ in }
        var iterator = values.makeAsyncIterator()
        #expect(try await iterator.next() == 0)
        try await db.close().get()
        await #expect(throws: SQLiteError.self) { try await iterator.next() }
        #expect(await sqliteError(watching)?.code == .closed)
        var afterClose = observation.values(in: db).makeAsyncIterator()
        await #expect(throws: SQLiteError.self) { try await afterClose.next() }
    }
}
