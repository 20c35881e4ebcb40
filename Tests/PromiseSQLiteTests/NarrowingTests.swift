import PromiseSQLite
import Testing

/// Hostile values on the way out: a narrowing that would change the value throws an error a
/// caller can match, naming the column and the statement, whichever way the row is read.
@Suite struct NarrowingTests {
    /// A database file in its own directory holding `REAL` values at and past `Float`'s range.
    private func database(_ dir: TemporaryDirectory) async throws -> SQLiteDatabase {
        let db = try await SQLiteDatabase.open(path: dir("db.sqlite")).get()
        try await db.executeScript(
            """
            CREATE TABLE r(label TEXT, v REAL);
            INSERT INTO r VALUES ('huge', 1e300), ('tiny', -1e300), ('fits', 1.5),
                                 ('top', 3.4028234663852886e38), ('inf', 9e999), ('-inf', -9e999);
            """
        ).get()
        return db
    }

    /// `1e300` is not a `Float`: `scalar`, a row's `get` and `Decodable` all reject with
    /// `mismatch` instead of reading `+inf`. A stored infinity still reads as one.
    @Test func aRealBeyondFloatRangeDoesNotReadAsInfinity() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await database(dir)
        defer { db.close() }
        struct Row: Decodable, Sendable { let v: Float }

