import Glibc
import PromiseSQLite
import PromiseTestSupport
import Testing

/// The name of the calling thread, from /proc/thread-self/comm.
private func currentThreadName() -> String {
    let fd = open("/proc/thread-self/comm", O_RDONLY)
    guard fd >= 0 else { return "?" }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 32)
    let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    guard count > 0 else { return "?" }
    return String(decoding: buffer[..<count].filter { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
}

private let connectionThread = "wait-test-db"

private func database(_ waitingThreads: SQLiteConfiguration.WaitingThreads) -> SQLiteDatabase {
    var configuration = SQLiteConfiguration()
    configuration.threadName = connectionThread
    configuration.operationsOnWaitingThreads = waitingThreads
    return SQLiteDatabase.inMemory(configuration: configuration)
}

/// Which threads ran `attempts` operations, each waited for in turn with `wait`: the
/// connection's own, or another one (the waiting thread).
private func threadsRunning(
    _ db: SQLiteDatabase, attempts: Int, wait: (Promise<String>) throws -> String
) throws -> (own: Int, other: Int) {
    var own = 0
    var other = 0
    for _ in 0..<attempts {
        let name = try wait(db.readWithoutTransaction { _ in currentThreadName() })
        if name == connectionThread { own += 1 } else { other += 1 }
    }
    return (own, other)
}

@Suite struct WaitingThreadTests {
    @Test func aBlockedThreadRunsTheOperationOfAnIdleConnection() throws {
        let db = database(.blocked)
        defer { db.close() }
        // The connection thread may not have gone idle yet right after a result; most rounds
        // find it idle.
        let threads = try threadsRunning(db, attempts: 200) { try awaitPromise($0) }
        #expect(threads.other > 0, "no operation ran on the blocked thread: \(threads)")
    }

    @Test func withNoneEveryOperationRunsOnTheConnectionThread() async throws {
        let db = database(.none)
        defer { db.close() }
        let blocked = try await Task.detached { try threadsRunning(db, attempts: 100) { try awaitPromise($0) } }.value
        #expect(blocked.other == 0)
        var awaited = 0
        for _ in 0..<100 where try await db.readWithoutTransaction({ _ in currentThreadName() }).get() != connectionThread {
            awaited += 1
        }
        #expect(awaited == 0)
    }

    @Test func anAwaitingTaskRunsItOnlyWhenAllowed() async throws {
        for (setting, expectOther) in [(SQLiteConfiguration.WaitingThreads.blocked, false), (.blockedAndAwaiting, true)] {
            let db = database(setting)
            var other = 0
            for _ in 0..<200 where try await db.readWithoutTransaction({ _ in currentThreadName() }).get() != connectionThread {
                other += 1
            }
            #expect((other > 0) == expectOther, "\(setting): \(other) of 200 ran in the awaiting task")
            try await db.close().get()
        }
    }

    @Test func anOperationQueuedBehindAnotherWaitsItsTurn() async throws {
        let db = database(.blockedAndAwaiting)
        defer { db.close() }
        try await db.execute("CREATE TABLE t(a INTEGER)").get()
        for expected in 1...100 {
            // Not awaited: queued first, so the awaited count below must see it.
            let insert = db.execute("INSERT INTO t VALUES (?)", [expected])
            #expect(try await db.scalar(Int.self, "SELECT count(*) FROM t").get() == expected)
            try await insert.get()
        }
    }

    @Test func cancellingTheAwaitingTaskInterruptsAQueryItRuns() async throws {
        let db = database(.blockedAndAwaiting)
        defer { db.close() }
        let runaway = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10000000000) SELECT count(*) FROM c"
        for _ in 0..<3 {
            let task = Task { try await db.scalar(Int.self, runaway).get() }
            try await Task.sleep(for: .milliseconds(50))
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.value }
        }
        #expect(try await db.scalar(Int.self, "SELECT 1").get() == 1)
    }
}
