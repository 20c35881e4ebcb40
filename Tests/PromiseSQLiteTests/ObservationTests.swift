@testable import PromiseSQLite
import PromiseTestSupport
import Synchronization
import Testing

/// Commit notifications (`SQLiteDatabase+Observation.swift`, `ObservationHub`) on database
/// files. "Nothing was reported" is checked by a marker: after the transaction that must not
/// be reported, a commit to another table is made, and the first report must be the marker's.
@Suite struct ObservationTests {
    static func open(_ dir: TemporaryDirectory, _ configuration: SQLiteConfiguration = SQLiteConfiguration()) async throws
        -> SQLiteDatabase
    {
        let db = try await SQLiteDatabase.open(path: dir("o.sqlite"), configuration: configuration).get()
        try await db.executeScript(
            """
            CREATE TABLE a(x INTEGER);
            CREATE TABLE b(x INTEGER);
            CREATE TABLE c(x INTEGER);
            CREATE TABLE marker(x INTEGER);
            CREATE TABLE plain(k TEXT PRIMARY KEY, v INTEGER) WITHOUT ROWID;
            """
        ).get()
        return db
    }

    /// Whether the connection still has observers registered (read on its thread).
    static func observing(_ db: SQLiteDatabase) async throws -> Bool {
        try await db.submit { connection, _ in !(connection.observationHub?.isEmpty ?? true) }.get()
    }

