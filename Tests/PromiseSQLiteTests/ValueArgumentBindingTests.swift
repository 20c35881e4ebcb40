import PromiseSQLite
import Testing

/// The methods that take their values as `binding:` arguments: every value reaches its
/// parameter in order and unchanged, through every method, and a wrong count or a refused
/// value fails the statement with nothing written.
@Suite struct ValueArgumentBindingTests {
    private struct User: Decodable, Equatable, Sendable {
        let id: Int
        let name: String
        let score: Double?
    }

    private func usersDatabase() async throws -> SQLiteDatabase {
        let db = SQLiteDatabase.inMemory()
        try await db.execute("CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score REAL)").get()
        return db
    }

    @Test func everyValueReachesItsParameterInOrder() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        let none: String? = nil
        let row = try await db.queryFirst(
            "SELECT ?, ?, ?, ?, ?, ?, ?, ?", binding: 1, "two", 3.5, true, [UInt8](arrayLiteral: 0, 255), none, Int64.min, SQLiteValue.text("x")
        ).get()
        #expect(row?.values == [.integer(1), .text("two"), .real(3.5), .integer(1), .blob([0, 255]), .null, .integer(.min), .text("x")])
    }

    @Test func numberedAndNamedParametersTakeValuesByIndex() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        // ?2 appears first but has index 2; :b is index 2 because it is the second name.
        let numbered = try await db.queryFirst("SELECT ?2, ?1", binding: "first", "second").get()
        #expect(numbered?.values == [.text("second"), .text("first")])
        let named = try await db.queryFirst("SELECT :a, :b, :a", binding: 10, 20).get()
        #expect(named?.values == [.integer(10), .integer(20), .integer(10)])
    }

    @Test func everyPromiseMethodBinds() async throws {
        let db = try await usersDatabase()
        defer { db.close() }
        let inserted = try await db.execute("INSERT INTO users(id, name, score) VALUES (?, ?, ?)", binding: 7, "Ada", 9.5).get()
        #expect(inserted.changes == 1 && inserted.lastInsertRowID == 7)
        let noScore: Double? = nil
        try await db.execute("INSERT INTO users(id, name, score) VALUES (?, ?, ?)", binding: 8, "Grace", noScore).get()

        #expect(
            try await db.query("SELECT name FROM users WHERE id >= ? ORDER BY id", binding: 7).get().map { try $0.get(0, as: String.self) } == ["Ada", "Grace"])
        #expect(try await db.query(User.self, "SELECT * FROM users WHERE id = ?", binding: 8).get() == [User(id: 8, name: "Grace", score: nil)])
        #expect(try await db.queryFirst("SELECT name FROM users WHERE id = ?", binding: 7).get()?.get(0, as: String.self) == "Ada")
        #expect(try await db.queryFirst(User.self, "SELECT * FROM users WHERE id = ?", binding: 7).get() == User(id: 7, name: "Ada", score: 9.5))
        #expect(try await db.queryFirst(User.self, "SELECT * FROM users WHERE id = ?", binding: 99).get() == nil)
        #expect(try await db.scalar(String.self, "SELECT name FROM users WHERE id = ? AND score > ?", binding: 7, 9.0).get() == "Ada")
    }

    @Test func everyConnectionMethodBinds() async throws {
        let db = try await usersDatabase()
        defer { db.close() }
        let seen = try await db.transaction { db in
            for id in 1...100 {
                try db.execute("INSERT INTO users(id, name, score) VALUES (?, ?, ?)", binding: id, "user \(id)", Double(id) / 4)
            }
            var names: [String] = []
            try db.forEachRow("SELECT name FROM users WHERE id BETWEEN ? AND ? ORDER BY id", binding: 41, 43) { names.append(try $0.get(0, as: String.self)) }
            return (
                rows: try db.query("SELECT id FROM users WHERE score >= ?", binding: 24.5).count,
                decoded: try db.query(User.self, "SELECT * FROM users WHERE id IN (?, ?) ORDER BY id", binding: 2, 3),
                first: try db.queryFirst("SELECT name FROM users WHERE id = ?", binding: 100)?.get(0, as: String.self),
                firstDecoded: try db.queryFirst(User.self, "SELECT * FROM users WHERE id = ?", binding: 1),
                sum: try db.scalar(Double.self, "SELECT sum(score) FROM users WHERE id <= ?", binding: 4),
                names: names
            )
        }.get()
        #expect(seen.rows == 3)
        #expect(seen.decoded == [User(id: 2, name: "user 2", score: 0.5), User(id: 3, name: "user 3", score: 0.75)])
        #expect(seen.first == "user 100")
        #expect(seen.firstDecoded == User(id: 1, name: "user 1", score: 0.25))
        #expect(seen.sum == 2.5)
        #expect(seen.names == ["user 41", "user 42", "user 43"])
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM users").get() == 100)
    }

    @Test func aWrongCountIsRefusedAndWritesNothing() async throws {
        let db = try await usersDatabase()
        defer { db.close() }
        let tooFew = await sqliteError(db.execute("INSERT INTO users(id, name, score) VALUES (?, ?, ?)", binding: 1, "Ada"))
        #expect(tooFew?.code == .invalidBinding)
        #expect(tooFew?.message == "the statement has 3 parameters but 2 values were given")
        let tooMany = await sqliteError(db.execute("INSERT INTO users(id, name) VALUES (?, ?)", binding: 1, "Ada", 2.5, "extra"))
        #expect(tooMany?.code == .invalidBinding)
        #expect(tooMany?.message == "the statement has 2 parameters but 4 values were given")
        let none = await sqliteError(db.scalar(Int.self, "SELECT 1", binding: 1))
        #expect(none?.message == "the statement has 0 parameters but 1 value was given")
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM users").get() == 0)
        // The statement is cached: the next run binds afresh.
        try await db.execute("INSERT INTO users(id, name, score) VALUES (?, ?, ?)", binding: 1, "Ada", 1.0).get()
        #expect(try await db.scalar(String.self, "SELECT name FROM users").get() == "Ada")
    }

    @Test func nanIsRefusedNamingItsParameter() async throws {
        let db = try await usersDatabase()
        defer { db.close() }
        let error = await sqliteError(db.execute("INSERT INTO users(id, name, score) VALUES (?, ?, ?)", binding: 1, "Ada", Double.nan))
        #expect(error?.code == .invalidBinding)
        #expect(error?.message == "parameter 3 is NaN, which SQLite would store as NULL; bind nil if NULL is meant")
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM users").get() == 0)
    }

    @Test func hostileAndLargeTextIsBoundByteForByte() async throws {
        let db = try await usersDatabase()
        defer { db.close() }
        let hostile = "x'); DROP TABLE users; --\u{0}żółć"
        let large = String(repeating: "é🚀", count: 5_000)
        try await db.execute("INSERT INTO users(id, name) VALUES (?, ?)", binding: 1, hostile).get()
        try await db.execute("INSERT INTO users(id, name) VALUES (?, ?)", binding: 2, large).get()
        #expect(try await db.scalar(String.self, "SELECT name FROM users WHERE id = ?", binding: 1).get() == hostile)
        #expect(try await db.scalar(String.self, "SELECT name FROM users WHERE id = ?", binding: 2).get() == large)
    }
}
