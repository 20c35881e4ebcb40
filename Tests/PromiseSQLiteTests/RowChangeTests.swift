@testable import PromiseSQLite
import PromiseTestSupport
import Testing

/// Row-level change events (`transactionEvents`) on database files: what a commit changed,
/// rollbacks, schema changes, a slow consumer's bound, and the hostile cases.
@Suite struct RowChangeTests {
    typealias Change = SQLiteRowChange

    static func open(_ dir: TemporaryDirectory) async throws -> SQLiteDatabase {
        let db = try await SQLiteDatabase.open(path: dir("r.sqlite")).get()
        try await db.executeScript(
            """
            CREATE TABLE a(x INTEGER UNIQUE);
            CREATE TABLE b(x INTEGER);
            CREATE TABLE log(x INTEGER);
            CREATE TRIGGER a_log AFTER INSERT ON a BEGIN INSERT INTO log VALUES (new.x); END;
            """
        ).get()
        return db
    }

    /// The next `count` events.
    static func take(_ count: Int, from events: SQLiteTransactionEvents) async -> [SQLiteTransactionEvent] {
        var iterator = events.makeAsyncIterator()
        var taken: [SQLiteTransactionEvent] = []
        while taken.count < count, let event = await iterator.next() { taken.append(event) }
        return taken
    }

    static func committed(_ changes: [Change], schemaChanged: Bool = false, unlisted: Int = 0) -> SQLiteTransactionEvent {
        .committed(
            SQLiteCommittedChanges(
                changes: changes, tables: Set(changes.map(\.table)), schemaChanged: schemaChanged, unlistedChanges: unlisted))
    }