    /// Waits (up to 60 s) until the connection has no observer left.
    static func stopsObserving(_ db: SQLiteDatabase) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if try await !observing(db) { return true }
            try await Task.sleep(for: .milliseconds(5))
        }
        return false
    }

    @Test func theNextCommitTouchingATableIsReportedAfterTheCommit() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        let onB = db.nextCommit(touching: ["B"])
        let any = db.nextCommit()
        try await db.execute("INSERT INTO a VALUES (1)").get()
        try await db.transaction { db in
            try db.execute("INSERT INTO b VALUES (1)")
            try db.execute("UPDATE a SET x = 2")
        }.get()
        #expect(try await any.get() == SQLiteCommit(tables: ["a"]))
        let commit = try await onB.get()
        #expect(commit.tables == ["a", "b"])
        #expect(commit.touched("B") && commit.touched("a") && !commit.touched("c"))
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM b").get() == 1, "reported after the commit")
        #expect(try await !Self.observing(db), "a fulfilled promise's observation is removed")
        try await db.close().get()
    }

    @Test func noCallbackRunsInsideAHook() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        // An inline callback that waits for the database: inside SQLite's hook, on the
        // connection thread, it would fail with a deadlock error.
        let counted = db.nextCommit(touching: ["a"]).then(on: .inline) { _ in
            try awaitPromise(db.scalar(Int.self, "SELECT count(*) FROM a"))
        }
        try await db.execute("INSERT INTO a VALUES (1)").get()
        #expect(try await counted.get() == 1)
        try await db.close().get()
    }

    @Test func aRollbackAndARolledBackSavepointReportNothing() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        let commits = db.commits()
        var iterator = commits.makeAsyncIterator()
        struct Abandon: Error {}
        _ = await sqliteErrorOrAny(
            db.transaction { db in
                try db.execute("INSERT INTO a VALUES (1)")
                throw Abandon()
            })
        try await db.transaction { db in
            try db.execute("INSERT INTO a VALUES (1)")
            _ = try? db.transaction { db in  // a savepoint, rolled back
                try db.execute("INSERT INTO b VALUES (1)")
                try db.execute("INSERT INTO a VALUES (1)")
                throw Abandon()
            }
            try db.transaction { db in  // a savepoint, released
                try db.execute("INSERT INTO c VALUES (1)")
            }
        }.get()
        #expect(await iterator.next()?.tables == ["a", "c"])
        // SQL savepoints, quoted and nested, rolled back to and released by name.
        try await db.executeScript(
            """
            BEGIN;
            SAVEPOINT "Outer Point";
            INSERT INTO a VALUES (2);
            /* comment */ SAVEPOINT inner;
            INSERT INTO b VALUES (2);
            ROLLBACK TRANSACTION TO SAVEPOINT "outer point";
            INSERT INTO c VALUES (2);
            RELEASE "OUTER POINT";
            COMMIT;
            """
        ).get()
        #expect(await iterator.next()?.tables == ["c"])
        // A transaction begun by SAVEPOINT, rolled back in full.
        try await db.executeScript("SAVEPOINT s; INSERT INTO a VALUES (3); ROLLBACK; INSERT INTO marker VALUES (1)").get()
        #expect(await iterator.next()?.tables == ["marker"])
        // A transaction begun by SAVEPOINT and committed by RELEASE.
        try await db.executeScript("SAVEPOINT s; INSERT INTO b VALUES (3); RELEASE s").get()
        #expect(await iterator.next()?.tables == ["b"])
        commits.cancel()
        try await db.close().get()
    }

    /// With the pre-update hook, `WITHOUT ROWID` tables are named like any other; with the
    /// update hook alone (an SQLite built without the pre-update hook), they are not seen.
    /// Either way, a `DELETE` without `WHERE` is.
    @Test(arguments: [false, true])
    func withoutRowIDTablesAndTruncatingDeletesAreSeen(updateHookOnly: Bool) async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        var configuration = SQLiteConfiguration()
        configuration.rowChangesThroughUpdateHookOnly = updateHookOnly
        let db = try await Self.open(dir, configuration)
        try await db.execute("INSERT INTO a VALUES (1), (2)").get()
        try await db.execute("DELETE FROM a").get()  // prepared and cached before observing
        try await db.execute("INSERT INTO a VALUES (1), (2)").get()
        let commits = db.commits()
        var iterator = commits.makeAsyncIterator()
        try await db.execute("INSERT INTO plain VALUES ('k', 1)").get()
        try await db.execute("INSERT INTO marker VALUES (1)").get()
        // Both commits arrive before the consumer asks: they come merged.
        #expect(await iterator.next()?.tables == (updateHookOnly ? ["marker"] : ["marker", "plain"]))
        try await db.transaction { db in
            try db.execute("UPDATE plain SET v = 2")
            try db.execute("INSERT INTO b VALUES (1)")
        }.get()
        #expect(await iterator.next()?.tables == (updateHookOnly ? ["b"] : ["b", "plain"]))
        // DELETE without WHERE would truncate unseen; observed, it deletes row by row.
        try await db.execute("DELETE FROM a").get()
        #expect(await iterator.next()?.tables == ["a"])
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM a").get() == 0)
        // DROP TABLE and DROP VIEW still work while observed.
        try await db.executeScript("CREATE VIEW v AS SELECT * FROM b; CREATE TEMP TABLE tt(x); CREATE INDEX ib ON b(x)").get()
        for drop in ["DROP TABLE c", "DROP VIEW v", "DROP TABLE tt", "DROP INDEX ib"] {
            try await db.execute(drop).get()
        }
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM sqlite_schema WHERE name IN ('c', 'v', 'ib')").get() == 0)
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM sqlite_temp_schema WHERE name = 'tt'").get() == 0)
        try await db.execute("DELETE FROM b").get()
        #expect(await iterator.next()?.tables == ["b"])
        commits.cancel()
        #expect(await iterator.next() == nil)
        try await db.close().get()
    }

    @Test func aCommitMadeWhileResettingAStatementIsReported() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        let next = db.nextCommit(touching: ["a"])
        // queryFirst reads one row and resets: the autocommit transaction commits in the reset.
        let row = try await db.queryFirst("INSERT INTO a VALUES (1), (2) RETURNING x").get()
        #expect(row?[0] == .integer(1))
        #expect(try await next.get().tables == ["a"])
        try await db.close().get()
    }

    @Test func aPoolReportsEveryWriteOfItsWriter() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let pool = try await SQLiteDatabasePool.open(path: dir("p.sqlite"), readers: 2).get()
        try await pool.execute("CREATE TABLE t(x INTEGER)").get()
        let next = pool.nextCommit(touching: ["t"])
        let commits = pool.commits(touching: ["t"])
        var iterator = commits.makeAsyncIterator()
        _ = try await pool.read { try $0.query("SELECT * FROM t") }.get()
        try await pool.execute("INSERT INTO t VALUES (1)").get()
        try await pool.transaction { try $0.execute("INSERT INTO t VALUES (2)") }.get()
        #expect(try await next.get().tables == ["t"])
        let first = try #require(await iterator.next())
        var total = first.transactions
        if total < 2 { total += await iterator.next()?.transactions ?? 0 }
        #expect(total == 2)
        commits.cancel()
        try await pool.close().get()
    }

    @Test func aSlowConsumerGetsCommitsMerged() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        let commits = db.commits(touching: ["a", "b"])
        for index in 0..<100 {
            try await db.execute(index % 2 == 0 ? "INSERT INTO a VALUES (?)" : "INSERT INTO b VALUES (?)", [index]).get()
        }
        try await db.execute("INSERT INTO c VALUES (1)").get()
        var iterator = commits.makeAsyncIterator()
        let merged = await iterator.next()
        #expect(merged == SQLiteCommit(tables: ["a", "b"], transactions: 100))
        commits.cancel()
        try await db.close().get()
    }

    @Test func cancellingEndsTheObservation() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        // Cancelled before its registration ran, and after.
        let early = db.nextCommit(touching: ["a"])
        early.cancel()
        #expect(await isCancelled(early))
        #expect(try await Self.stopsObserving(db))
        let next = db.nextCommit(touching: ["a"])
        #expect(try await Self.observing(db))
        next.cancel()
        #expect(await isCancelled(next))
        #expect(try await Self.stopsObserving(db))
        try await db.execute("INSERT INTO a VALUES (1)").get()

        // A task iterating the sequence is cancelled: next() returns nil, the observation ends.
        let commits = db.commits()
        let consumer = Task {
            var count = 0
            for await _ in commits { count += 1 }
            return count
        }
        try await db.execute("INSERT INTO a VALUES (2)").get()
        consumer.cancel()
        #expect(await consumer.value <= 1)
        #expect(try await Self.stopsObserving(db))

        // A sequence released without being iterated ends its observation too.
        do { _ = db.commits(touching: ["b"]) }
        #expect(try await Self.stopsObserving(db))
        try await db.close().get()
    }

    @Test func closingSettlesWaitingPromisesAndEndsSequences() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        let next = db.nextCommit(touching: ["a"])
        let commits = db.commits()
        let consumer = Task {
            var seen = [SQLiteCommit]()
            for await commit in commits { seen.append(commit) }
            return seen
        }
        try await db.execute("INSERT INTO b VALUES (1)").get()
        try await db.close().get()
        #expect(await sqliteError(next)?.code == .closed)
        #expect(await consumer.value.flatMap(\.tables) == ["b"], "a commit before the close is delivered, then the end")
        #expect(await sqliteError(db.nextCommit())?.code == .closed, "observing a closed database is refused")
        var after = db.commits().makeAsyncIterator()
        let end = await after.next()
        #expect(end == nil)
    }

    @Test func observingADatabaseThatCouldNotOpenFailsWithTheReason() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let missing = SQLiteDatabase(path: dir("missing/o.sqlite"))
        #expect(await sqliteError(missing.nextCommit())?.code == .cannotOpen)
        var iterator = missing.commits().makeAsyncIterator()
        let end = await iterator.next()
        #expect(end == nil)
        try? await missing.close().get()
    }

    @Test func droppingTheDatabaseEndsItsObservations() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        var db: SQLiteDatabase? = try await Self.open(dir)
        let next = db!.nextCommit()
        var iterator = db!.commits().makeAsyncIterator()
        db = nil
        #expect(await sqliteError(next)?.code == .closed)
        #expect(await iterator.next() == nil)
    }
}

/// The error a promise rejects with, whatever its type.
func sqliteErrorOrAny<T: Sendable>(_ promise: Promise<T>) async -> (any Error)? {
    do {
        _ = try await promise.get()
        return nil
    } catch {
        return error
    }
}
