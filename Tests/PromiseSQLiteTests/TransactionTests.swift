import PromiseSQLite
import Testing

private struct Boom: Error {}

@Suite struct TransactionTests {
    private func accounts() async throws -> SQLiteDatabase {
        let db = SQLiteDatabase.inMemory()
        try await db.executeScript("""
            CREATE TABLE accounts(id INTEGER PRIMARY KEY, balance INTEGER NOT NULL CHECK (balance >= 0));
            INSERT INTO accounts VALUES (1, 100), (2, 0);
            """).get()
        return db
    }

    private func balances(_ db: SQLiteDatabase) async throws -> [Int] {
        try await db.query(Int.self, "SELECT balance FROM accounts ORDER BY id").get()
    }

    @Test func aTransactionCommitsWhenTheClosureReturns() async throws {
        let db = try await accounts()
        defer { db.close() }
        let total = try await db.transaction { db in
            #expect(db.isInTransaction)
            try db.execute("UPDATE accounts SET balance = balance - 30 WHERE id = 1")
            try db.execute("UPDATE accounts SET balance = balance + 30 WHERE id = 2")
            return try db.scalar(Int.self, "SELECT sum(balance) FROM accounts") ?? -1
        }.get()
        #expect(total == 100)
        #expect(try await balances(db) == [70, 30])
        #expect(try await db.transaction { db in db.isInTransaction }.get())
        #expect(try await db.read { db in db.isInTransaction }.get())
    }

    @Test func aTransactionRollsBackWhenTheClosureThrows() async throws {
        let db = try await accounts()
        defer { db.close() }
        let failed = db.transaction { db -> Void in
            try db.execute("UPDATE accounts SET balance = balance - 30 WHERE id = 1")
            throw Boom()
        }
        await #expect(throws: Boom.self) { try await failed.get() }
        #expect(try await balances(db) == [100, 0])
    }

    @Test func aFailedStatementInsideRollsEverythingBack() async throws {
        let db = try await accounts()
        defer { db.close() }
        let failed = db.transaction { db in
            try db.execute("UPDATE accounts SET balance = balance + 50 WHERE id = 2")
            try db.execute("UPDATE accounts SET balance = balance - 500 WHERE id = 1") // CHECK fails
        }
        let error = await sqliteError(failed)
        #expect(error?.code == .constraintCheck)
        #expect(try await balances(db) == [100, 0])
        // The connection is usable afterwards, outside any transaction.
        #expect(try await db.transaction { $0.isInTransaction }.get())
        #expect(try await db.scalar(Int.self, "SELECT 1").get() == 1)
    }

    @Test func nestedTransactionsAreSavepoints() async throws {
        let db = try await accounts()
        defer { db.close() }
        try await db.transaction { db in
            try db.execute("UPDATE accounts SET balance = 90 WHERE id = 1")
            // An inner failure rolls back only the inner work.
            do {
                try db.transaction { db in
                    try db.execute("UPDATE accounts SET balance = 80 WHERE id = 1")
                    try db.transaction { db in
                        try db.execute("UPDATE accounts SET balance = 70 WHERE id = 2")
                    }
                    throw Boom()
                }
            } catch is Boom {}
            #expect(try db.scalar(Int.self, "SELECT balance FROM accounts WHERE id = 1") == 90)
            #expect(try db.scalar(Int.self, "SELECT balance FROM accounts WHERE id = 2") == 0)
            // A successful inner savepoint is kept when the outer commits.
            try db.transaction { db in
                try db.execute("UPDATE accounts SET balance = 10 WHERE id = 2")
            }
        }.get()
        #expect(try await balances(db) == [90, 10])
    }

    @Test func anOuterRollbackUndoesReleasedSavepoints() async throws {
        let db = try await accounts()
        defer { db.close() }
        let failed = db.transaction { db in
            try db.transaction { db in try db.execute("UPDATE accounts SET balance = 1 WHERE id = 1") }
            throw Boom()
        }
        await #expect(throws: Boom.self) { try await failed.get() }
        #expect(try await balances(db) == [100, 0])
    }

    @Test func aConnectionCannotBeUsedAfterItsClosure() async throws {
        let db = try await accounts()
        defer { db.close() }
        let escaped = try await db.transaction { db in UncheckedBox(db) }.get()
        #expect(throws: SQLiteError.self) { try escaped.value.execute("DELETE FROM accounts") }
        #expect(try await balances(db) == [100, 0])
    }

    @Test func aCancelledTransactionRollsBackAtItsNextStatement() async throws {
        let db = try await accounts()
        defer { db.close() }
        let entered = Gate()
        let proceed = Gate()
        let transaction = db.transaction { db in
            try db.execute("UPDATE accounts SET balance = 0 WHERE id = 1")
            entered.open()
            proceed.wait()
            try db.execute("UPDATE accounts SET balance = 100 WHERE id = 2")
        }
        await Task.detached { entered.wait() }.value
        transaction.cancel()
        proceed.open()
        #expect(await isCancelled(transaction))
        #expect(try await balances(db) == [100, 0], "the cancelled transaction must roll back")
    }

    @Test func aCancelledTransactionWhoseClosureSwallowsTheErrorStillRollsBack() async throws {
        let db = try await accounts()
        defer { db.close() }
        let entered = Gate()
        let proceed = Gate()
        let transaction = db.transaction { db in
            try db.execute("UPDATE accounts SET balance = 0 WHERE id = 1")
            entered.open()
            proceed.wait()
            _ = try? db.execute("UPDATE accounts SET balance = 100 WHERE id = 2")
        }
        await Task.detached { entered.wait() }.value
        transaction.cancel()
        proceed.open()
        #expect(await isCancelled(transaction))
        #expect(try await balances(db) == [100, 0])
    }
}

/// Smuggles a non-Sendable value out of a closure, to test misuse.
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
