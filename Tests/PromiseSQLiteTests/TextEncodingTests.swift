import FoundationEssentials
import PromiseSQLite
import Testing

/// TEXT whose bytes are not UTF-8: SQLite stores what a writer gave it, so a reader meets it.
@Suite struct TextEncodingTests {
    /// `C3 28 FF 41`: a lead byte without its continuation, a byte that never occurs in UTF-8,
    /// then `A`.
    private static let badBytes: [UInt8] = [0xC3, 0x28, 0xFF, 0x41]

    private func databaseHoldingBadText() async throws -> SQLiteDatabase {
        let db = SQLiteDatabase.inMemory()
        try await db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)").get()
        try await db.execute("INSERT INTO t(id, v) VALUES (1, CAST(X'C328FF41' AS TEXT))").get()
        #expect(try await db.scalar(String.self, "SELECT typeof(v) FROM t").get() == "text")
        return db
    }

    @Test func readingInvalidUTF8AsAStringFailsAndNamesTheColumn() async throws {
        let db = try await databaseHoldingBadText()
        defer { db.close() }

        let scalar = await sqliteError(db.scalar(String.self, "SELECT v FROM t"))
        #expect(scalar?.code == .invalidUTF8)
        #expect(scalar?.message.contains("column 'v' (0) holds text that is not valid UTF-8 (4 bytes)") == true)
        #expect(scalar?.message.contains("[UInt8]") == true, "the message says how to get the bytes")

        let row = try #require(try await db.queryFirst("SELECT id, v FROM t").get())
        let fromRow = #expect(throws: SQLiteError.self) { try row.get("v", as: String.self) }
        #expect(fromRow?.code == .invalidUTF8)
        #expect(throws: SQLiteError.self) { try row.get(1, as: String?.self) }

        struct Item: Decodable { var id: Int; var v: String }
        do {
            let items = try await db.query(Item.self, "SELECT id, v FROM t").get()
            Issue.record("decoded \(items) with bytes replaced")
        } catch let error as SQLiteError {
            #expect(error.code == .invalidUTF8)
            guard case .dataCorrupted(let context)? = error.underlying as? DecodingError else { throw error }
            #expect(context.debugDescription.contains("not valid UTF-8"))
            #expect(context.codingPath.map(\.stringValue) == ["v"])
        }
    }

    @Test func theBytesStayReachableExactlyAsStored() async throws {
        let db = try await databaseHoldingBadText()
        defer { db.close() }

        let row = try #require(try await db.queryFirst("SELECT v FROM t").get())
        #expect(row[0] == .invalidText(Self.badBytes))
        #expect(row[0].storageClass == "text")
        #expect(try row.get(0, as: [UInt8].self) == Self.badBytes)
        #expect(try await db.scalar([UInt8].self, "SELECT v FROM t").get() == Self.badBytes)
        #expect(try await db.scalar(Data.self, "SELECT v FROM t").get() == Data(Self.badBytes))
        struct Raw: Decodable { var v: [UInt8] }
        #expect(try await db.query(Raw.self, "SELECT v FROM t").get().map(\.v) == [Self.badBytes])

        // Valid text reads as its UTF-8 bytes too.
        #expect(try await db.scalar([UInt8].self, "SELECT 'żó'").get() == Array("żó".utf8))
    }

    @Test func writingTheValueBackStoresTheSameBytesAsText() async throws {
        let db = try await databaseHoldingBadText()
        defer { db.close() }

        let value = try #require(try await db.queryFirst("SELECT v FROM t").get())[0]
        try await db.execute("INSERT INTO t(id, v) VALUES (2, ?)", [value]).get()
        let copy = try #require(try await db.queryFirst("SELECT typeof(v), hex(v), v = (SELECT v FROM t WHERE id = 1) FROM t WHERE id = 2").get())
        #expect(copy.values == [.text("text"), .text("C328FF41"), .integer(1)])

        // The description is an SQL expression that gives the same value.
        #expect(value.description == "CAST(X'C328FF41' AS TEXT)")
        let again = try #require(try await db.queryFirst("SELECT \(value.description)").get())
        #expect(again[0] == value)
    }
}
