import FoundationEssentials
import PromiseSQLite
import Synchronization
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

/// A coding key as wide as `Raw` (2, 4 or 8 bytes), naming one of three columns.
private struct SizedKey<Raw: FixedWidthInteger & Sendable>: CodingKey {
    let raw: Raw
    var stringValue: String { ["id", "name", "score"][Int(raw)] }
    var intValue: Int? { nil }
    init(_ raw: Raw) { self.raw = raw }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { nil }
}

@Suite struct DecodingTests {
    static let outsideMessage =
        "a row's decoder or container was used after the query's rows were decoded, or on another thread; "
        + "read every value inside init(from:), where they are handed out"

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
        } catch let error as SQLiteError {
            guard case .typeMismatch(let type, let context)? = error.underlying as? DecodingError else { throw error }
            #expect(ObjectIdentifier(type) == ObjectIdentifier(Int.self))
            #expect(context.debugDescription == "column 'name' (0) holds text, which does not convert to Int")
            #expect(context.codingPath.map(\.stringValue) == ["name"])
        }
        struct Missing: Decodable, Sendable { let nickname: String }
        do {
            _ = try await db.query(Missing.self, "SELECT id, name FROM users").get()
            Issue.record("a missing column must fail")
        } catch let error as SQLiteError {
            guard case .keyNotFound(let key, let context)? = error.underlying as? DecodingError else { throw error }
            #expect(key.stringValue == "nickname")
            #expect(context.debugDescription == "the result has no column named 'nickname'; its columns are id, name")
        }
        struct NotOptional: Decodable, Sendable { let email: String }
        await #expect(throws: SQLiteError.self) { try await db.query(NotOptional.self, "SELECT email FROM users").get() }
        await #expect(throws: SQLiteError.self) { try await db.query(User.Role.self, "SELECT 'owner'").get() }
    }

    @Test func optionalPropertiesAreNilForNULLAndForAMissingColumn() async throws {
        struct Loose: Decodable, Equatable, Sendable {
            let id: UInt64?
            let email: String?
            let nickname: String?
            let score: Double?
            let role: User.Role?
            let avatar: [UInt8]?
        }
        let db = try await database()
        defer { db.close() }
        let rows = try await db.query(Loose.self, "SELECT id, email, score, role, avatar FROM users ORDER BY id").get()
        #expect(
            rows == [
                Loose(id: 1, email: "ada@example.com", nickname: nil, score: 9.5, role: .admin, avatar: [0, 255]),
                Loose(id: 2, email: nil, nickname: nil, score: 7, role: .member, avatar: nil),
            ])
        // Present but of the wrong type is an error, not nil.
        struct WrongOptional: Decodable, Sendable { let name: Int? }
        do {
            _ = try await db.query(WrongOptional.self, "SELECT name FROM users").get()
            Issue.record("text must not decode as Int?")
        } catch let error as SQLiteError {
            guard case .typeMismatch(_, let context)? = error.underlying as? DecodingError else { throw error }
            #expect(context.debugDescription == "column 'name' (0) holds text, which does not convert to Int")
        }
    }

    /// Column lookups follow the previous row's keys; a row that asks in another order, or with
    /// another key type whose cases have the same bytes, must still get the right columns.
    @Test func keysAskedInAnotherOrderOrTypeStillFindTheirColumns() async throws {
        enum First: CodingKey { case name, email }
        enum Second: CodingKey { case email, name }
        struct ByName: CodingKey {
            let stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        struct Shuffled: Decodable, Equatable, Sendable {
            let name: String
            let email: String?
            let role: String
            init(name: String, email: String?, role: String) {
                self.name = name
                self.email = email
                self.role = role
            }
            init(from decoder: any Decoder) throws {
                let byName = try decoder.container(keyedBy: ByName.self)
                let flip = try byName.decode(Int.self, forKey: ByName(stringValue: "id")) % 2 == 0
                if flip {
                    email = try decoder.container(keyedBy: Second.self).decodeIfPresent(String.self, forKey: .email)
                    name = try decoder.container(keyedBy: First.self).decode(String.self, forKey: .name)
                } else {
                    name = try decoder.container(keyedBy: First.self).decode(String.self, forKey: .name)
                    email = try decoder.container(keyedBy: Second.self).decodeIfPresent(String.self, forKey: .email)
                }
                role = try decoder.container(keyedBy: ByName.self).decode(String.self, forKey: ByName(stringValue: flip ? "role" : "name"))
            }
        }
        let db = try await database()
        defer { db.close() }
        try await db.execute("INSERT INTO users VALUES (3, 'Edsger', 'ewd@example.com', 8, 1, 'member', NULL)").get()
        let rows = try await db.query(Shuffled.self, "SELECT * FROM users ORDER BY id").get()
        #expect(
            rows == [
                Shuffled(name: "Ada", email: "ada@example.com", role: "Ada"),
                Shuffled(name: "Grace", email: nil, role: "member"),
                Shuffled(name: "Edsger", email: "ewd@example.com", role: "Edsger"),
            ])
    }

    @Test func aKeyedContainerKeptPastItsRowThrowsInsteadOfReading() async throws {
        enum Keys: CodingKey { case name }
        /// A container is not `Sendable`; the test hands it between its own decodes only.
        struct Escaped: @unchecked Sendable { let container: KeyedDecodingContainer<Keys> }
        final class Kept: Sendable {
            let container = Mutex<Escaped?>(nil)
        }
        struct Keeper: Decodable, Sendable {
            static let kept = Kept()
            let name: String
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: Keys.self)
                name = try container.decode(String.self, forKey: .name)
                let escaping = Escaped(container: container)
                Self.kept.container.withLock { $0 = escaping }
            }
        }
        /// Reads through the kept container while decoding a row of another query.
        struct Prober: Decodable, Sendable {
            let outcome: String
            init(from decoder: any Decoder) throws {
                let kept = Keeper.kept.container.withLock { $0 }?.container
                do {
                    outcome = "read \(try kept!.decode(String.self, forKey: .name))"
                } catch let DecodingError.dataCorrupted(context) {
                    outcome = context.debugDescription
                }
            }
        }
        let db = try await database()
        defer { db.close() }
        #expect(try await db.query(Keeper.self, "SELECT name FROM users ORDER BY id").get().map(\.name) == ["Ada", "Grace"])
        let kept = try #require(Keeper.kept.container.withLock { $0 }?.container)
        let message = Self.outsideMessage
        do {
            _ = try kept.decode(String.self, forKey: .name)
            Issue.record("a kept container must not read")
        } catch let DecodingError.dataCorrupted(context) {
            #expect(context.debugDescription == message)
        }
        #expect(!kept.contains(.name))
        #expect(kept.allKeys.isEmpty)
        // Inside another query's row, on the connection's thread, it still does not read.
        #expect(try await db.query(Prober.self, "SELECT name FROM users WHERE id = 2").get().map(\.outcome) == [message])
    }

    /// Inside another row's `init(from:)`: a materialized row that decodes, one that throws,
    /// and a query run on the same connection each decode with a reader of their own and hand
    /// the outer row back readable.
    @Test func decodingInsideAnotherRowsInitLeavesTheOuterRowReadable() async throws {
        struct Inner: Decodable, Sendable { let value: String }
        struct Wrong: Decodable, Sendable { let value: Int }
        struct Label: Decodable, Sendable { let label: String }
        struct Nested: @unchecked Sendable {
            let row: SQLiteRow
            let connection: SQLiteConnection
        }
        struct Outer: Decodable, Equatable, Sendable {
            static let nested = Mutex<Nested?>(nil)
            let name: String
            let inner: String
            let wrongFailed: Bool
            let labels: [String]
            let score: Double
            init(name: String, inner: String, wrongFailed: Bool, labels: [String], score: Double) {
                self.name = name
                self.inner = inner
                self.wrongFailed = wrongFailed
                self.labels = labels
                self.score = score
            }
            enum CodingKeys: CodingKey { case name, score }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                name = try container.decode(String.self, forKey: .name)
                let nested = Self.nested.withLock { $0 }!
                inner = try nested.row.decode(Inner.self).value
                do {
                    _ = try nested.row.decode(Wrong.self)
                    wrongFailed = false
                } catch SQLiteError.Code.mismatch {
                    wrongFailed = true
                }
                labels = try nested.connection.query(Label.self, "SELECT name || '!' AS label FROM users ORDER BY id").map(\.label)
                score = try container.decode(Double.self, forKey: .score)
            }
        }
        let db = try await database()
        defer { db.close() }
        let row = try #require(try await db.queryFirst("SELECT 'inside' AS value").get())
        let outer = try await db.read { connection in
            Outer.nested.withLock { $0 = Nested(row: row, connection: connection) }
            defer { Outer.nested.withLock { $0 = nil } }
            return try connection.query(Outer.self, "SELECT name, score FROM users ORDER BY id")
        }.get()
        #expect(
            outer == [
                Outer(name: "Ada", inner: "inside", wrongFailed: true, labels: ["Ada!", "Grace!"], score: 9.5),
                Outer(name: "Grace", inner: "inside", wrongFailed: true, labels: ["Ada!", "Grace!"], score: 7),
            ])
    }

    /// A decoder, single-value or unkeyed container kept past the query reads nothing: with no
    /// statement cache, its statement is finalized by then.
    @Test func aKeptDecoderOrColumnContainerThrowsAfterTheQuery() async throws {
        struct Kept: @unchecked Sendable {
            let decoder: any Decoder
            let single: any SingleValueDecodingContainer
            let unkeyed: any UnkeyedDecodingContainer
        }
        struct Keeper: Decodable, Sendable {
            static let kept = Mutex<Kept?>(nil)
            let name: String
            init(from decoder: any Decoder) throws {
                name = try decoder.singleValueContainer().decode(String.self)
                let kept = Kept(decoder: decoder, single: try decoder.singleValueContainer(), unkeyed: try decoder.unkeyedContainer())
                Self.kept.withLock { $0 = kept }
            }
        }
        var configuration = SQLiteConfiguration()
        configuration.statementCacheCapacity = 0
        let db = SQLiteDatabase.inMemory(configuration: configuration)
        defer { db.close() }
        try await db.executeScript("CREATE TABLE t(name TEXT); INSERT INTO t VALUES ('Ada'), ('Grace');").get()
        #expect(try await db.query(Keeper.self, "SELECT name FROM t ORDER BY name").get().map(\.name) == ["Ada", "Grace"])
        let kept = try #require(Keeper.kept.withLock { $0 })
        func expectOutside(_ body: () throws -> Void) {
            do {
                try body()
                Issue.record("a kept decoder or container must not read")
            } catch let DecodingError.dataCorrupted(context) {
                #expect(context.debugDescription == Self.outsideMessage)
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
        expectOutside { _ = try kept.single.decode(String.self) }
        expectOutside { _ = try kept.single.decode(UInt64.self) }
        #expect(!kept.single.decodeNil())
        var unkeyed = kept.unkeyed
        expectOutside { _ = try unkeyed.decode(String.self) }
        expectOutside { _ = try unkeyed.decodeNil() }
        expectOutside { _ = try kept.decoder.singleValueContainer().decode(String.self) }
        enum Keys: CodingKey { case name }
        expectOutside { _ = try kept.decoder.container(keyedBy: Keys.self).decode(String.self, forKey: .name) }

        // A materialized row's decoder is kept the same way.
        let row = try #require(try await db.queryFirst("SELECT 'Edsger' AS name").get())
        #expect(try row.decode(Keeper.self).name == "Edsger")
        let fromRow = try #require(Keeper.kept.withLock { $0 })
        expectOutside { _ = try fromRow.single.decode(String.self) }
    }

    /// Kept from one row and used while a later row of the same query decodes, a keyed
    /// container reads that later row, as the decoder it came from does.
    @Test func aKeyedContainerKeptFromAnEarlierRowReadsTheRowBeingDecoded() async throws {
        enum Keys: CodingKey { case name }
        struct Escaped: @unchecked Sendable { let container: KeyedDecodingContainer<Keys> }
        struct Pair: Decodable, Sendable {
            static let first = Mutex<Escaped?>(nil)
            let own: String
            let throughFirst: String
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: Keys.self)
                own = try container.decode(String.self, forKey: .name)
                let first = Self.first.withLock { kept in
                    if kept == nil { kept = Escaped(container: container) }
                    return kept!.container
                }
                throughFirst = try first.decode(String.self, forKey: .name)
            }
        }
        let db = try await database()
        defer { db.close() }
        let pairs = try await db.query(Pair.self, "SELECT name FROM users ORDER BY id").get()
        #expect(pairs.map(\.own) == ["Ada", "Grace"])
        #expect(pairs.map(\.throughFirst) == ["Ada", "Grace"])
    }

    /// Keys that are trivially copyable and 0, 2, 4 or 8 bytes long are matched by their bytes;
    /// each row asks in a different order, so a wrong match would read the wrong column.
    @Test func keysOfEverySizeFindTheirColumns() async throws {
        enum Only: CodingKey { case email }
        struct Row: Decodable, Equatable, Sendable {
            let id: Int
            let name: String
            let score: Double
            let email: String?
            init(id: Int, name: String, score: Double, email: String?) {
                self.id = id
                self.name = name
                self.score = score
                self.email = email
            }
            init(from decoder: any Decoder) throws {
                let short = try decoder.container(keyedBy: SizedKey<UInt16>.self)
                let id = try short.decode(Int.self, forKey: SizedKey(0))
                let medium = try decoder.container(keyedBy: SizedKey<UInt32>.self)
                let long = try decoder.container(keyedBy: SizedKey<Int>.self)
                if id % 2 == 1 {
                    name = try medium.decode(String.self, forKey: SizedKey(1))
                    score = try long.decode(Double.self, forKey: SizedKey(2))
                } else {
                    score = try medium.decode(Double.self, forKey: SizedKey(2))
                    name = try long.decode(String.self, forKey: SizedKey(1))
                }
                email = try decoder.container(keyedBy: Only.self).decodeIfPresent(String.self, forKey: .email)
                self.id = id
            }
        }
        let db = try await database()
        defer { db.close() }
        try await db.execute("INSERT INTO users VALUES (3, 'Edsger', 'ewd@example.com', 8, 1, 'member', NULL)").get()
        #expect(
            try await db.query(Row.self, "SELECT * FROM users ORDER BY id").get() == [
                Row(id: 1, name: "Ada", score: 9.5, email: "ada@example.com"),
                Row(id: 2, name: "Grace", score: 7, email: nil),
                Row(id: 3, name: "Edsger", score: 8, email: "ewd@example.com"),
            ])
    }

    @Test func optionalPropertiesKeepTheirErrors() async throws {
        let db = try await database()
        defer { db.close() }
        struct Unsigned: Decodable, Sendable { let value: UInt64? }
        do {
            _ = try await db.query(Unsigned.self, "SELECT -1 AS value").get()
            Issue.record("a negative integer must not decode as UInt64?")
        } catch let error as SQLiteError {
            guard case .typeMismatch(_, let context)? = error.underlying as? DecodingError else { throw error }
            #expect(context.debugDescription == "column 'value' (0) holds a negative integer, which does not convert to UInt64")
        }
        struct Text: Decodable, Sendable { let value: String? }
        await #expect(throws: SQLiteError.self) { try await db.query(Text.self, "SELECT CAST(X'C328FF41' AS TEXT) AS value").get() }
        struct Roles: Decodable, Equatable, Sendable {
            let role: User.Role?
            let other: User.Role?
        }
        #expect(try await db.query(Roles.self, "SELECT NULL AS role").get() == [Roles(role: nil, other: nil)])
        #expect(try await db.query(Roles.self, "SELECT 'admin' AS role, 'member' AS other").get() == [Roles(role: .admin, other: .member)])
        await #expect(throws: SQLiteError.self) { try await db.query(Roles.self, "SELECT 'owner' AS role").get() }
    }

    /// Each thread decodes with its own reader: two connections decoding at once keep their
    /// rows apart.
    @Test func twoConnectionsDecodingAtOnceKeepTheirRowsApart() async throws {
        struct Item: Decodable, Equatable, Sendable {
            let id: Int
            let label: String
        }
        func database(_ prefix: String) async throws -> SQLiteDatabase {
            let db = SQLiteDatabase.inMemory()
            try await db.executeScript(
                """
                CREATE TABLE items(id INTEGER PRIMARY KEY, label TEXT NOT NULL);
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)
                INSERT INTO items SELECT i, '\(prefix)' || i FROM n;
                """
            ).get()
            return db
        }
        let first = try await database("a")
        let second = try await database("b")
        defer {
            first.close()
            second.close()
        }
        for _ in 0..<5 {
            async let a = first.query(Item.self, "SELECT id, label FROM items ORDER BY id").get()
            async let b = second.query(Item.self, "SELECT id, label FROM items ORDER BY id").get()
            let (itemsA, itemsB) = try await (a, b)
            #expect(itemsA == (1...5000).map { Item(id: $0, label: "a\($0)") })
            #expect(itemsB == (1...5000).map { Item(id: $0, label: "b\($0)") })
        }
    }
}
