import Dispatch
import Foundation
import Glibc
import PromiseSQLite
import PromiseTestSupport
import Synchronization
import Testing

/// Swift scalar functions in SQL (`SQLiteFunction`, `SQLiteDatabase+Functions.swift`), on
/// database files.
@Suite struct FunctionTests {
    struct Refused: Error, CustomStringConvertible {
        var description: String { "refused on purpose" }
    }

    @Test func fixedAndVariadicFunctionsReturnEveryStorageClass() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await SQLiteDatabase.open(path: dir("f.sqlite")).get()
        try await db.add(
            function: SQLiteFunction("twice", argumentCount: 1) { arguments in
                (Int.fromSQLiteValue(arguments[0]) ?? 0) * 2
            }
        ).get()
        try await db.add(function: SQLiteFunction("arity") { arguments in arguments.count }).get()
        try await db.add(function: SQLiteFunction("echo", argumentCount: 1) { arguments in arguments[0] }).get()
        try await db.add(function: SQLiteFunction("nada", argumentCount: 0) { _ in nil }).get()

        #expect(try await db.scalar(Int.self, "SELECT twice(21)").get() == 42)
        #expect(try await db.scalar(Int.self, "SELECT arity()").get() == 0)
        #expect(try await db.scalar(Int.self, "SELECT arity(1, 'a', NULL, x'00', 2.5)").get() == 5)
        #expect(try await db.scalar(Int.self, "SELECT nada() IS NULL").get() == 1)
        let values: [SQLiteValue] = [
            .null, .integer(.min), .integer(.max), .real(-0.5), .real(.infinity), .text(""), .text("a\u{0}b é"),
            .invalidText([0xC3, 0x28]), .blob([]), .blob([0, 1, 255]),
        ]
        for value in values {
            let row = try await db.queryFirst("SELECT echo(?) AS v, typeof(echo(?)) AS t", [value, value]).get()
            #expect(row?["v"] == value, "echo(\(value))")
            #expect(row?[1] == .text(value.storageClass))
        }
        try await db.close().get()
    }

    /// Columns, function arguments and aggregate steps read SQLite's values through one
    /// conversion (`SQLiteValue(copying:)`): no other file of PromiseSQLite reads a value's
    /// type, so the three cannot disagree. `echo` above round-trips every storage class
    /// through both directions.
    /// The files of Sources/PromiseSQLite (relative paths, sorted) with a line of code, comments
    /// left out, that `matches`.
    static func sourceFiles(where matches: (Substring) -> Bool) throws -> [String] {
        let sources = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/PromiseSQLite")
        let files = try #require(FileManager.default.enumerator(atPath: sources.path))
        var found: [String] = []
        var scanned = 0
        for case let file as String in files where file.hasSuffix(".swift") {
            scanned += 1
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            let code = text.split(separator: "\n").map { $0.split(separator: "//", omittingEmptySubsequences: false)[0] }
            if code.contains(where: matches) { found.append(file) }
        }
        #expect(scanned > 30, "the scan found too few files under \(sources.path): \(scanned)")
        return found.sorted()
    }

    @Test func oneConversionReadsEverySQLiteValue() throws {
        let readers = try Self.sourceFiles { line in
            line.contains("sqlite3_value_type(") || line.contains("sqlite3_column_type(") && !line.contains("SQLITE_NULL")
        }
        #expect(readers == ["Internal/SQLiteValue+Copying.swift"])
    }

    /// SQLite keeps one authorizer per connection: a second caller of `sqlite3_set_authorizer`
    /// would silently replace the rules of the first (a migration used to turn off what change
    /// observation needs).
    @Test func everyAuthorizerRuleGoesThroughTheConnectionsOneAuthorizer() throws {
        let installers = try Self.sourceFiles { $0.contains("sqlite3_set_authorizer(") }
        #expect(installers == ["Internal/ConnectionAuthorizer.swift"])
    }

    @Test func argumentsAClosureKeepsStayAsTheyWere() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await SQLiteDatabase.open(path: dir("f.sqlite")).get()
        final class Kept: Sendable { let calls = Mutex<[[SQLiteValue]]>([]) }
        let kept = Kept()
        try await db.add(
            function: SQLiteFunction("keep") { arguments in
                kept.calls.withLock { $0.append(arguments) }
                return arguments.count
            }
        ).get()
        try await db.executeScript("CREATE TABLE t(x INTEGER); INSERT INTO t VALUES (1), (2), (3)").get()
        #expect(try await db.query(Int.self, "SELECT keep(x) + keep(x, 'a', x) FROM t ORDER BY x").get() == [4, 4, 4])
        let calls = kept.calls.withLock { $0 }
        #expect(calls.count == 6)
        #expect(
            Set(calls) == [
                [.integer(1)], [.integer(2)], [.integer(3)], [.integer(1), .text("a"), .integer(1)], [.integer(2), .text("a"), .integer(2)],
                [.integer(3), .text("a"), .integer(3)],
            ])
        try await db.close().get()
    }

    @Test func aThrownErrorFailsTheStatementNamingTheFunctionAndTheSQL() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await SQLiteDatabase.open(path: dir("f.sqlite")).get()
        try await db.executeScript("CREATE TABLE t(x INTEGER); INSERT INTO t VALUES (1), (2), (3)").get()
        try await db.add(
            function: SQLiteFunction("picky", argumentCount: 1) { arguments in
                if arguments[0] == .integer(2) { throw Refused() }
                return arguments[0]
            }
        ).get()
        let sql = "SELECT picky(x) FROM t ORDER BY x"
        let error = try #require(await sqliteError(db.query(Int.self, sql)))
        #expect(error.code == .error)
        #expect(error.message == "picky(): refused on purpose")
        #expect(error.sql == sql)
        #expect(error.description.contains("picky(): refused on purpose"))
        #expect(error.underlying is Refused, "the thrown error is kept")

        // An SQLiteError keeps its SQLite code; the connection stays usable.
        try await db.add(
            function: SQLiteFunction("guard", argumentCount: 1) { _ in
                throw SQLiteError(.constraintCheck, message: "not allowed")
            }
        ).get()
        let constraint = try #require(await sqliteError(db.execute("INSERT INTO t VALUES (guard(4))")))
        #expect(SQLiteError.Code.constraint.matches(constraint.code))
        #expect(constraint.message == "guard(): not allowed")
        #expect((constraint.underlying as? SQLiteError)?.code == .constraintCheck)
        // Errors that did not come from a function carry none.
        #expect(await sqliteError(db.execute("INSERT INTO nowhere VALUES (1)"))?.underlying == nil)
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM t").get() == 3)
        try await db.close().get()
    }

    @Test func aHugeResultFailsWithTooBigAndAMillionByteOneArrives() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await SQLiteDatabase.open(path: dir("f.sqlite")).get()
        try await db.add(
            function: SQLiteFunction("bytes", argumentCount: 1) { arguments in
                [UInt8](repeating: 7, count: Int.fromSQLiteValue(arguments[0]) ?? 0)
            }
        ).get()
        try await db.add(
            function: SQLiteFunction("letters", argumentCount: 1) { arguments in
                String(repeating: "x", count: Int.fromSQLiteValue(arguments[0]) ?? 0)
            }
        ).get()
        #expect(try await db.scalar(Int.self, "SELECT length(bytes(1000000))").get() == 1_000_000)
        #expect(try await db.scalar(Int.self, "SELECT length(letters(1000000))").get() == 1_000_000)
        // SQLITE_LIMIT_LENGTH is 1 000 000 000 bytes: one more is refused, not truncated.
        let blob = try #require(await sqliteError(db.scalar(Int.self, "SELECT length(bytes(1000000001))")))
        #expect(blob.code == .tooBig)
        #expect(try await db.scalar(Int.self, "SELECT length(letters(3))").get() == 3)
        try await db.close().get()
    }

    @Test func wrongArityAndUnknownNamesFailToPrepare() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await SQLiteDatabase.open(path: dir("f.sqlite")).get()
        let one = SQLiteFunction("one", argumentCount: 1) { $0[0] }
        try await db.add(function: one).get()
        let wrong = try #require(await sqliteError(db.scalar(Int.self, "SELECT one(1, 2)")))
        #expect(wrong.code == .error)
        #expect(wrong.message.contains("wrong number of arguments"))
        // A second arity of the same name coexists.
        try await db.add(function: SQLiteFunction("one", argumentCount: 2) { _ in "two" }).get()
        #expect(try await db.scalar(String.self, "SELECT one(1, 2)").get() == "two")
        #expect(try await db.scalar(Int.self, "SELECT one(1)").get() == 1)
        try await db.remove(function: one).get()
        let gone = try #require(await sqliteError(db.scalar(Int.self, "SELECT one(1)")))
        #expect(gone.message.contains("wrong number of arguments") || gone.message.contains("no such function"))
        #expect(try await db.scalar(String.self, "SELECT one(1, 2)").get() == "two")
        try await db.close().get()
    }

    @Test func namesAndArgumentCountsSQLiteCannotTakeAreRefused() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await SQLiteDatabase.open(path: dir("f.sqlite")).get()
        let longest = String(repeating: "n", count: 255)
        try await db.add(function: SQLiteFunction(longest, argumentCount: 0) { _ in 1 }).get()
        #expect(try await db.scalar(Int.self, "SELECT \(longest)()").get() == 1)
        let refused: [(SQLiteFunction, String)] = [
            (SQLiteFunction(longest + "n", argumentCount: 0) { _ in 1 }, "256 bytes long"),
            (SQLiteFunction(String(repeating: "é", count: 128)) { _ in 1 }, "256 bytes long"),
            (SQLiteFunction("") { _ in 1 }, "empty"),
            (SQLiteFunction("a\u{0}b") { _ in 1 }, "NUL"),
            (SQLiteFunction("many", argumentCount: 128) { _ in 1 }, "128 arguments"),
            (SQLiteFunction("negative", argumentCount: -1) { _ in 1 }, "-1 arguments"),
            (SQLiteFunction("huge", argumentCount: .max) { _ in 1 }, "arguments"),
        ]
        for (function, reason) in refused {
            let error = try #require(await sqliteError(db.add(function: function)))
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains(reason), "\(error.message)")
            #expect(await sqliteError(db.remove(function: function))?.code == .invalidArgument)
        }
        // A name that is not an identifier works when quoted.
        try await db.add(function: SQLiteFunction("two words", argumentCount: 0) { _ in 2 }).get()
        #expect(try await db.scalar(Int.self, "SELECT \"two words\"()").get() == 2)
        try await db.close().get()
    }

    @Test func optionsControlWhereTheSchemaMayCallAFunction() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await SQLiteDatabase.open(path: dir("f.sqlite")).get()
        try await db.add(function: SQLiteFunction("plain", argumentCount: 1) { $0[0] }).get()
        try await db.add(function: SQLiteFunction("pure", argumentCount: 1, options: [.deterministic, .innocuous]) { $0[0] }).get()
        try await db.add(function: SQLiteFunction("direct", argumentCount: 1, options: .directOnly) { $0[0] }).get()
        try await db.executeScript(
            """
            CREATE TABLE t(x INTEGER);
            INSERT INTO t VALUES (1), (2);
            CREATE VIEW vplain AS SELECT plain(x) AS y FROM t;
            CREATE VIEW vpure AS SELECT pure(x) AS y FROM t;
            CREATE VIEW vdirect AS SELECT direct(x) AS y FROM t;
            CREATE INDEX byPure ON t(pure(x));
            """
        ).get()
        // trusted_schema is off: only innocuous functions run from the schema.
        #expect(try await db.query(Int.self, "SELECT y FROM vpure ORDER BY y").get() == [1, 2])
        #expect(await sqliteError(db.query(Int.self, "SELECT y FROM vplain"))?.message.contains("unsafe use of plain()") == true)
        #expect(await sqliteError(db.query(Int.self, "SELECT y FROM vdirect"))?.message.contains("unsafe use of direct()") == true)
        #expect(try await db.scalar(Int.self, "SELECT direct(5)").get() == 5)
        // An index on an expression needs a deterministic function.
        let index = try #require(await sqliteError(db.execute("CREATE INDEX byPlain ON t(plain(x))")))
        #expect(index.message.contains("non-deterministic"))
        try await db.close().get()
    }

    @Test func reRegisteringAndRemovingReleaseTheClosureAndDroppingTheDatabaseToo() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        final class Token: Sendable {}
        weak var first: Token?
        weak var second: Token?
        weak var third: Token?
        var db: SQLiteDatabase? = try await SQLiteDatabase.open(path: dir("f.sqlite")).get()
        do {
            let a = Token(), b = Token(), c = Token()
            first = a
            second = b
            third = c
            try await db!.add(
                function: SQLiteFunction("v", argumentCount: 0) { _ in
                    _ = a; return 1
                }
            ).get()
            try await db!.add(
                function: SQLiteFunction("v", argumentCount: 0) { _ in
                    _ = b; return 2
                }
            ).get()
            try await db!.add(
                function: SQLiteFunction("w", argumentCount: 0) { _ in
                    _ = c; return 3
                }
            ).get()
            try await db!.add(
                collation: SQLiteCollation("keep") { _, _ in
                    _ = c; return false
                }
            ).get()
        }
        #expect(first == nil, "replacing a function releases the old closure")
        #expect(try await db!.scalar(Int.self, "SELECT v()").get() == 2)
        try await db!.remove(function: SQLiteFunction("v", argumentCount: 0) { _ in nil }).get()
        #expect(second == nil, "removing a function releases its closure")
        #expect(third != nil)
        db = nil  // dropped while a function and a collation are registered: closed on its thread
        #expect(try await eventually(.seconds(60)) { third == nil }, "closing releases every closure")
    }

    @Test func registeringFromOtherThreadsWhileAStatementRunsWaitsForIt() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await SQLiteDatabase.open(path: dir("f.sqlite")).get()
        final class Calls: Sendable { let count = Atomic<Int>(0) }
        let calls = Calls()
        let gate = Gate()
        try await db.add(
            function: SQLiteFunction("version", argumentCount: 1) { arguments in
                if calls.count.add(1, ordering: .relaxed).newValue == 1 { gate.wait() }
                return 0
            }
        ).get()
        // Every call of the running statement uses the version it was prepared with.
        let running = db.scalar(Int.self, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000) SELECT sum(version(x)) FROM c")
        #expect(try await eventually(.seconds(60)) { calls.count.load(ordering: .relaxed) >= 1 })
        let added = try await offCooperativePool {
            let promises = Mutex<[Promise<Void>]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                let promise = db.add(function: SQLiteFunction("version", argumentCount: 1) { _ in index + 1 })
                promises.withLock { $0.append(promise) }
            }
            return promises.withLock { $0 }
        }
        #expect(added.count == 8)
        #expect(added.allSatisfy { $0.isPending }, "registrations wait behind the running statement")
        gate.open()
        #expect(try await running.get() == 0)
        for promise in added { try await promise.get() }
        let final = try #require(try await db.scalar(Int.self, "SELECT version(0)").get())
        #expect((1...8).contains(final))
        try await db.close().get()
    }

    @Test func aFunctionThatWaitsForItsOwnDatabaseFailsInsteadOfHanging() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await SQLiteDatabase.open(path: dir("f.sqlite")).get()
        try await db.add(
            function: SQLiteFunction("reentrant", argumentCount: 0) { _ in
                try awaitPromise(db.scalar(Int.self, "SELECT 1"))
            }
        ).get()
        let error = try #require(await sqliteError(db.scalar(Int.self, "SELECT reentrant()")))
        #expect(error.message.hasPrefix("reentrant(): "))
        #expect(error.message.contains("deadlock"), "\(error.message)")
        #expect(try await db.scalar(Int.self, "SELECT 2").get() == 2)
        try await db.close().get()
    }

    @Test func aPoolHasTheFunctionOnEveryConnection() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let pool = try await SQLiteDatabasePool.open(path: dir("p.sqlite"), readers: 3).get()
        try await pool.add(
            function: SQLiteFunction("twice", argumentCount: 1, options: [.deterministic, .innocuous]) { arguments in
                (Int.fromSQLiteValue(arguments[0]) ?? 0) * 2
            }
        ).get()
        try await pool.add(collation: SQLiteCollation("reverse") { $0 > $1 }).get()
        try await pool.execute("CREATE TABLE t(x INTEGER, s TEXT, y INTEGER GENERATED ALWAYS AS (twice(x)))").get()
        try await pool.execute("INSERT INTO t(x, s) VALUES (1, 'a'), (2, 'b')").get()
        for database in [pool.writer] + pool.readers {
            #expect(try await database.query(Int.self, "SELECT twice(x) FROM t ORDER BY s COLLATE reverse").get() == [4, 2])
            #expect(try await database.query(Int.self, "SELECT y FROM t ORDER BY x").get() == [2, 4])
        }
        try await pool.remove(function: SQLiteFunction("twice", argumentCount: 1) { _ in nil }).get()
        for database in [pool.writer] + pool.readers {
            #expect(await sqliteError(database.scalar(Int.self, "SELECT twice(1)"))?.message.contains("no such function") == true)
        }
        try await pool.close().get()
    }

    @Test func registeringOnAClosedOrUnopenedDatabaseIsRefused() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await SQLiteDatabase.open(path: dir("f.sqlite")).get()
        try await db.close().get()
        let function = SQLiteFunction("f", argumentCount: 0) { _ in 1 }
        #expect(await sqliteError(db.add(function: function))?.code == .closed)
        let missing = SQLiteDatabase(path: dir("missing/f.sqlite"))
        #expect(await sqliteError(missing.add(function: function))?.code == .cannotOpen)
        try? await missing.close().get()
    }
}
