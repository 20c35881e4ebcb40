import FoundationEssentials
import PromiseSQLite
import Testing

@Suite struct BindingTests {
    /// Binds `value` both ways (in an array literal, and as a `binding:` argument), reads it
    /// back as `T` and as the stored value, through a real table.
    private func roundTrip<T: SQLiteValueConvertible & Equatable & Decodable>(
        _ value: T, storedAs expected: SQLiteValue, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        try await db.execute("CREATE TABLE t(way, v)").get()
        try await db.execute("INSERT INTO t(way, v) VALUES (1, ?)", [value]).get()
        try await db.execute("INSERT INTO t(way, v) VALUES (?, ?)", binding: 2, value).get()
        for way in 1...2 {
            let stored = try await db.queryFirst("SELECT v FROM t WHERE way = ?", binding: way).get()
            #expect(stored?[0] == expected, "way \(way)", sourceLocation: sourceLocation)
            let back = try await db.scalar(T.self, "SELECT v FROM t WHERE way = ?", binding: way).get()
            #expect(back == value, "way \(way)", sourceLocation: sourceLocation)
            let decoded = try await db.query(T.self, "SELECT v FROM t WHERE way = ?", binding: way).get()
            #expect(decoded == [value], "way \(way)", sourceLocation: sourceLocation)
        }
    }

    @Test func integersRoundTripIncludingInt64Extremes() async throws {
        try await roundTrip(Int64.max, storedAs: .integer(.max))
        try await roundTrip(Int64.min, storedAs: .integer(.min))
        try await roundTrip(Int.max, storedAs: .integer(.max))
        try await roundTrip(-1 as Int32, storedAs: .integer(-1))
        try await roundTrip(Int8.min, storedAs: .integer(-128))
        try await roundTrip(UInt32.max, storedAs: .integer(4_294_967_295))
        try await roundTrip(UInt8.max, storedAs: .integer(255))
    }

    @Test func doublesRoundTripIncludingInfinitiesAndSignedZero() async throws {
        try await roundTrip(3.25, storedAs: .real(3.25))
        try await roundTrip(Double.infinity, storedAs: .real(.infinity))
        try await roundTrip(-Double.infinity, storedAs: .real(-.infinity))
        try await roundTrip(Double.leastNonzeroMagnitude, storedAs: .real(.leastNonzeroMagnitude))
        try await roundTrip(Double.greatestFiniteMagnitude, storedAs: .real(.greatestFiniteMagnitude))
        try await roundTrip(Float(1.5), storedAs: .real(1.5))
    }

