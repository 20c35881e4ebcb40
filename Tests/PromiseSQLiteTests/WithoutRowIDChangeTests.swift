@testable import PromiseSQLite
import PromiseTestSupport
import Testing

/// Row changes of `WITHOUT ROWID` tables, named by their primary key, and the rows SQLite's
/// update hook never reported: those `REPLACE` deletes. Each case opens its own database file.
@Suite struct WithoutRowIDChangeTests {
    typealias Change = SQLiteRowChange
    typealias Key = SQLiteRowChange.PrimaryKey

    static func open(_ dir: TemporaryDirectory, _ configuration: SQLiteConfiguration = SQLiteConfiguration()) async throws
        -> SQLiteDatabase
    {
        let db = try await SQLiteDatabase.open(path: dir("w.sqlite"), configuration: configuration).get()
        try await db.executeScript(
            """
            CREATE TABLE stock(shop TEXT, item TEXT, count INTEGER, PRIMARY KEY(item, shop)) WITHOUT ROWID;
            CREATE TABLE notes(x INTEGER);
            CREATE TABLE marker(x INTEGER);
            """
        ).get()
        return db
    }

    /// The changes of the next commit event.
    static func nextCommit(_ iterator: inout SQLiteTransactionEvents.AsyncIterator) async -> [Change]? {
        guard case .committed(let commit) = await iterator.next() else { return nil }
        return commit.changes
    }

    static func stock(_ operation: Change.Operation, item: String, shop: String) -> Change {
        Change(table: "stock", operation: operation, key: .primaryKey(Key(columns: ["item", "shop"], values: [.text(item), .text(shop)])))
    }

