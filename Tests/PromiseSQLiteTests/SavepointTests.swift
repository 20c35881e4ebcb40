import PromiseSQLite
import PromiseTestSupport
import Testing

private struct SavepointBoom: Error {}

@Suite struct SavepointTests {
    private func database() async throws -> SQLiteDatabase {
        let db = SQLiteDatabase.inMemory()
        try await db.executeScript("CREATE TABLE t(depth INTEGER NOT NULL UNIQUE)").get()
        return db
    }

    /// Opens `levels` savepoints inside each other, inserting the depth at each; the one at
    /// `failing` throws after its insert.
    private static func nest(_ db: SQLiteConnection, depth: Int, levels: Int, failing: Int?) throws {
        guard depth <= levels else { return }
        do {
            try db.savepoint { db in
                try db.execute("INSERT INTO t VALUES (?)", [depth])
                try nest(db, depth: depth + 1, levels: levels, failing: failing)
                if depth == failing { throw SavepointBoom() }
            }
        } catch is SavepointBoom where depth == failing {
            // Only this level and those inside it are undone; the caller goes on.
        }
    }

    @Test(arguments: [1, 2, 50, 199, 200])
    func aSavepointAtAnyDepthRollsBackAloneAndTheOuterTransactionGoesOn(failing: Int) async throws {
        let db = try await database()
        defer { db.close() }
        let levels = 200
        let kept = try await db.transaction { db in
            try db.execute("INSERT INTO t VALUES (0)")
            try Self.nest(db, depth: 1, levels: levels, failing: failing)
            try db.execute("INSERT INTO t VALUES (-1)")
            return try db.scalar(Int.self, "SELECT count(*) FROM t") ?? 0
        }.get()
        #expect(kept == failing + 1, "depths 0..<failing and -1")
        let stored = try await db.query(Int.self, "SELECT depth FROM t ORDER BY depth").get()
        #expect(stored == [-1] + Array(0..<failing))
    }

    @Test func anSQLiteErrorInsideASavepointRollsBackOnlyThatSavepoint() async throws {
        let db = try await database()
        defer { db.close() }
        let skipped = try await db.transaction { db in
            var skipped = 0
            for depth in [1, 2, 2, 3] {
                do {
                    try db.savepoint { db in
                        try db.execute("INSERT INTO t VALUES (?)", [depth * 10])
                        try db.execute("INSERT INTO t VALUES (?)", [depth])
                    }
                } catch SQLiteError.Code.constraintUnique {
                    skipped += 1
                }
            }
            return skipped
        }.get()
        #expect(skipped == 1)
        #expect(try await db.query(Int.self, "SELECT depth FROM t ORDER BY depth").get() == [1, 2, 3, 10, 20, 30])
    }

    @Test func anOuterRollbackUndoesReleasedSavepoints() async throws {
        let db = try await database()
        defer { db.close() }
        let failed = db.transaction { db in
            try db.savepoint { db in
                try db.savepoint { db in try db.execute("INSERT INTO t VALUES (1)") }
            }
            throw SavepointBoom()
        }
        await #expect(throws: SavepointBoom.self) { try await failed.get() }
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM t").get() == 0)
    }

    @Test func aSavepointOutsideATransactionIsRefused() async throws {
        let db = try await database()
        defer { db.close() }
        let error = try #require(
            await sqliteError(db.writeWithoutTransaction { db in try db.savepoint { db in try db.execute("INSERT INTO t VALUES (1)") } })
        )
        #expect(error.code == .invalidUse)
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM t").get() == 0)
    }

    @Test func aRollbackRaisedInsideASavepointEndsTheWholeTransaction() async throws {
        let db = try await database()
        defer { db.close() }
        try await db.executeScript(
            """
            CREATE TABLE guard(x);
            CREATE TRIGGER refuse BEFORE INSERT ON guard BEGIN SELECT RAISE(ROLLBACK, 'refused'); END;
            """
        ).get()
        let outcome = db.transaction { db in
            try db.execute("INSERT INTO t VALUES (1)")
            do {
                try db.savepoint { db in try db.execute("INSERT INTO guard VALUES (1)") }
            } catch SQLiteError.Code.constraint {}
            // SQLite rolled the whole transaction back: the next statement must not run alone.
            try db.execute("INSERT INTO t VALUES (2)")
        }
        let error = try #require(await sqliteError(outcome))
        #expect(error.code == .abort)
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM t").get() == 0)
    }

    @Test func cancellingInsideANestedSavepointRollsBackEverything() async throws {
        let db = try await database()
        defer { db.close() }
        let entered = Gate()
        let release = Gate()
        let running = db.transaction { db in
            try db.execute("INSERT INTO t VALUES (0)")
            try db.savepoint { db in
                try db.execute("INSERT INTO t VALUES (1)")
                try db.savepoint { db in
                    entered.open()
                    release.wait()
                    try db.execute("INSERT INTO t VALUES (2)")
                }
            }
        }
        try await entered.opened()
        running.cancel()
        release.open()
        #expect(await isCancelled(running))
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM t").get() == 0)
        #expect(try await db.transaction { db in try db.savepoint { $0.isInTransaction } }.get())
    }

    @Test func aSavepointInAReadTransactionMayWrite() async throws {
        let db = try await database()
        defer { db.close() }
        try await db.transaction(.deferred) { db in
            try db.savepoint { db in try db.execute("INSERT INTO t VALUES (7)") }
        }.get()
        #expect(try await db.query(Int.self, "SELECT depth FROM t").get() == [7])
    }
}
