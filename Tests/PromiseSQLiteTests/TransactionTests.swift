import PromiseSQLite
import PromiseTestSupport
import Testing

private struct Boom: Error {}

@Suite struct TransactionTests {
    private func accounts() async throws -> SQLiteDatabase {
        let db = SQLiteDatabase.inMemory()
        try await db.executeScript(
            """
            CREATE TABLE accounts(id INTEGER PRIMARY KEY, balance INTEGER NOT NULL CHECK (balance >= 0));
            INSERT INTO accounts VALUES (1, 100), (2, 0);
            """
        ).get()
        return db
    }

    private func balances(_ db: SQLiteDatabase) async throws -> [Int] {
        try await db.query(Int.self, "SELECT balance FROM accounts ORDER BY id").get()
    }

    @Test func aTransactionCommitsWhenTheClosureReturns() async throws {
        let db = try await accounts()
        defer { db.close() }
        let (inside, total) = try await db.transaction { db in
            let inside = db.isInTransaction
            try db.execute("UPDATE accounts SET balance = balance - 30 WHERE id = 1")
            try db.execute("UPDATE accounts SET balance = balance + 30 WHERE id = 2")
            return (inside, try db.scalar(Int.self, "SELECT sum(balance) FROM accounts") ?? -1)
        }.get()
        #expect(inside)
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
            try db.execute("UPDATE accounts SET balance = balance - 500 WHERE id = 1")  // CHECK fails
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
        let afterInnerFailure = try await db.transaction { db in
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
            let seen = try db.query(Int.self, "SELECT balance FROM accounts ORDER BY id")
            // A successful inner savepoint is kept when the outer commits.
            try db.transaction { db in
                try db.execute("UPDATE accounts SET balance = 10 WHERE id = 2")
            }
            return seen
        }.get()
        #expect(afterInnerFailure == [90, 0])
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
        try await entered.opened()
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
        try await entered.opened()
        transaction.cancel()
        proceed.open()
        #expect(await isCancelled(transaction))
        #expect(try await balances(db) == [100, 0])
    }
}

