import PromiseSQLite
import PromiseTestSupport
import Synchronization
import Testing

/// Swift aggregates (`SQLiteAggregate`) and collations (`SQLiteCollation`) in SQL, on
/// database files.
@Suite(.serialized) struct AggregateAndCollationTests {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Sums squares; throws in `step` on a negative number and in `finalize` past a limit.
    struct SumOfSquares: SQLiteAggregate {
        static let live = Atomic<Int>(0)
        var total = 0
        let tracker = Tracker()

        final class Tracker {
            init() { SumOfSquares.live.add(1, ordering: .relaxed) }
            deinit { SumOfSquares.live.subtract(1, ordering: .relaxed) }
        }

        mutating func step(_ arguments: [SQLiteValue]) throws {
            guard let value = Int.fromSQLiteValue(arguments[0]) else { return }
            if value < 0 { throw Failure(description: "negative \(value)") }
            total += value * value
        }

        func finalize() throws -> (any SQLiteValueConvertible)? {
            if total > 1_000 { throw Failure(description: "total \(total) too large") }
            return total
        }
    }

    @Test func anAggregateFoldsEachGroupAndAnEmptyGroup() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await SQLiteDatabase.open(path: dir("a.sqlite")).get()
        try await db.add(function: SQLiteFunction("squares", argumentCount: 1, options: .deterministic, aggregate: SumOfSquares.self)).get()
        try await db.executeScript("CREATE TABLE t(g TEXT, x INTEGER); INSERT INTO t VALUES ('a', 1), ('a', 2), ('b', 3), ('b', NULL)").get()
        struct Row: Decodable, Equatable { let g: String; let s: Int }
        #expect(try await db.query(Row.self, "SELECT g, squares(x) AS s FROM t GROUP BY g ORDER BY g").get() == [Row(g: "a", s: 5), Row(g: "b", s: 9)])
        #expect(try await db.scalar(Int.self, "SELECT squares(x) FROM t WHERE g = 'none'").get() == 0, "finalize without a step")
        #expect(SumOfSquares.live.load(ordering: .relaxed) == 0, "every group's state is released")
        try await db.close().get()
    }

    @Test func anAggregateThatThrowsInStepOrFinalizeFailsTheStatementAndLeaksNothing() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await SQLiteDatabase.open(path: dir("a.sqlite")).get()
        try await db.add(function: SQLiteFunction("squares", argumentCount: 1, aggregate: SumOfSquares.self)).get()
        try await db.executeScript("CREATE TABLE t(g TEXT, x INTEGER); INSERT INTO t VALUES ('a', 1), ('a', -2), ('a', 3), ('b', 40)").get()
        let inStep = try #require(await sqliteError(db.scalar(Int.self, "SELECT squares(x) FROM t WHERE g = 'a'")))
        #expect(inStep.message == "squares(): negative -2")
        #expect((inStep.underlying as? Failure)?.description == "negative -2")
        #expect(inStep.sql == "SELECT squares(x) FROM t WHERE g = 'a'")
        let inFinalize = try #require(await sqliteError(db.scalar(Int.self, "SELECT squares(x) FROM t WHERE g = 'b'")))
        #expect(inFinalize.message == "squares(): total 1600 too large")
        // Several groups, the failure in the middle one.
        #expect(await sqliteError(db.query("SELECT g, squares(x) FROM t GROUP BY g")) != nil)
        #expect(SumOfSquares.live.load(ordering: .relaxed) == 0, "a failed group's state is released too")
        #expect(try await db.scalar(Int.self, "SELECT squares(x) FROM t WHERE x = 3").get() == 9)
        try await db.close().get()
    }

    @Test func aCollationOrdersComparesAndIndexes() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await SQLiteDatabase.open(path: dir("c.sqlite")).get()
        let byLength = SQLiteCollation("by_length") { lhs, rhs in
            lhs.utf8.count != rhs.utf8.count ? lhs.utf8.count < rhs.utf8.count : lhs < rhs
        }
        try await db.add(collation: byLength).get()
        try await db.executeScript(
            """
            CREATE TABLE w(word TEXT UNIQUE COLLATE by_length);
            INSERT INTO w VALUES ('ccc'), ('a'), ('bb'), ('aa');
            """
        ).get()
        #expect(try await db.query(String.self, "SELECT word FROM w ORDER BY word").get() == ["a", "aa", "bb", "ccc"])
        #expect(try await db.scalar(Int.self, "SELECT 'zz' < 'aaa' COLLATE by_length").get() == 1)
        // Invalid UTF-8 reaches the collation repaired; the stored bytes stay.
        try await db.execute("INSERT INTO w VALUES (CAST(x'C328' AS TEXT))").get()
        #expect(try await db.scalar([UInt8].self, "SELECT word FROM w WHERE word = CAST(x'C328' AS TEXT)").get() == [0xC3, 0x28])
        try await db.remove(collation: byLength).get()
        #expect(await sqliteError(db.query(String.self, "SELECT word FROM w ORDER BY word COLLATE by_length"))?.message.contains("no such collation") == true)
        #expect(await sqliteError(db.add(collation: SQLiteCollation("") { $0 < $1 }))?.code == .invalidArgument)
        #expect(await sqliteError(db.add(collation: SQLiteCollation(String(repeating: "c", count: 256)) { $0 < $1 }))?.code == .invalidArgument)
        try await db.close().get()
    }

    @Test func aCollationThatIsNoOrderDoesNotCrash() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await SQLiteDatabase.open(path: dir("c.sqlite")).get()
        // Random answers: neither consistent, nor transitive, nor irreflexive.
        try await db.add(collation: SQLiteCollation("chaos") { _, _ in Bool.random() }).get()
        try await db.execute("CREATE TABLE t(s TEXT)").get()
        try await db.transaction { db in
            for index in 0..<2_000 { try db.execute("INSERT INTO t VALUES (?)", ["v\(index % 500)"]) }
        }.get()
        let sorted = try await db.query(String.self, "SELECT s FROM t ORDER BY s COLLATE chaos").get()
        #expect(sorted.count == 2_000)
        #expect(Set(sorted).count == 500)
        _ = try await db.query(String.self, "SELECT DISTINCT s COLLATE chaos FROM t").get()
        // An index built with it may not find its rows; SQLite says so rather than crashing.
        var indexed = true
        do { try await db.execute("CREATE INDEX byChaos ON t(s COLLATE chaos)").get() } catch { indexed = false }
        if indexed {
            let check = try await db.query(String.self, "PRAGMA integrity_check").get()
            #expect(!check.isEmpty)
            #expect(try await db.scalar(Int.self, "SELECT count(*) FROM t").get() == 2_000)
        }
        try await db.close().get()
    }
}