    @Test func nanIsRefusedBecauseSQLiteWouldStoreNull() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        try await db.execute("CREATE TABLE t(v)").get()
        let error = await sqliteError(db.execute("INSERT INTO t(v) VALUES (?)", [Double.nan]))
        #expect(error?.code == .invalidBinding)
        #expect(error?.message.contains("NaN") == true)
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM t").get() == 0, "nothing may be written")
    }

    @Test func textKeepsNULBytesAndNonASCII() async throws {
        try await roundTrip("a\u{0}b\u{0}", storedAs: .text("a\u{0}b\u{0}"))
        try await roundTrip("żółć 🚀 \u{10FFFF}", storedAs: .text("żółć 🚀 \u{10FFFF}"))
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        #expect(try await db.scalar(Int.self, "SELECT length(CAST(? AS BLOB))", ["a\u{0}b"]).get() == 3)
    }

    @Test func emptyTextAndEmptyBlobAreNotNull() async throws {
        try await roundTrip("", storedAs: .text(""))
        try await roundTrip([UInt8](), storedAs: .blob([]))
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        #expect(try await db.scalar(String.self, "SELECT typeof(?)", [""]).get() == "text")
        #expect(try await db.scalar(String.self, "SELECT typeof(?)", [[UInt8]()]).get() == "blob")
    }

    @Test func blobsAndDataKeepEveryByte() async throws {
        let bytes: [UInt8] = [0, 255, 0, 1, 0x7f, 0x80, 0]
        try await roundTrip(bytes, storedAs: .blob(bytes))
        try await roundTrip(Data(bytes), storedAs: .blob(bytes))
        let large = [UInt8]((0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try await roundTrip(large, storedAs: .blob(large))
    }

    @Test func boolsAreStoredAsZeroAndOne() async throws {
        try await roundTrip(true, storedAs: .integer(1))
        try await roundTrip(false, storedAs: .integer(0))
    }

    @Test func nilAndOptionalsBindNull() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        let none: Int? = nil
        let some: String? = "x"
        let row = try await db.queryFirst("SELECT ?, ?, ?", [nil, none, some]).get()
        #expect(row?.values == [.null, .null, .text("x")])
        #expect(try row?.get(0, as: Int?.self) == .some(nil))
        #expect(try row?.get(2, as: String?.self) == "x")
        #expect(try await db.scalar(Int.self, "SELECT NULL").get() == nil)
    }

    @Test func namedParametersBindWithAnyPrefixOrNone() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        let row = try await db.queryFirst("SELECT :a, @b, $c, :a", ["a": 1, "@b": "two", "c": 3.5]).get()
        #expect(row?.values == [.integer(1), .text("two"), .real(3.5), .integer(1)])
    }

    @Test func aMissingNamedValueIsAnErrorNotNull() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        let error = await sqliteError(db.queryFirst("SELECT :a, :b", ["a": 1]))
        #expect(error?.code == .invalidBinding)
        #expect(error?.message == "no value was given for parameter :b")
        let unknown = await sqliteError(db.queryFirst("SELECT :a", ["a": 1, "zzz": 2]))
        #expect(unknown?.message == "the statement has no parameter named 'zzz'")
    }

    @Test func aNameWithANulByteIsRefusedNotCutShort() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        let error = await sqliteError(db.queryFirst("SELECT :a", [":a\u{0}x": 1]))
        #expect(error?.code == .invalidBinding)
        #expect(error?.message == "the parameter name ':a\\0x' contains a NUL byte; no parameter can be named so")
    }

    @Test func aParameterGivenTwiceIsRefusedNotOverwritten() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        try await db.execute("CREATE TABLE t(v)").get()
        let twice = await sqliteError(db.execute("INSERT INTO t(v) VALUES (:a)", SQLiteBindings(dictionaryLiteral: (":a", 1), (":a", 2))))
        #expect(twice?.code == .invalidBinding)
        #expect(twice?.message == "':a' is given twice; give each parameter one value")
        let spelledTwoWays = await sqliteError(db.execute("INSERT INTO t(v) VALUES (:a)", ["a": 1, ":a": 2]))
        #expect(spelledTwoWays?.message == "'a' and ':a' name the same parameter; give each parameter one value")
        let rows = try await db.query("SELECT v FROM t").get()
        #expect(rows.isEmpty, "a refused binding inserts nothing")
    }

    @Test func aWrongPositionalCountIsAnError() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        let tooFew = await sqliteError(db.queryFirst("SELECT ?, ?", [1]))
        #expect(tooFew?.code == .invalidBinding)
        #expect(tooFew?.message == "the statement has 2 parameters but 1 value was given")
        let tooMany = await sqliteError(db.execute("SELECT 1", [1]))
        #expect(tooMany?.message == "the statement has 0 parameters but 1 value was given")
    }

    @Test func valuesAreBoundNeverSplicedIntoSQL() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        try await db.execute("CREATE TABLE users(name TEXT)").get()
        let hostile = "x'); DROP TABLE users; --"
        try await db.execute("INSERT INTO users(name) VALUES (?)", [hostile]).get()
        #expect(try await db.scalar(String.self, "SELECT name FROM users").get() == hostile)
    }

    @Test func strictReadsRefuseLossyConversions() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        let row = try #require(try await db.queryFirst("SELECT 'abc' AS name, 300 AS small, 2.5 AS real, -1 AS negative").get())
        #expect(throws: SQLiteError.self) { try row.get("name", as: Int.self) }
        #expect(throws: SQLiteError.self) { try row.get("small", as: UInt8.self) }
        #expect(throws: SQLiteError.self) { try row.get("real", as: Int.self) }
        #expect(try row.get("small", as: Double.self) == 300)
        do {
            _ = try row.get("small", as: Int8.self)
            Issue.record("300 must not read as Int8")
        } catch {
            #expect(error.code == .mismatch)
            #expect(error.message == "column 'small' (1) holds integer, which does not convert to Int8")
        }
        let missing = #expect(throws: SQLiteError.self) { try row.get("nope", as: Int.self) }
        #expect(missing?.message == "no column named 'nope'; the columns are name, small, real, negative")
        #expect(row["NAME"] == .text("abc"), "names are case-insensitive as in SQL")
    }

    @Test func bindingsBuiltFromArraysAndDictionaries() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        let values: [SQLiteValue] = [.integer(1), .text("x"), .null, .blob([0]), .real(0.5)]
        #expect(try await db.queryFirst("SELECT ?, ?, ?, ?, ?", SQLiteBindings(values)).get()?.values == values)
        let mixed: [(any SQLiteValueConvertible)?] = [7, nil, "y"]
        #expect(try await db.queryFirst("SELECT ?, ?, ?", SQLiteBindings(mixed)).get()?.values == [.integer(7), .null, .text("y")])
        let named = SQLiteBindings(named: ["a": 1, "b": nil])
        #expect(named.count == 2)
        #expect(try await db.queryFirst("SELECT :a, :b", named).get()?.values == [.integer(1), .null])
        #expect(SQLiteBindings.none.count == 0)
    }
}