@Suite struct TransactionEdgeTests {
    @Test func aFailedCommitRollsBackAndRejects() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        try await db.executeScript(
            """
            CREATE TABLE parents(id INTEGER PRIMARY KEY);
            CREATE TABLE children(parent INTEGER REFERENCES parents(id) DEFERRABLE INITIALLY DEFERRED);
            """
        ).get()
        // A deferred foreign key is checked at COMMIT: the commit fails, nothing stays.
        let failed = db.transaction { db in
            try db.execute("INSERT INTO children VALUES (42)")
            return "body finished"
        }
        let error = await sqliteError(failed)
        #expect(error?.code == .constraintForeignKey)
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM children").get() == 0)
        #expect(try await db.transaction { $0.isInTransaction }.get(), "the connection is usable again")
    }

    @Test func aTimeoutWhileAStatementRunsInsideATransactionRollsItBack() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        try await db.execute("CREATE TABLE t(n)").get()
        let started = ContinuousClock.now
        let slow = db.transaction { db in
            try db.execute("INSERT INTO t VALUES (1)")
            return try db.scalar(Int.self, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c")
        }.timeout(.milliseconds(150))
        // Queued behind the transaction: it runs once the time-out has interrupted it.
        let count = db.scalar(Int.self, "SELECT count(*) FROM t")
        let countSettled = SettleTime(of: count)
        await #expect(throws: PromiseError.self) { try await slow.get() }
        #expect(try await count.get() == 0)
        expectTimeLimit(
            countSettled.since(started), under: .seconds(60),
            "the query queued behind the timed-out transaction settling (uninterrupted, it never ends)")
    }

    @Test func aFailedScriptRollsBackTheTransactionItOpened() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        try await db.execute("CREATE TABLE t(n)").get()
        let error = await sqliteError(db.executeScript("BEGIN; INSERT INTO t VALUES (1); INSERT INTO nope VALUES (2); COMMIT;"))
        #expect(error?.message == "no such table: nope")
        // Later work is not swallowed by a transaction left open.
        try await db.execute("INSERT INTO t VALUES (3)").get()
        #expect(try await db.transaction { $0.isInTransaction }.get())
        try await db.close().get()
        #expect(await sqliteError(db.execute("SELECT 1"))?.code == .closed)
    }

    @Test func aScriptFailingWithinTheCallersTransactionLeavesItOpen() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        try await db.execute("CREATE TABLE t(n)").get()
        try await db.execute("BEGIN").get()
        _ = await sqliteError(db.executeScript("INSERT INTO t VALUES (1); INSERT INTO nope VALUES (2);"))
        // The caller's BEGIN is the caller's to end.
        let refused = await sqliteError(db.transaction { _ in })
        #expect(refused?.code == .invalidUse)
        try await db.execute("COMMIT").get()
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM t").get() == 1)
    }

    @Test func waitingInsideATransactionForTheSameDatabaseFailsInsteadOfHanging() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        let waiting = db.transaction { _ in
            try awaitPromise(db.scalar(Int.self, "SELECT 1"))
        }
        do {
            _ = try await waiting.get()
            Issue.record("awaitPromise on the connection thread must fail")
        } catch PromiseError.Code.deadlock {}
        #expect(try await db.scalar(Int.self, "SELECT 2").get() == 2)
    }

    @Test func waitingInsideATransactionForCloseFailsInsteadOfHanging() async throws {
        let db = SQLiteDatabase.inMemory()
        let waiting = db.transaction { _ in
            try awaitPromise(db.close())
        }
        let error = await #expect(throws: PromiseError.self) { try await waiting.get() }
        #expect(error?.code == .deadlock)
        #expect(error?.message.contains("SQLite connection thread") == true, "\(String(describing: error))")
        try await db.close().get()
    }

    @Test func waitingInsideATransactionForACombinationOfItsQueriesFailsInsteadOfHanging() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        for combined in ["all", "any", "race"] {
            let waiting = db.transaction { _ -> Int in
                let queries = [db.scalar(Int.self, "SELECT 1"), db.scalar(Int.self, "SELECT 2")]
                switch combined {
                case "all": return try awaitPromise(all(queries)).count
                case "any": return try awaitPromise(any(queries)).count
                default: return try awaitPromise(race(queries)) ?? 0
                }
            }
            let error = await #expect(throws: PromiseError.self, "\(combined)") { try await waiting.get() }
            #expect(error?.code == .deadlock, "\(combined)")
        }
        #expect(try await db.scalar(Int.self, "SELECT 2").get() == 2)
    }

    @Test func aTransactionEndedBySQLiteStopsTheClosure() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        try await db.execute("CREATE TABLE t(n INTEGER UNIQUE ON CONFLICT ROLLBACK)").get()
        let failed = db.transaction { db in
            try db.execute("INSERT INTO t VALUES (1)")
            do {
                try db.execute("INSERT INTO t VALUES (1)")  // SQLite rolls the whole transaction back
            } catch SQLiteError.Code.constraint {}
            try db.execute("INSERT INTO t VALUES (2)")  // must not run on its own, outside it
        }
        let error = await sqliteError(failed)
        #expect(error?.code == .abort)
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM t").get() == 0)
    }

    /// Every statement method of the connection applies the guard above, the `Decodable` ones
    /// too: an `INSERT … RETURNING` decoded into a type must not commit on its own either.
    @Test func everyStatementMethodStopsOnceSQLiteHasEndedTheTransaction() async throws {
        struct Inserted: Decodable, Sendable { let n: Int }
        let calls: [(String, @Sendable (SQLiteConnection) throws -> Void)] = [
            ("execute", { _ = try $0.execute("INSERT INTO t VALUES (2) RETURNING n") }),
            ("query", { _ = try $0.query("INSERT INTO t VALUES (2) RETURNING n") }),
            ("query(T.self)", { _ = try $0.query(Inserted.self, "INSERT INTO t VALUES (2) RETURNING n") }),
            ("queryFirst", { _ = try $0.queryFirst("INSERT INTO t VALUES (2) RETURNING n") }),
            ("queryFirst(T.self)", { _ = try $0.queryFirst(Inserted.self, "INSERT INTO t VALUES (2) RETURNING n") }),
            ("scalar", { _ = try $0.scalar(Int.self, "INSERT INTO t VALUES (2) RETURNING n") }),
            ("forEachRow", { try $0.forEachRow("INSERT INTO t VALUES (2) RETURNING n") { _ in } }),
            ("executeScript", { try $0.executeScript("INSERT INTO t VALUES (2)") }),
        ]
        for (name, call) in calls {
            let db = SQLiteDatabase.inMemory()
            defer { db.close() }
            try await db.execute("CREATE TABLE t(n INTEGER UNIQUE ON CONFLICT ROLLBACK)").get()
            let failed = db.transaction { db in
                try db.execute("INSERT INTO t VALUES (1)")
                _ = try? db.execute("INSERT INTO t VALUES (1)")  // SQLite rolls the transaction back
                try call(db)
            }
            let error = await sqliteError(failed)
            #expect(error?.code == .abort, "\(name)")
            #expect(try await db.scalar(Int.self, "SELECT count(*) FROM t").get() == 0, "\(name) committed a row on its own")
        }
    }
}

/// Smuggles a non-Sendable value out of a closure, to test misuse.
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
