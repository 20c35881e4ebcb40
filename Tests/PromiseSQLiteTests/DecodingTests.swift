import FoundationEssentials
import PromiseSQLite
import Testing

private struct User: Codable, Equatable, Sendable {
    enum Role: String, Codable, Sendable { case admin, member }
    let id: Int
    let name: String
    let email: String?
    let score: Double
    let active: Bool
    let role: Role
    let avatar: Data?
}

@Suite struct DecodingTests {
    private func database() async throws -> SQLiteDatabase {
        let db = SQLiteDatabase.inMemory()
        try await db.executeScript(
            """
            CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT, score REAL NOT NULL,
                               active INTEGER NOT NULL, role TEXT NOT NULL, avatar BLOB);
            INSERT INTO users VALUES (1, 'Ada', 'ada@example.com', 9.5, 1, 'admin', X'00FF');
            INSERT INTO users VALUES (2, 'Grace', NULL, 7, 0, 'member', NULL);
            """
        ).get()
        return db
    }

    @Test func rowsDecodeIntoDecodableTypesByColumnName() async throws {
        let db = try await database()
        defer { db.close() }
        let users = try await db.query(User.self, "SELECT * FROM users ORDER BY id").get()
        #expect(
            users == [
                User(id: 1, name: "Ada", email: "ada@example.com", score: 9.5, active: true, role: .admin, avatar: Data([0, 255])),
                User(id: 2, name: "Grace", email: nil, score: 7, active: false, role: .member, avatar: nil),
            ])
        // Column order does not matter, names do.
        let reordered = try await db.queryFirst(User.self, "SELECT avatar, role, active, score, email, name, id FROM users WHERE id = ?", [2]).get()
        #expect(reordered == users[1])
        #expect(try await db.queryFirst(User.self, "SELECT * FROM users WHERE id = 99").get() == nil)
        // A materialized row decodes the same way.
        let row = try #require(try await db.queryFirst("SELECT * FROM users WHERE id = 1").get())
        #expect(try row.decode(User.self) == users[0])
    }

    @Test func singleValuesDecodeFromTheFirstColumn() async throws {
        let db = try await database()
        defer { db.close() }
        #expect(try await db.query(String.self, "SELECT name FROM users ORDER BY id").get() == ["Ada", "Grace"])
        #expect(try await db.query(User.Role.self, "SELECT role FROM users ORDER BY id").get() == [.admin, .member])
        #expect(try await db.query(String?.self, "SELECT email FROM users ORDER BY id").get() == ["ada@example.com", nil])
        #expect(try await db.query(UInt64.self, "SELECT id FROM users ORDER BY id").get() == [1, 2])
    }

    @Test func tuplesOfColumnsDecodeThroughAnUnkeyedContainer() async throws {
        struct Pair: Decodable, Equatable, Sendable {
            let id: Int
            let name: String
            init(from decoder: any Decoder) throws {
                var columns = try decoder.unkeyedContainer()
                id = try columns.decode(Int.self)
                name = try columns.decode(String.self)
            }
            init(id: Int, name: String) { self.id = id; self.name = name }
        }
        let db = try await database()
        defer { db.close() }
        #expect(try await db.query(Pair.self, "SELECT id, name FROM users ORDER BY id").get() == [Pair(id: 1, name: "Ada"), Pair(id: 2, name: "Grace")])
    }

    @Test func mismatchesNameTheColumnAndTheType() async throws {
        let db = try await database()
        defer { db.close() }
        struct Wrong: Decodable, Sendable { let name: Int }
        do {
            _ = try await db.query(Wrong.self, "SELECT name FROM users").get()
            Issue.record("text must not decode as Int")
        } catch let DecodingError.typeMismatch(type, context) {
            #expect(ObjectIdentifier(type) == ObjectIdentifier(Int.self))
            #expect(context.debugDescription == "column 'name' (0) holds text, which does not convert to Int")
            #expect(context.codingPath.map(\.stringValue) == ["name"])
        }
        struct Missing: Decodable, Sendable { let nickname: String }
        do {
            _ = try await db.query(Missing.self, "SELECT id, name FROM users").get()
            Issue.record("a missing column must fail")
        } catch let DecodingError.keyNotFound(key, context) {
            #expect(key.stringValue == "nickname")
            #expect(context.debugDescription == "the result has no column named 'nickname'; its columns are id, name")
        }
        struct NotOptional: Decodable, Sendable { let email: String }
        await #expect(throws: DecodingError.self) { try await db.query(NotOptional.self, "SELECT email FROM users").get() }
        await #expect(throws: DecodingError.self) { try await db.query(User.Role.self, "SELECT 'owner'").get() }
    }
}
