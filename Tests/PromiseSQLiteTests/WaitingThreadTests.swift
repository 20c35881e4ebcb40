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

private func database(_ waitingThreads: SQLiteConfiguration.WaitingThreads, poll: Duration = .microseconds(50)) -> SQLiteDatabase {
    var configuration = SQLiteConfiguration()
    configuration.threadName = connectionThread
    configuration.operationsOnWaitingThreads = waitingThreads
    configuration.pollBeforeSleeping = poll
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

/// Inserts `value` into `t`, waiting in `awaitPromise` (at most 10 seconds).
private func insertBlocking(_ db: SQLiteDatabase, _ value: Int) throws {
    try awaitPromise(db.execute("INSERT INTO t VALUES (?)", [value]), timeout: .seconds(10))
}

// Serialized: these count which thread won a race, which a neighbour keeping both CPUs busy skews.
@Suite(.serialized) struct WaitingThreadTests {
    @Test func aBlockedThreadRunsTheOperationOfAnIdleConnection() throws {
        // Without polling: a polling connection thread takes most operations itself at once.
        let db = database(.blocked, poll: .zero)
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
            let db = database(setting, poll: .zero)
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

    /// Operations posted just before, during and after the connection thread's polling window
    /// (and while a waiting thread runs one) all run: none is left in the mailbox of a thread
    /// that went to sleep without counting as asleep. A lost wake-up fails the timeout.
    @Test(arguments: [
        (SQLiteConfiguration.WaitingThreads.none, Duration.microseconds(50)),
        (.blocked, .microseconds(50)),
        (.blockedAndAwaiting, .microseconds(50)),
        (.blocked, .zero),
    ])
    func operationsPostedAroundThePollingWindowAllRun(waitingThreads: SQLiteConfiguration.WaitingThreads, poll: Duration) async throws {
        let db = database(waitingThreads, poll: poll)
        try await db.execute("CREATE TABLE t(a INTEGER)").get()
        let gaps: [Int] = [0, 5, 20, 40, 48, 52, 60, 100, 400, 2_000]
        var expected = 0
        for round in 0..<6 {
            for gap in gaps {
                if gap > 0 { usleep(UInt32(gap)) }
                expected += 1
                switch round % 3 {
                case 0:
                    // Awaited by a task.
                    try await db.execute("INSERT INTO t VALUES (?)", [expected]).timeout(.seconds(10)).get()
                case 1:
                    // Waited for by a blocked thread.
                    let value = expected
                    try await Task.detached { try insertBlocking(db, value) }.value
                default:
                    // Nobody waits: the connection thread has to find it by itself.
                    let (done, doneResolver) = Promise<Void>.pending()
                    db.execute("INSERT INTO t VALUES (?)", [expected]).then(on: .inline) { _ in doneResolver.fulfill(()) }
                        .catch(on: .inline) { doneResolver.reject($0) }
                    try await done.timeout(.seconds(10)).get()
                }
            }
        }
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM t").get() == expected)
        #expect(try await db.scalar(Int.self, "SELECT sum(a) FROM t").get() == expected * (expected + 1) / 2)
        try await db.close().get()
    }
}