    @Test func rowsAreNamedByTheirPrimaryKeyInKeyOrderBesideRowidRows() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        let events = db.transactionEvents()
        var iterator = events.makeAsyncIterator()
        try await db.transaction { db in
            try db.execute("INSERT INTO stock VALUES ('north', 'tea', 1)")
            try db.execute("INSERT INTO notes VALUES (7)")
            try db.execute("UPDATE stock SET count = 2")  // the key stays
            try db.execute("UPDATE stock SET item = 'coffee'")  // the key changes: the new one
            try db.execute("INSERT INTO stock VALUES ('north', 'coffee', 5) ON CONFLICT DO UPDATE SET count = count + 5")
            try db.execute("DELETE FROM stock")  // no WHERE: still row by row, the deleted key
        }.get()
        #expect(
            await Self.nextCommit(&iterator) == [
                Self.stock(.insert, item: "tea", shop: "north"), Change(table: "notes", operation: .insert, rowID: 1),
                Self.stock(.update, item: "tea", shop: "north"), Self.stock(.update, item: "coffee", shop: "north"),
                Self.stock(.update, item: "coffee", shop: "north"), Self.stock(.delete, item: "coffee", shop: "north"),
            ])
        let rowID = Change(table: "notes", operation: .insert, rowID: 1)
        #expect(rowID.rowID == 1 && rowID.key.description == "rowid 1")
        let keyed = Self.stock(.insert, item: "tea", shop: "north")
        #expect(keyed.rowID == nil && keyed.key.description == "(item, shop) = ('tea', 'north')")

        // Every storage class a key can hold, text that is not UTF-8 included, byte for byte.
        try await db.execute("CREATE TABLE kinds(r REAL, b BLOB, i INTEGER, t TEXT, PRIMARY KEY(i, r, b, t)) WITHOUT ROWID").get()
        #expect(await Self.nextCommit(&iterator) == [], "the schema-only commit")
        try await db.execute("INSERT INTO kinds VALUES (2.5, X'00FF', -9223372036854775808, CAST(X'C328' AS TEXT))").get()
        let kinds = Key(columns: ["i", "r", "b", "t"], values: [.integer(.min), .real(2.5), .blob([0, 0xFF]), .invalidText([0xC3, 0x28])])
        let next = await Self.nextCommit(&iterator)
        #expect(next == [Change(table: "kinds", operation: .insert, key: .primaryKey(kinds))])

        // The example of SQLiteRowChange.PrimaryKey's documentation, which finds the row again.
        try await db.execute("INSERT INTO stock VALUES ('north', 'tea', 1)").get()
        try await db.execute("UPDATE stock SET count = 2").get()
        _ = await Self.nextCommit(&iterator)
        let updates = await Self.nextCommit(&iterator) ?? []
        #expect(updates.count == 1)
        for change in updates {
            if case .primaryKey(let key) = change.key {
                let match = key.columns.map { "\"\($0)\" = ?" }.joined(separator: " AND ")
                let count = try await db.scalar(Int.self, "SELECT count FROM stock WHERE " + match, SQLiteBindings(key.values)).get()
                print(change.operation, key, count ?? 0)  // update (item, shop) = ('tea', 'north') 2
                #expect(count == 2 && "\(change.operation) \(key)" == "update (item, shop) = ('tea', 'north')")
            }
        }
        events.cancel()
        try await db.close().get()
    }

    /// `REPLACE` deletes the rows it conflicts with before it inserts: both are reported, for
    /// an ordinary table as for a `WITHOUT ROWID` one, as is a cascade from a foreign key.
    @Test func rowsThatReplaceAndCascadesDeleteAreReported() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        try await db.executeScript(
            """
            CREATE TABLE tags(name TEXT UNIQUE);
            CREATE TABLE lines(item TEXT, shop TEXT, n INTEGER, PRIMARY KEY(item, shop, n),
                FOREIGN KEY(item, shop) REFERENCES stock(item, shop) ON DELETE CASCADE) WITHOUT ROWID;
            INSERT INTO tags VALUES ('a');
            INSERT INTO stock VALUES ('north', 'tea', 1);
            INSERT INTO lines VALUES ('tea', 'north', 1);
            """
        ).get()
        let events = db.transactionEvents(touching: ["tags", "stock", "lines"])
        var iterator = events.makeAsyncIterator()
        try await db.execute("REPLACE INTO tags VALUES ('a')").get()
        #expect(
            await Self.nextCommit(&iterator) == [
                Change(table: "tags", operation: .delete, rowID: 1), Change(table: "tags", operation: .insert, rowID: 2),
            ])
        // The row REPLACE deletes takes its line with it, through the cascade.
        try await db.execute("REPLACE INTO stock VALUES ('north', 'tea', 9)").get()
        let line = Key(columns: ["item", "shop", "n"], values: [.text("tea"), .text("north"), .integer(1)])
        #expect(
            await Self.nextCommit(&iterator) == [
                Self.stock(.delete, item: "tea", shop: "north"), Change(table: "lines", operation: .delete, key: .primaryKey(line)),
                Self.stock(.insert, item: "tea", shop: "north"),
            ])
        try await db.execute("INSERT INTO lines VALUES ('tea', 'north', 1)").get()
        #expect(await Self.nextCommit(&iterator) == [Change(table: "lines", operation: .insert, key: .primaryKey(line))])
        try await db.execute("DELETE FROM stock WHERE item = 'tea'").get()
        #expect(
            await Self.nextCommit(&iterator) == [
                Self.stock(.delete, item: "tea", shop: "north"), Change(table: "lines", operation: .delete, key: .primaryKey(line)),
            ])
        events.cancel()
        try await db.close().get()
    }

    /// A table's key is read again after every statement that changes the schema, so a table
    /// dropped and created again with another key in the same transaction, a column dropped
    /// before its key, and a savepoint rolled back to before either, are all named rightly.
    @Test func aTableWhoseKeyMovesInsideOneTransactionIsReadAgain() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        try await db.executeScript("CREATE TABLE w(a TEXT, b TEXT, c TEXT, PRIMARY KEY(c)) WITHOUT ROWID").get()
        let events = db.transactionEvents(touching: ["w"])
        var iterator = events.makeAsyncIterator()
        func key(_ column: String, _ value: String) -> Change.Key { .primaryKey(Key(columns: [column], values: [.text(value)])) }
        try await db.transaction { db in
            try db.execute("INSERT INTO w VALUES ('a1', 'b1', 'c1')")
            try db.execute("ALTER TABLE w DROP COLUMN a")  // c moves from the third column to the second
            try db.execute("INSERT INTO w VALUES ('b2', 'c2')")
            try db.execute("DROP TABLE w")
            try db.execute("CREATE TABLE w(a TEXT PRIMARY KEY, b TEXT) WITHOUT ROWID")
            try db.execute("INSERT INTO w VALUES ('a3', 'b3')")
            try db.execute("SAVEPOINT s")
            try db.execute("DROP TABLE w")
            try db.execute("CREATE TABLE w(a TEXT, b TEXT PRIMARY KEY) WITHOUT ROWID")
            try db.execute("INSERT INTO w VALUES ('a4', 'b4')")
            try db.execute("ROLLBACK TO s")  // w is keyed by a again
            try db.execute("INSERT INTO w VALUES ('a5', 'b5')")
            try db.execute("DROP TABLE w")
            try db.execute("CREATE TABLE w(a TEXT, b TEXT)")  // an ordinary table now
            try db.execute("INSERT INTO w VALUES ('a6', 'b6')")
        }.get()
        #expect(
            await Self.nextCommit(&iterator) == [
                Change(table: "w", operation: .insert, key: key("c", "c1")), Change(table: "w", operation: .insert, key: key("c", "c2")),
                Change(table: "w", operation: .insert, key: key("a", "a3")), Change(table: "w", operation: .insert, key: key("a", "a5")),
                Change(table: "w", operation: .insert, rowID: 1),
            ])
        events.cancel()
        try await db.close().get()
    }

    /// Another connection changes the table between two transactions: the next transaction
    /// reads the key anew.
    @Test func aTableAnotherConnectionRecreatedIsReadAgain() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        let other = try await SQLiteDatabase.open(path: dir("w.sqlite")).get()
        let events = db.transactionEvents(touching: ["stock"])
        var iterator = events.makeAsyncIterator()
        try await db.execute("INSERT INTO stock VALUES ('north', 'tea', 1)").get()
        #expect(await Self.nextCommit(&iterator) == [Self.stock(.insert, item: "tea", shop: "north")])
        try await other.executeScript("DROP TABLE stock; CREATE TABLE stock(shop TEXT PRIMARY KEY, item TEXT, count INTEGER) WITHOUT ROWID").get()
        try await db.execute("INSERT INTO stock VALUES ('south', 'tea', 1)").get()
        let south = Key(columns: ["shop"], values: [.text("south")])
        #expect(await Self.nextCommit(&iterator) == [Change(table: "stock", operation: .insert, key: .primaryKey(south))])
        try await other.executeScript("DROP TABLE stock; CREATE TABLE stock(shop TEXT PRIMARY KEY, item TEXT, count INTEGER)").get()
        try await db.execute("INSERT INTO stock VALUES ('east', 'tea', 1)").get()
        #expect(await Self.nextCommit(&iterator) == [Change(table: "stock", operation: .insert, rowID: 1)])
        events.cancel()
        try await other.close().get()
        try await db.close().get()
    }

    /// Names that look like a rowid, and one table name in two schemas (`main` and `temp`),
    /// each with its own key.
    @Test func aColumnNamedRowidAndOneNameInTwoSchemasAreToldApart() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        try await db.executeScript(
            """
            CREATE TABLE looks(rowid TEXT PRIMARY KEY, oid TEXT, _rowid_ TEXT) WITHOUT ROWID;
            CREATE TABLE aliased(rowid INTEGER PRIMARY KEY, v TEXT);
            CREATE TABLE twin(k INTEGER PRIMARY KEY, v INTEGER) WITHOUT ROWID;
            CREATE TEMP TABLE twin(v INTEGER PRIMARY KEY, k INTEGER) WITHOUT ROWID;
            """
        ).get()
        let events = db.transactionEvents(touching: ["looks", "aliased", "twin"])
        var iterator = events.makeAsyncIterator()
        try await db.transaction { db in
            try db.execute("INSERT INTO looks VALUES ('r', 'o', 'u')")
            try db.execute("INSERT INTO aliased VALUES (42, 'v')")
            try db.execute("INSERT INTO main.twin VALUES (1, 2)")
            try db.execute("INSERT INTO temp.twin VALUES (3, 4)")
            try db.execute("INSERT INTO main.twin VALUES (5, 6)")
        }.get()
        #expect(
            await Self.nextCommit(&iterator) == [
                Change(table: "looks", operation: .insert, key: .primaryKey(Key(columns: ["rowid"], values: [.text("r")]))),
                Change(table: "aliased", operation: .insert, rowID: 42),
                Change(table: "twin", operation: .insert, key: .primaryKey(Key(columns: ["k"], values: [.integer(1)]))),
                Change(table: "twin", operation: .insert, key: .primaryKey(Key(columns: ["v"], values: [.integer(3)]))),
                Change(table: "twin", operation: .insert, key: .primaryKey(Key(columns: ["k"], values: [.integer(5)]))),
            ])
        events.cancel()
        try await db.close().get()
    }

    /// Extreme keys: 500 columns, and a 1 MiB blob, each copied whole.
    @Test func keysOfManyColumnsAndLargeValuesArriveWhole() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        let columns = (0..<500).map { "c\($0)" }
        try await db.execute(
            "CREATE TABLE wide(\(columns.joined(separator: ", ")), PRIMARY KEY(\(columns.reversed().joined(separator: ", ")))) WITHOUT ROWID"
        ).get()
        try await db.execute("CREATE TABLE big(k BLOB PRIMARY KEY) WITHOUT ROWID").get()
        let events = db.transactionEvents(touching: ["wide", "big"])
        var iterator = events.makeAsyncIterator()
        let values = (0..<500).map { SQLiteValue.integer(Int64($0) * 1_000_003) }
        try await db.execute("INSERT INTO wide VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))", SQLiteBindings(values)).get()
        #expect(
            await Self.nextCommit(&iterator) == [
                Change(table: "wide", operation: .insert, key: .primaryKey(Key(columns: columns.reversed(), values: values.reversed())))
            ])
        let blob = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try await db.execute("INSERT INTO big VALUES (?)", SQLiteBindings([SQLiteValue.blob(blob)])).get()
        #expect(await Self.nextCommit(&iterator) == [Change(table: "big", operation: .insert, key: .primaryKey(Key(columns: ["k"], values: [.blob(blob)])))])
        events.cancel()
        try await db.close().get()
    }

    /// A pool's writer reports keys as a single connection does, and a statement SQLite undid
    /// reports none of its keys.
    @Test func aPoolsWriterAndAnUndoneStatement() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let pool = try await SQLiteDatabasePool.open(path: dir("p.sqlite"), readers: 2).get()
        try await pool.execute("CREATE TABLE w(k INTEGER PRIMARY KEY, v INTEGER CHECK (v < 10)) WITHOUT ROWID").get()
        let events = pool.transactionEvents(touching: ["w"])
        var iterator = events.makeAsyncIterator()
        try await pool.transaction { db in
            try db.execute("INSERT INTO w VALUES (1, 1), (2, 9)")
            // The second row breaks the CHECK: SQLite undoes the whole statement, row 1 included.
            #expect(throws: SQLiteError.self) { try db.execute("UPDATE w SET v = v + 1") }
            try db.execute("DELETE FROM w WHERE k = 2")
        }.get()
        func key(_ k: Int64) -> Change.Key { .primaryKey(Key(columns: ["k"], values: [.integer(k)])) }
        #expect(
            await Self.nextCommit(&iterator) == [
                Change(table: "w", operation: .insert, key: key(1)), Change(table: "w", operation: .insert, key: key(2)),
                Change(table: "w", operation: .delete, key: key(2)),
            ])
        events.cancel()
        try await pool.close().get()
    }

    /// A query that reads a `WITHOUT ROWID` table is read again after a commit that changes it.
    @Test func anObservedQueryOfAWithoutRowIDTableFollowsItsCommits() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        let counts = SQLiteValueObservation.query(Int.self, "SELECT count FROM stock ORDER BY item")
        var iterator = counts.values(in: db).makeAsyncIterator()
        #expect(try await iterator.next() == [])
        try await db.execute("INSERT INTO stock VALUES ('north', 'tea', 3)").get()
        #expect(try await iterator.next() == [3])
        try await db.execute("UPDATE stock SET count = 4").get()
        #expect(try await iterator.next() == [4])
        try await db.close().get()
    }

    /// Where SQLite has no pre-update hook, the update hook reports ordinary tables alone:
    /// `WITHOUT ROWID` tables and the rows `REPLACE` deletes go unseen, and a `DELETE` without
    /// `WHERE` is still seen row by row.
    @Test func withTheUpdateHookAloneWithoutRowIDTablesAreNotSeen() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        var configuration = SQLiteConfiguration()
        configuration.rowChangesThroughUpdateHookOnly = true
        let db = try await Self.open(dir, configuration)
        try await db.executeScript("CREATE TABLE tags(name TEXT UNIQUE); INSERT INTO tags VALUES ('a'), ('b')").get()
        let events = db.transactionEvents()
        var iterator = events.makeAsyncIterator()
        let commits = db.commits()
        var commitIterator = commits.makeAsyncIterator()
        try await db.execute("INSERT INTO stock VALUES ('north', 'tea', 1)").get()
        try await db.execute("INSERT INTO marker VALUES (1)").get()
        #expect(await Self.nextCommit(&iterator) == [Change(table: "marker", operation: .insert, rowID: 1)])
        #expect(await commitIterator.next()?.tables == ["marker"])
        try await db.execute("REPLACE INTO tags VALUES ('a')").get()
        #expect(await Self.nextCommit(&iterator) == [Change(table: "tags", operation: .insert, rowID: 3)])
        try await db.execute("DELETE FROM tags").get()
        #expect(
            await Self.nextCommit(&iterator) == [
                Change(table: "tags", operation: .delete, rowID: 2), Change(table: "tags", operation: .delete, rowID: 3),
            ])
        events.cancel()
        commits.cancel()
        try await db.close().get()
    }
}