    @Test func eachCommitListsItsRowsInOrder() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        let all = db.transactionEvents()
        let insertsIntoA = db.transactionEvents(touching: ["A"], operations: .insert)
        try await db.transaction { db in
            try db.execute("INSERT INTO a VALUES (10), (20)")
            try db.execute("UPDATE b SET x = 1")  // no row: nothing
            try db.execute("INSERT INTO b VALUES (5)")
            try db.execute("UPDATE a SET x = 11 WHERE x = 10")
            try db.execute("DELETE FROM a WHERE x = 20")
        }.get()
        try await db.execute("DELETE FROM b").get()  // every row, no WHERE: still seen row by row
        #expect(
            await Self.take(2, from: all) == [
                Self.committed([
                    Change(table: "a", operation: .insert, rowID: 1), Change(table: "log", operation: .insert, rowID: 1),
                    Change(table: "a", operation: .insert, rowID: 2), Change(table: "log", operation: .insert, rowID: 2),
                    Change(table: "b", operation: .insert, rowID: 1), Change(table: "a", operation: .update, rowID: 1),
                    Change(table: "a", operation: .delete, rowID: 2),
                ]),
                Self.committed([Change(table: "b", operation: .delete, rowID: 1)]),
            ])
        #expect(
            await Self.take(1, from: insertsIntoA) == [
                Self.committed([Change(table: "a", operation: .insert, rowID: 1), Change(table: "a", operation: .insert, rowID: 2)])
            ])
        try await db.close().get()
    }

    @Test func rollbacksAreReportedAndTheirRowsNever() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        let events = db.transactionEvents(touching: ["a", "b"])
        struct Stop: Error {}
        let thrown = db.transaction { db in
            try db.execute("INSERT INTO a VALUES (1)")
            throw Stop()
        }
        _ = try? await thrown.get()
        try await db.executeScript("BEGIN; INSERT INTO b VALUES (1); SAVEPOINT s; INSERT INTO b VALUES (2); ROLLBACK TO s; COMMIT").get()
        try await db.executeScript("BEGIN; ROLLBACK").get()  // discarded nothing: not reported
        try await db.executeScript("BEGIN; INSERT INTO log VALUES (1); ROLLBACK").get()  // not a table of interest
        try await db.execute("INSERT INTO a VALUES (2)").get()
        #expect(
            await Self.take(3, from: events) == [
                .rolledBack(tables: ["a"]),
                Self.committed([Change(table: "b", operation: .insert, rowID: 1)]),
                Self.committed([Change(table: "a", operation: .insert, rowID: 1)]),
            ])
        try await db.close().get()
    }

    /// A statement that fails inside a transaction that goes on is undone by SQLite; its rows
    /// (and its trigger's) are not reported, nor is its table at the table level. `OR FAIL`
    /// keeps the rows before the failure, and so do the reports.
    @Test func aStatementSQLiteUndidIsNotReported() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        try await db.execute("INSERT INTO a VALUES (3)").get()
        let events = db.transactionEvents()
        let commits = db.commits()
        try await db.transaction { db in
            try db.execute("INSERT INTO b VALUES (1)")
            #expect(throws: SQLiteError.self) { try db.execute("INSERT INTO a VALUES (1), (2), (3)") }
            #expect(throws: SQLiteError.self) { try db.execute("INSERT OR FAIL INTO a VALUES (4), (3)") }
        }.get()
        let seen = await Self.take(1, from: events)
        #expect(
            seen == [
                Self.committed([
                    Change(table: "b", operation: .insert, rowID: 1),
                    Change(table: "a", operation: .insert, rowID: 2), Change(table: "log", operation: .insert, rowID: 2),
                ])
            ])
        #expect(try await db.query(Int.self, "SELECT x FROM a ORDER BY x").get() == [3, 4], "what the report says is what is there")
        var iterator = commits.makeAsyncIterator()
        #expect(await iterator.next()?.tables == ["a", "b", "log"])
        try await db.close().get()
    }

    @Test func aCommitThatChangesOnlyTheSchemaIsReportedToEveryone() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        let onA = db.transactionEvents(touching: ["a"])
        try await db.execute("CREATE INDEX b_x ON b(x)").get()
        try await db.execute("DROP TABLE a").get()  // the observed table goes: its rows are not listed one by one
        #expect(
            await Self.take(2, from: onA) == [
                .committed(SQLiteCommittedChanges(changes: [], tables: [], schemaChanged: true)),
                .committed(SQLiteCommittedChanges(changes: [], tables: [], schemaChanged: true)),
            ])
        try await db.close().get()
    }

    @Test func aPoolReportsItsWritersTransactions() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let pool = try await SQLiteDatabasePool.open(path: dir("p.sqlite"), readers: 2).get()
        try await pool.execute("CREATE TABLE t(x INTEGER)").get()
        let events = pool.transactionEvents(touching: ["t"], operations: [.insert, .delete])
        try await pool.execute("INSERT INTO t VALUES (1)").get()
        try await pool.execute("UPDATE t SET x = 2").get()
        try await pool.transaction { try $0.execute("DELETE FROM t") }.get()
        #expect(
            await Self.take(2, from: events) == [
                Self.committed([Change(table: "t", operation: .insert, rowID: 1)]),
                Self.committed([Change(table: "t", operation: .delete, rowID: 1)]),
            ])
        try await pool.close().get()
    }

    /// A consumer that never reads holds at most `bufferLimit` events and changes; the rest is
    /// counted, in order after what was kept. One large transaction lists `bufferLimit` rows.
    @Test func aConsumerThatNeverReadsHoldsABoundedBuffer() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        let events = db.transactionEvents(touching: ["b"], bufferLimit: 3)
        for value in 0..<10 { try await db.execute("INSERT INTO b VALUES (?)", [value]).get() }
        try await db.executeScript("BEGIN; INSERT INTO b VALUES (1); ROLLBACK").get()
        let kept = await Self.take(4, from: events)
        #expect(kept.prefix(3) == (1...3).map { Self.committed([Change(table: "b", operation: .insert, rowID: Int64($0))]) }[...])
        #expect(
            kept.last == .missed(SQLiteMissedTransactions(commits: 7, rollbacks: 1, changes: 7, tables: ["b"], schemaChanged: false)))

        try await db.execute("WITH RECURSIVE n(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM n WHERE v < 1000) INSERT INTO b SELECT v FROM n").get()
        let large = await Self.take(1, from: events)
        guard case .committed(let commit)? = large.first else {
            Issue.record("expected a commit, got \(large)")
            return
        }
        #expect(commit.changes.map(\.rowID) == [11, 12, 13])
        #expect(commit.unlistedChanges == 997)
        #expect(commit.tables == ["b"])
        try await db.close().get()
    }

    @Test func extremeBufferLimitsAreTakenAsTheyCan() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        let none = db.transactionEvents(bufferLimit: 0)
        let negative = db.transactionEvents(bufferLimit: .min)
        let unbounded = db.transactionEvents(bufferLimit: .max)
        try await db.execute("INSERT INTO b VALUES (1), (2)").get()
        let one = Self.committed([Change(table: "b", operation: .insert, rowID: 1)], unlisted: 1)
        #expect(await Self.take(1, from: none) == [one], "a limit below 1 counts as 1")
        #expect(await Self.take(1, from: negative) == [one])
        #expect(
            await Self.take(1, from: unbounded) == [
                Self.committed([Change(table: "b", operation: .insert, rowID: 1), Change(table: "b", operation: .insert, rowID: 2)])
            ])
        try await db.close().get()
    }

    @Test func tenThousandObservationsEachSeeTheCommit() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        let observations = (0..<10_000).map { index in db.transactionEvents(touching: [index % 2 == 0 ? "a" : "b"]) }
        try await db.execute("INSERT INTO a VALUES (1)").get()
        try await db.execute("INSERT INTO b VALUES (1)").get()
        var wrong = 0
        for (index, events) in observations.enumerated() {
            let table = index % 2 == 0 ? "a" : "b"
            let first = await Self.take(1, from: events).first
            if case .committed(let commit)? = first, commit.changes.first?.table == table { continue }
            wrong += 1
        }
        #expect(wrong == 0)
        for events in observations { events.cancel() }
        #expect(try await ObservationTests.stopsObserving(db))
        try await db.close().get()
    }

    /// A migration replaces nothing of an observation: during it and after it, deletes are
    /// still seen row by row, and its schema change is reported.
    @Test func aMigrationRacingAnObservationLeavesItWhole() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        try await db.execute("INSERT INTO b VALUES (1), (2)").get()
        let events = db.transactionEvents(touching: ["b", "c"])
        var migrator = SQLiteMigrator()
        try migrator.register("clear b, add c") { db in
            try db.execute("DELETE FROM b")
            try db.execute("CREATE TABLE c(x INTEGER)")
        }
        #expect(try await migrator.migrate(db).get() == ["clear b, add c"])
        try await db.execute("INSERT INTO c VALUES (7), (8)").get()
        try await db.execute("DELETE FROM c").get()
        let seen = await Self.take(4, from: events)
        #expect(
            seen == [
                // The migrator's own table: a schema change, reported to everyone.
                .committed(SQLiteCommittedChanges(changes: [], tables: [], schemaChanged: true)),
                .committed(
                    SQLiteCommittedChanges(
                        changes: [Change(table: "b", operation: .delete, rowID: 1), Change(table: "b", operation: .delete, rowID: 2)],
                        tables: ["b"], schemaChanged: true)),
                Self.committed([Change(table: "c", operation: .insert, rowID: 1), Change(table: "c", operation: .insert, rowID: 2)]),
                Self.committed([Change(table: "c", operation: .delete, rowID: 1), Change(table: "c", operation: .delete, rowID: 2)]),
            ])
        try await db.close().get()
    }

    /// A consumer that writes to the database for each event it gets: its own writes are
    /// reported to it like any other (nothing runs inside SQLite's hooks, so nothing
    /// deadlocks), and an observation of other tables never sees them.
    @Test func aConsumerThatWritesToTheDatabaseIsReportedItsOwnWrites() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        let events = db.transactionEvents(touching: ["b", "log"], operations: .insert)
        let onA = db.transactionEvents(touching: ["a"])
        let consumer = Task {
            var seen: [SQLiteRowChange] = []
            for await event in events {
                guard case .committed(let commit) = event else { continue }
                seen += commit.changes
                if commit.changes.contains(where: { $0.table == "b" }) {
                    try await db.execute("INSERT INTO log VALUES (?)", [seen.count]).get()
                }
                if seen.count == 4 { break }
            }
            return seen
        }
        try await db.execute("INSERT INTO b VALUES (1)").get()
        try await db.execute("INSERT INTO b VALUES (2)").get()
        let seen = try await consumer.value
        #expect(seen.filter { $0.table == "b" }.map(\.rowID) == [1, 2])
        #expect(seen.filter { $0.table == "log" }.count == 2)
        try await db.execute("INSERT INTO a VALUES (9)").get()
        let first = await Self.take(1, from: onA)
        #expect(first == [Self.committed([Change(table: "a", operation: .insert, rowID: 1)])], "its trigger's row in log is not of interest")
        try await db.close().get()
    }

    @Test func cancellingOrDroppingEndsTheObservation() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        // Cancelled at once, before its registration ran.
        let early = db.transactionEvents()
        early.cancel()
        #expect(await Self.take(1, from: early) == [])
        #expect(try await ObservationTests.stopsObserving(db))

        // The task iterating it is cancelled while it waits.
        let events = db.transactionEvents()
        let consumer = Task { await Self.take(2, from: events) }
        try await db.execute("INSERT INTO b VALUES (1)").get()
        consumer.cancel()
        #expect(await consumer.value.count <= 1)
        #expect(try await ObservationTests.stopsObserving(db))

        // Released without being iterated.
        do { _ = db.transactionEvents(touching: ["a"]) }
        #expect(try await ObservationTests.stopsObserving(db))
        try await db.execute("INSERT INTO b VALUES (2)").get()
        try await db.close().get()
    }

    @Test func closingDeliversWhatWasCommittedThenEnds() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        var db: SQLiteDatabase? = try await Self.open(dir)
        let events = db!.transactionEvents()
        try await db!.execute("INSERT INTO b VALUES (1)").get()
        db = nil  // the owner is dropped: the database closes
        #expect(await Self.take(3, from: events) == [Self.committed([Change(table: "b", operation: .insert, rowID: 1)])])

        let closed = try await SQLiteDatabase.open(path: dir("closed.sqlite")).get()
        try await closed.close().get()
        #expect(await Self.take(1, from: closed.transactionEvents()) == [], "observing a closed database ends at once")
        let missing = SQLiteDatabase(path: dir("missing/r.sqlite"))
        #expect(await Self.take(1, from: missing.transactionEvents()) == [], "and one that could not open")
        try? await missing.close().get()
    }
}
