// swift-format-ignore-file
// (documentation quotes this file's code line for line, layout included)
import Glibc
import PromiseSQLite
import Testing

// The ```swift blocks of PromiseSQLite's DocC catalog, each between `// DocC: begin` and
// `// DocC: end` exactly as written there, checked by PromiseCoreTests' `DocCCodeBlocksTests`.
// Blocks that open a database by a relative path run in a process of their own (an exit
// test) whose working directory is a fresh temporary directory, and print what they produced.

/// A fresh temporary directory made the working directory of this (child) process.
func enterTemporaryDirectory() {
    var template = Array("/tmp/promisesqlite-docc.XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) != nil }
    precondition(made && chdir(template.withUnsafeBufferPointer { $0.baseAddress! }) == 0, "test setup: mkdtemp or chdir failed")
}

@Suite struct SQLiteArticleExamplesTests {
    @Test func landingPage() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            func program() throws {   // blocking code: not in the async exit-test closure itself
                enterTemporaryDirectory()

                // DocC: begin
                struct User: Decodable, Sendable {
                    let id: Int
                    let name: String
                    let email: String?
                }

                let db = SQLiteDatabase(path: "app.sqlite")
                let users = db.executeScript("""
                        CREATE TABLE IF NOT EXISTS users(id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT UNIQUE);
                        """)
                    .then { db.execute("INSERT INTO users(name, email) VALUES (?, ?)", ["Ada", "ada@example.com"]) }
                    .then { _ in db.query(User.self, "SELECT * FROM users WHERE name = :name", ["name": "Ada"]) }
                    .catch { error in
                        if case SQLiteError.Code.constraintUnique = error { print("already registered") } else { print(error) }
                    }
                // DocC: end

                print(try awaitPromise(users).map(\.name))
                // The second run of the same program: the email is taken.
                _ = try? awaitPromise(db.execute("INSERT INTO users(name, email) VALUES (?, ?)", ["Ada", "ada@example.com"])
                    .catch { error in
                        if case SQLiteError.Code.constraintUnique = error { print("already registered") } else { print(error) }
                    })
                try awaitPromise(db.close())
            }
            try program()
        }
        #expect(String(decoding: result?.standardOutputContent ?? [], as: UTF8.self) == "[\"Ada\"]\nalready registered\n")
    }

    @Test func durabilityChoice() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            func program() throws {   // blocking code: not in the async exit-test closure itself
                enterTemporaryDirectory()

                // DocC: begin
                var configuration = SQLiteConfiguration()
                configuration.journalMode = .wal
                configuration.synchronous = .normal
                let db = SQLiteDatabase(path: "cache.sqlite", configuration: configuration)
                // DocC: end

                print(try awaitPromise(db.scalar(String.self, "PRAGMA journal_mode")) ?? "-")
                print(try awaitPromise(db.scalar(Int.self, "PRAGMA synchronous")) ?? -1)
                try awaitPromise(db.close())
            }
            try program()
        }
        #expect(String(decoding: result?.standardOutputContent ?? [], as: UTF8.self) == "wal\n1\n")
    }

    @Test func operationsRunInOrder() async throws {
        let temporary = TemporaryDirectory()
        defer { temporary.cleanUp() }
        let db = SQLiteDatabase(path: temporary("log.sqlite"))
        try await db.executeScript("CREATE TABLE log(line TEXT)").get()
        let rows = ["one", "two", "three"]

        // DocC: begin
        let inserts = rows.map { db.execute("INSERT INTO log(line) VALUES (?)", [$0]) }
        let count = db.scalar(Int.self, "SELECT count(*) FROM log")   // runs after every insert above
        // DocC: end

        #expect(try await count.get() == 3)
        #expect(inserts.allSatisfy { !$0.isPending })
        try await db.close().get()
    }

    @Test func aPoolReadsASnapshot() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            enterTemporaryDirectory()
            let setup = SQLiteDatabase(path: "app.sqlite")
            try await setup.executeScript("PRAGMA journal_mode = WAL; CREATE TABLE orders(total REAL); INSERT INTO orders VALUES (2.5), (4);").get()
            try await setup.close().get()

            // DocC: begin
            let pool = try await SQLiteDatabasePool.open(path: "app.sqlite", readers: 4).get()
            let report = pool.read { db in            // one consistent snapshot, on a reader
                (try db.scalar(Int.self, "SELECT count(*) FROM orders") ?? 0,
                 try db.scalar(Double.self, "SELECT sum(total) FROM orders") ?? 0)
            }
            // DocC: end

            let (count, sum) = try await report.get()
            print(count, sum)
            try await pool.close().get()
        }
        #expect(String(decoding: result?.standardOutputContent ?? [], as: UTF8.self) == "2 6.5\n")
    }

    @Test func transactions() async throws {
        let temporary = TemporaryDirectory()
        defer { temporary.cleanUp() }
        let db = SQLiteDatabase(path: temporary("bank.sqlite"))
        try await db.executeScript("""
            CREATE TABLE accounts(id INTEGER PRIMARY KEY, balance INTEGER NOT NULL CHECK (balance >= 0));
            INSERT INTO accounts VALUES (1, 100), (2, 0);
            CREATE TABLE orders(id INTEGER PRIMARY KEY);
            CREATE TABLE lines(order_id INTEGER, line TEXT, PRIMARY KEY (order_id, line));
            """).get()
        let (amount, from, to) = (30, 1, 2)

        // DocC: begin
        let moved = db.transaction { db in
            try db.execute("UPDATE accounts SET balance = balance - ? WHERE id = ?", [amount, from])
            try db.execute("UPDATE accounts SET balance = balance + ? WHERE id = ?", [amount, to])
            return try db.scalar(Int.self, "SELECT balance FROM accounts WHERE id = ?", [from]) ?? 0
        }
        // DocC: end

        #expect(try await moved.get() == 70)

        let order = 7
        let lines = ["tea", "cake", "tea"]

        // DocC: begin
        let skipped = db.transaction { db in
            try db.execute("INSERT INTO orders(id) VALUES (?)", [order])
            var skipped = 0
            for line in lines {
                do {
                    try db.transaction { db in try db.execute("INSERT INTO lines VALUES (?, ?)", [order, line]) }
                } catch SQLiteError.Code.constraint {
                    skipped += 1     // this line only; the order and the other lines stay
                }
            }
            return skipped
        }
        // DocC: end

        #expect(try await skipped.get() == 1)
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM lines").get() == 2)
        try await db.close().get()
    }
}