        for label in ["huge", "tiny"] {
            let sql = "SELECT v FROM r WHERE label = '\(label)'"
            let scalar = await #expect(throws: SQLiteError.self) { try await db.scalar(Float.self, sql).get() }
            #expect(scalar?.code == .mismatch)
            #expect(scalar?.sql == sql)
            #expect(scalar?.message == "column 'v' (0) holds real, which does not convert to Float")

            let row = try #require(try await db.queryFirst(sql).get())
            let fromRow = #expect(throws: SQLiteError.self) { try row.get("v", as: Float.self) }
            #expect(fromRow?.code == .mismatch)

            let decoded = await #expect(throws: SQLiteError.self) { try await db.query(Row.self, sql).get() }
            #expect(decoded?.code == .mismatch)
            #expect(decoded?.sql == sql)
            #expect(decoded?.message.contains("column 'v'") == true, "\(String(describing: decoded))")
        }
        #expect(try await db.scalar(Float.self, "SELECT v FROM r WHERE label = 'fits'").get() == 1.5)
        #expect(try await db.scalar(Float.self, "SELECT v FROM r WHERE label = 'top'").get() == .greatestFiniteMagnitude)
        #expect(try await db.scalar(Float.self, "SELECT v FROM r WHERE label = 'inf'").get() == .infinity)
        #expect(try await db.scalar(Float.self, "SELECT v FROM r WHERE label = '-inf'").get() == -.infinity)
        #expect(try await db.query(Row.self, "SELECT v FROM r WHERE label = 'inf'").get().map(\.v) == [.infinity])
    }

    /// `Float` is the one lossy reading, for integers too: one past 2^53, which no `Double`
    /// holds exactly, and `Int64`'s extremes read rounded to the nearest float through
    /// `scalar`, a row's `get` and `Decodable` alike.
    @Test func anIntegerReadsAsTheNearestFloat() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        struct Row: Decodable, Sendable { let v: Float }
        for integer in [Int64(9_007_199_254_740_993), .max, .min, -9_007_199_254_740_993] {
            let sql = "SELECT \(integer) AS v"
            #expect(try await db.scalar(Float.self, sql).get() == Float(integer))
            let row = try #require(try await db.queryFirst(sql).get())
            #expect(try row.get("v", as: Float.self) == Float(integer))
            #expect(try await db.query(Row.self, sql).get().map(\.v) == [Float(integer)])
        }
    }

    /// A row that does not decode rejects with an ``SQLiteError`` matchable by code in a
    /// `catch`, naming the column, the type and the statement, with the `DecodingError` under it.
    @Test func aRowThatDoesNotDecodeIsAnSQLiteErrorNamingTheColumnAndTheStatement() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await database(dir)
        defer { db.close() }
        struct Wrong: Decodable, Sendable { let label: Int }
        let sql = "SELECT label FROM r WHERE label = 'fits'"
        do {
            _ = try await db.query(Wrong.self, sql).get()
            Issue.record("text must not decode as Int")
        } catch SQLiteError.Code.mismatch {
            // Matched by code, as every other PromiseSQLite error.
        }
        let error = await #expect(throws: SQLiteError.self) { try await db.queryFirst(Wrong.self, sql).get() }
        #expect(error?.code == .mismatch)
        #expect(error?.sql == sql)
        #expect(
            error?.message
                == "a row does not decode to Wrong at column 'label': column 'label' (0) holds text, which does not convert to Int")
        guard case .typeMismatch(let type, _)? = error?.underlying as? DecodingError else {
            Issue.record("the DecodingError is the underlying error: \(String(describing: error?.underlying))")
            return
        }
        #expect(ObjectIdentifier(type) == ObjectIdentifier(Int.self))

        struct Missing: Decodable, Sendable { let nickname: String }
        let missing = await #expect(throws: SQLiteError.self) { try await db.query(Missing.self, "SELECT label FROM r").get() }
        #expect(missing?.code == .range)
        #expect(missing?.message.contains("'nickname'") == true, "\(String(describing: missing))")

        // A row read with queryFirst and decoded later names the column too.
        let row = try #require(try await db.queryFirst(sql).get())
        let fromRow = #expect(throws: SQLiteError.self) { try row.decode(Wrong.self) }
        #expect(fromRow?.code == .mismatch)
        #expect(fromRow?.message.contains("column 'label'") == true)
    }

    /// A keyed property reads a column as ``SQLiteRow/get(_:as:)`` reads it, whatever the
    /// storage class: the same value, or an error with the same code and message. Keyed reads
    /// try a number or valid text first and convert the rest the slow way, so this covers both
    /// ways, for a live statement and for a row decoded later.
    @Test func aKeyedPropertyReadsEveryStorageClassAsGetDoes() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await SQLiteDatabase.open(path: dir("db.sqlite")).get()
        defer { db.close() }
        let expressions = [
            "NULL", "0", "1", "2", "-1", "255", "300", "-129", "40000", "3000000000", "-3000000000",
            "9223372036854775807", "-9223372036854775808", "1.5", "2.0", "-0.0", "1e300", "9e999",
            "'text'", "'12'", "''", "x'FF'", "x''", "CAST(x'FF' AS TEXT)", "CAST(x'C3A9' AS TEXT)",
        ]
        var compared = 0
        for expression in expressions {
            let sql = "SELECT \(expression) AS v"
            let row = try #require(try await db.queryFirst(sql).get())
            compared += try await compare(Bool.self, sql, row, db)
            compared += try await compare(Int.self, sql, row, db)
            compared += try await compare(Int8.self, sql, row, db)
            compared += try await compare(Int16.self, sql, row, db)
            compared += try await compare(Int32.self, sql, row, db)
            compared += try await compare(Int64.self, sql, row, db)
            compared += try await compare(UInt8.self, sql, row, db)
            compared += try await compare(UInt16.self, sql, row, db)
            compared += try await compare(UInt32.self, sql, row, db)
            compared += try await compare(Double.self, sql, row, db)
            compared += try await compare(Float.self, sql, row, db)
            compared += try await compare(String.self, sql, row, db)
        }
        #expect(compared == expressions.count * 12 * 2)
    }

    /// One property of type `T`, read from column `v`.
    private struct Property<T: Decodable & Sendable>: Decodable, Sendable {
        let v: T
    }

    /// Compares `T`'s keyed read of `sql`'s column with `row.get(0, as: T.self)`, decoding from
    /// the statement and from `row`; returns how many comparisons were made.
    private func compare<T: SQLiteValueConvertible & Decodable & Equatable>(
        _ type: T.Type, _ sql: String, _ row: SQLiteRow, _ db: SQLiteDatabase
    ) async throws -> Int {
        let expected = Result<T, SQLiteError> { () throws(SQLiteError) in try row.get(0, as: T.self) }
        let fromStatement: Result<T, any Error>
        do {
            fromStatement = .success(try await db.query(Property<T>.self, sql).get()[0].v)
        } catch {
            fromStatement = .failure(error)
        }
        let fromRow = Result<T, any Error> { try row.decode(Property<T>.self).v }
        for (actual, way) in [(fromStatement, "statement"), (fromRow, "row")] {
            switch (expected, actual) {
            case (.success(let value), .success(let read)):
                // SQLite stores no NaN, so equal values compare equal; -0.0 must keep its sign.
                #expect(value == read, "\(sql) as \(T.self) from a \(way)")
                if let double = value as? Double, let readDouble = read as? Double {
                    #expect(double.sign == readDouble.sign, "\(sql) as \(T.self) from a \(way)")
                }
            case (.failure(let error), .failure(let failure)):
                let decoded = failure as? SQLiteError
                #expect(decoded?.code == error.code, "\(sql) as \(T.self) from a \(way): \(failure)")
                #expect(decoded?.message.hasSuffix(error.message) == true, "\(sql) as \(T.self) from a \(way): \(failure)")
            default:
                Issue.record("\(sql) as \(T.self) from a \(way): get gave \(expected), the keyed read \(actual)")
            }
        }
        return 2
    }
}
