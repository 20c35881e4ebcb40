// swift-format-ignore-file
// (documentation quotes this file's code line for line, layout included)
import FoundationEssentials
import PromiseSQLite
import Testing

/// The ```swift blocks of the SwiftFunctions and ChangeNotifications DocC articles, as written
/// there, each between `// DocC: begin` and `// DocC: end`, on a fresh database file.
@Suite struct DocCObservationExamplesTests {
    static func open(_ dir: TemporaryDirectory) async throws -> SQLiteDatabase {
        let db = try await SQLiteDatabase.open(path: dir("docc.sqlite")).get()
        try await db.executeScript("""
            CREATE TABLE factors(x INTEGER);
            INSERT INTO factors VALUES (2), (3), (7);
            CREATE TABLE words(w TEXT);
            INSERT INTO words VALUES ('ccc'), ('a'), ('bb');
            CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            CREATE TABLE orders(id INTEGER PRIMARY KEY, item TEXT NOT NULL);
            """).get()
        return db
    }

    @Test func swiftFunctions() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)

        // DocC: begin
        let slugify = SQLiteFunction("slugify", argumentCount: 1, options: [.deterministic, .innocuous]) { arguments in
            guard let text = String.fromSQLiteValue(arguments[0]) else { return nil }
            return text.lowercased().split(separator: " ").joined(separator: "-")
        }
        try await db.add(function: slugify).get()
        let slug = try await db.scalar(String.self, "SELECT slugify(?)", ["Hello World"]).get()
        // DocC: end
        #expect(slug == "hello-world")

        // DocC: begin
        let positive = SQLiteFunction("positive", argumentCount: 1) { arguments in
            guard let value = Int.fromSQLiteValue(arguments[0]), value > 0 else {
                throw SQLiteError(.constraintCheck, message: "not a positive integer")
            }
            return value
        }
        try await db.add(function: positive).get()
        do {
            _ = try await db.scalar(Int.self, "SELECT positive(-1)").get()
        } catch let error as SQLiteError {
            print(error.message)   // positive(): not a positive integer
        }
        // DocC: end
        do {
            _ = try await db.scalar(Int.self, "SELECT positive(-1)").get()
            Issue.record("positive(-1) must fail")
        } catch SQLiteError.Code.constraint {}

        // DocC: begin
        let byLength = SQLiteCollation("by_length") { lhs, rhs in
            lhs.utf8.count != rhs.utf8.count ? lhs.utf8.count < rhs.utf8.count : lhs < rhs
        }
        try await db.add(collation: byLength).get()
        let words = try await db.query(String.self, "SELECT w FROM words ORDER BY w COLLATE by_length").get()
        // DocC: end
        #expect(words == ["a", "bb", "ccc"])
        try await db.close().get()
    }

    // DocC: begin
    struct Product: SQLiteAggregate {
        var value = 1
        mutating func step(_ arguments: [SQLiteValue]) throws {
            guard let factor = Int.fromSQLiteValue(arguments[0]) else { return }
            let (result, overflow) = value.multipliedReportingOverflow(by: factor)
            if overflow { throw SQLiteError(.range, message: "product overflows Int") }
            value = result
        }
        func finalize() throws -> (any SQLiteValueConvertible)? { value }
    }
    // DocC: end

    @Test func aggregate() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)
        // DocC: begin
        try await db.add(function: SQLiteFunction("product", argumentCount: 1, aggregate: Product.self)).get()
        let product = try await db.scalar(Int.self, "SELECT product(x) FROM factors").get()
        // DocC: end
        #expect(product == 42)
        try await db.execute("INSERT INTO factors VALUES (?)", [Int.max]).get()
        #expect(await sqliteError(db.scalar(Int.self, "SELECT product(x) FROM factors"))?.message == "product(): product overflows Int")
        try await db.close().get()
    }

    @Test func changeNotifications() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await Self.open(dir)

        // DocC: begin
        let changed = db.nextCommit(touching: ["users"])
        try await db.execute("INSERT INTO users(name) VALUES (?)", ["Ada"]).get()
        let commit = try await changed.get()
        print(commit.tables)   // ["users"]
        // DocC: end
        #expect(commit.tables == ["users"])

        // DocC: begin
        let commits = db.commits(touching: ["orders"])
        let watcher = Task {
            for await commit in commits {
                print("orders changed in \(commit.transactions) transaction(s)")
            }
        }
        try await db.execute("INSERT INTO orders(item) VALUES (?)", ["tea"]).get()
        watcher.cancel()
        // DocC: end
        await watcher.value

        // DocC: begin
        let events = db.transactionEvents(touching: ["orders"])
        let printer = Task {
            for await event in events {
                switch event {
                case .committed(let commit):
                    for change in commit.changes {
                        print(change.operation, change.table, change.key)   // insert orders rowid 2
                    }
                case .rolledBack(let tables):
                    print("rolled back, nothing of it committed: \(tables.sorted())")
                case .missed(let missed):
                    print("fell behind by \(missed.commits) commits: read orders again")
                }
            }
        }
        try await db.execute("INSERT INTO orders(item) VALUES (?)", ["coffee"]).get()
        // DocC: end
        events.cancel()
        await printer.value

        // DocC: begin
        let names = SQLiteValueObservation.query(String.self, "SELECT name FROM users ORDER BY name")
            .removingDuplicates()
        let display = Task {
            for try await list in names.values(in: db) {
                print(list)   // [] at once, then ["Ada"] after the INSERT commits
            }
        }
        try await db.execute("INSERT INTO users(name) VALUES (?)", ["Ada"]).get()
        // DocC: end
        display.cancel()
        try await display.value
        var check = names.values(in: db).makeAsyncIterator()
        #expect(try await check.next() == ["Ada", "Ada"], "the earlier block inserted Ada too")
        try await db.close().get()
    }

    /// Every ```swift block of the two articles is in this file, line for line.
    @Test func articlesAndThisFileAgree() throws {
        let thisFile = URL(fileURLWithPath: #filePath)
        let root = thisFile.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let catalog = root.appendingPathComponent("Sources/PromiseSQLite/PromiseSQLite.docc")
        let quoted = Self.quotedBlocks(try String(contentsOf: thisFile, encoding: .utf8))
        var count = 0
        for article in ["SwiftFunctions.md", "ChangeNotifications.md"] {
            let text = try String(contentsOf: catalog.appendingPathComponent(article), encoding: .utf8)
            for block in Self.swiftBlocks(in: text) {
                count += 1
                #expect(quoted.contains(block), "\(article): block not quoted verbatim here:\n\(block.joined(separator: "\n"))")
            }
        }
        #expect(count == 9)
    }

    /// The ```swift blocks of a Markdown text, each as lines with the block's indentation
    /// removed.
    static func swiftBlocks(in markdown: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```swift" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!)
                current = nil
            } else if current != nil {
                current!.append(String(line))
            }
        }
        return blocks
    }

    /// The text between each `// DocC: begin` and `// DocC: end` of a file, with the
    /// begin marker's indentation removed from each line.
    static func quotedBlocks(_ source: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        var indent = 0
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.drop { $0 == " " }
            if trimmed == "// DocC: begin" {
                current = []
                indent = line.count - trimmed.count
            } else if trimmed == "// DocC: end", let block = current {
                blocks.append(block)
                current = nil
            } else if current != nil {
                current!.append(String(line.dropFirst(min(indent, line.prefix { $0 == " " }.count))))
            }
        }
        return blocks
    }
}
