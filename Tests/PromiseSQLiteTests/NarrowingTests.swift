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
}
