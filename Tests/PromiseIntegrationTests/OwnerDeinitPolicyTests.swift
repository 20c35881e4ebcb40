import Foundation
import PromiseCore
import PromiseCurl
import PromiseCurlTesting
@testable import PromiseFS
import PromiseSQLite
import PromiseTestSupport
@testable import PromiseUV
import Testing

/// The one deinit policy of the owner types (`DroppedOwner` in PromiseCore), checked for every
/// one: an owner deallocated without `shutdown()` or `close()` while it owes promises settles
/// every one of them as that call would have (rejected with its product's `shutdown` code, or
/// run to completion where the call lets queued work finish), reports what was lost as a
/// `notShutDown` diagnostic naming it (and reports nothing when nothing was lost), and ends
/// its threads and frees what it held.
@Suite struct OwnerDeinitPolicyTests {
    @Test(arguments: Owner.allCases)
    func anOwnerDroppedWithoutShutdownSettlesWhatItOwedReportsTheLossAndEndsItsThreads(_ owner: Owner) async throws {
        NotShutDownRecorder.install
        let directory = try TemporaryFolder()
        defer { directory.remove() }
        let start = NotShutDownRecorder.count
        let dropped = try await owner.dropWhileOwing(in: directory)

        for owed in dropped.owed {
            // Bounded: a promise left pending forever fails here instead of hanging the run.
            let settled = try await eventually(.seconds(15)) { owed.isSettled() }
            #expect(settled, "\(owner): \(owed.what) still pending")
            guard settled else { continue }
            let result = await owed.result()
            switch (owed.expected, result) {
            case (.fulfilled, .success): break
            case (.rejected(let matches), .failure(let error)):
                #expect(matches(error), "\(owner): \(owed.what) rejected with \(error)")
            default:
                Issue.record("\(owner): \(owed.what) settled with \(result), expected \(owed.expected)")
            }
        }
        if let loss = dropped.loss {
            #expect(try await eventually(.seconds(15)) { !NotShutDownRecorder.reports(mentioning: dropped.marker, from: start).isEmpty })
            let reports = NotShutDownRecorder.reports(mentioning: dropped.marker, from: start)
            #expect(reports.count == 1, "\(owner): \(reports)")
            #expect(reports.allSatisfy { $0.contains(" \(owner.typeName) (") && $0.contains(loss) }, "\(owner): \(reports)")
        } else {
            #expect(NotShutDownRecorder.reports(mentioning: dropped.marker, from: start).isEmpty, "\(owner) lost nothing, so reports nothing")
        }
        for name in dropped.threads {
            #expect(try await eventually(.seconds(15)) { !threadNames().contains(name) }, "\(owner): thread \(name) still runs")
        }
        if let freed = dropped.freed {
            #expect(try await eventually(.seconds(15)) { freed() }, "\(owner): still allocated")
        }
    }

    /// Every public class with a `shutdown()` or `close()` returning a promise is an owner, is
    /// enumerated in ``Owner``, and goes through `DroppedOwner` in its `deinit`, so a new owner
    /// cannot miss the policy.
    @Test func everyOwnerTypeIsEnumeratedAndFollowsThePolicy() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources")
        var owners: [String: String] = [:]
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: sources.appendingPathComponent(file).path, encoding: .utf8)
            guard text.contains("public func shutdown() -> Promise<Void>") || text.contains("public func close() -> Promise<Void>"),
                let range = text.range(of: #"public final class (\w+)"#, options: .regularExpression)
            else { continue }
            let name = text[range].split(separator: " ").last.map(String.init) ?? ""
            owners[name] = text
        }
        #expect(Set(owners.keys) == Set(Owner.allCases.map(\.typeName)), "owner types in Sources vs. the ones enumerated here")
        for (name, text) in owners where name != "SQLiteDatabasePool" {
            #expect(text.contains("deinit {") && text.contains("DroppedOwner"), "\(name)'s deinit does not go through DroppedOwner")
        }
        // A pool owns no thread of its own: its connections, each an SQLiteDatabase, close
        // themselves when the pool releases them.
        #expect(owners["SQLiteDatabasePool"]?.contains("deinit {") == false)
    }
}

/// Each owner type, and for `UVLoop` each way a loop can be run when it is dropped.
enum Owner: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case curlClient
    case scriptedCurlClient
    case sqliteDatabase
    case sqliteDatabasePool
    case fileIOPool
    case fsFile
    /// A loop that no thread runs: the deallocating thread closes it.
    case uvLoop
    /// A loop run by the thread `startThread(named:)` started: that thread closes it.
    case uvLoopOnItsThread

    var testDescription: String { rawValue }

    /// The public type's name.
    var typeName: String {
        switch self {
        case .curlClient: "CurlClient"
        case .scriptedCurlClient: "ScriptedCurlClient"
        case .sqliteDatabase: "SQLiteDatabase"
        case .sqliteDatabasePool: "SQLiteDatabasePool"
        case .fileIOPool: "FileIOPool"
        case .fsFile: "FSFile"
        case .uvLoop, .uvLoopOnItsThread: "UVLoop"
        }
    }

    /// Makes an owner, gives it work, and drops it (the owner is a local of this function, so
    /// it is deallocated by the time it returns, or by its last queued job).
    func dropWhileOwing(in directory: TemporaryFolder) async throws -> Dropped {
        let name = uniqueThreadName()
        switch self {
        case .curlClient:
            var configuration = CurlConfiguration()
            configuration.threadName = name
            let request: Promise<CurlResponse>
            do {
                let client = try CurlClient(configuration: configuration)
                // A server that never answers: however long this task waits for a thread to run
                // it, the request is still in flight when the client is dropped.
                request = client.get(TestServer.faults.url("/never"))
                #expect(try await eventually { threadNames().contains(name) })
            }
            return Dropped(
                owed: [Owed("the request in flight", request, .rejected { ($0 as? CurlError)?.code == .shutdown })],
                marker: name, loss: "1 request in flight was rejected with shutdown", threads: [name])

        case .scriptedCurlClient:
            let url = "https://dropped.example/\(name)"
            weak var weakClient: ScriptedCurlClient?
            let request: Promise<CurlResponse>
            do {
                let http = ScriptedCurlClient()
                weakClient = http
                http.reply(to: url, with: .never)
                request = http.get(url)
            }
            return Dropped(
                owed: [Owed("the unanswered request", request, .rejected { ($0 as? CurlError)?.code == .shutdown })],
                marker: url, loss: "1 unanswered request was rejected with shutdown", freed: { weakClient == nil })

        case .sqliteDatabase:
            var configuration = SQLiteConfiguration()
            configuration.threadName = name
            let path = directory.path("dropped.sqlite")
            let queued: Promise<Int?>
            do {
                let db = SQLiteDatabase(path: path, configuration: configuration)
                _ = db.execute("CREATE TABLE t(n)")
                queued = db.scalar(Int.self, "SELECT count(*) FROM t")
            }
            // close() lets queued work finish: the query runs and nothing is lost.
            return Dropped(owed: [Owed("the queued query", queued, .fulfilled)], marker: path, loss: nil, threads: [name])

        case .sqliteDatabasePool:
            var configuration = SQLiteConfiguration()
            configuration.threadName = name
            let path = directory.path("pool.sqlite")
            let queued = try await Self.queueOnPool(path: path, configuration: configuration)
            return Dropped(owed: [Owed("the queued query", queued, .fulfilled)], marker: path, loss: nil, threads: [name, name + "-r"])

        case .fileIOPool:
            let path = directory.path("pooled.txt")
            try Data("hello".utf8).write(to: URL(fileURLWithPath: path))
            weak var weakThreads: PoolThreads?
            let job: Promise<[UInt8]>
            do {
                let pool = try FileIOPool(threads: 2, queueLimit: 8, threadName: name)
                weakThreads = pool.threads
                job = PromiseFileSystem(pool: pool).readFile(path)
                #expect(try await eventually { threadNames().contains(name) })
            }
            // shutdown() lets queued jobs finish: the job runs and nothing is lost.
            return Dropped(owed: [Owed("the queued job", job, .fulfilled)], marker: name, loss: nil, threads: [name], freed: { weakThreads == nil })

        case .fsFile:
            let path = directory.path("dropped.txt")
            try Data("hello".utf8).write(to: URL(fileURLWithPath: path))
            let read: Promise<[UInt8]>
            do {
                let file = try await PromiseFileSystem().open(path).get()
                read = file.read(at: 0, count: 5)
            }
            return Dropped(
                owed: [Owed("the queued read", read, .fulfilled)], marker: path, loss: nil,
                freed: { !openDescriptorTargets().contains(path) })

        case .uvLoop, .uvLoopOnItsThread:
            weak var weakCore: LoopCore?
            let timer: Promise<Void>
            let marker: String
            do {
                let loop = try UVLoop()
                weakCore = loop.core
                if self == .uvLoopOnItsThread {
                    try loop.startThread(named: name)
                    marker = "thread '\(name)'"
                    #expect(try await eventually { threadNames().contains(name) })
                } else {
                    marker = loop.core.identity + ", which no thread ran"
                }
                timer = loop.after(.seconds(3600))
            }
            return Dropped(
                owed: [Owed("the pending timer", timer, .rejected { ($0 as? UVError)?.code == .loopClosed })],
                marker: marker, loss: "1 pending timer was rejected with loopClosed",
                threads: self == .uvLoopOnItsThread ? [name] : [], freed: { weakCore == nil })
        }
    }

    /// Opens a pool, queues a query on it and drops it.
    private static func queueOnPool(path: String, configuration: SQLiteConfiguration) async throws -> Promise<Int?> {
        let pool = try await SQLiteDatabasePool.open(path: path, readers: 2, configuration: configuration).get()
        _ = pool.execute("CREATE TABLE t(n)")
        return pool.scalar(Int.self, "SELECT 1")
    }
}

/// What dropping an owner left to check.
struct Dropped {
    /// The promises the owner owed when it was dropped.
    var owed: [Owed]
    /// A text only this owner's report contains.
    var marker: String
    /// What the report must say was lost; `nil` when nothing was, and nothing is reported.
    var loss: String?
    /// Threads that must end.
    var threads: [String] = []
    /// Whether what the owner held is freed.
    var freed: (() -> Bool)?
}

/// A promise an owner owed, and how the policy settles it.
struct Owed: Sendable {
    enum Expected: Sendable, CustomStringConvertible {
        case fulfilled
        case rejected(@Sendable (any Error) -> Bool)

        var description: String {
            switch self {
            case .fulfilled: "fulfilled"
            case .rejected: "rejected with the shutdown code"
            }
        }
    }

    let what: String
    let expected: Expected
    let isSettled: @Sendable () -> Bool
    let result: @Sendable () async -> Result<Void, any Error>

    init<T: Sendable>(_ what: String, _ promise: Promise<T>, _ expected: Expected) {
        self.what = what
        self.expected = expected
        isSettled = { !promise.isPending }
        result = {
            do {
                _ = try await promise.get()
                return .success(())
            } catch {
                return .failure(error)
            }
        }
    }
}

/// A fresh directory for one test case.
struct TemporaryFolder: Sendable {
    let root: String

    init() throws {
        root = NSTemporaryDirectory() + "owners-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { root + "/" + name }

    func remove() { try? FileManager.default.removeItem(atPath: root) }
}

/// A thread name no other test uses, within Linux's 15 bytes.
func uniqueThreadName() -> String {
    "own-" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
}

/// What this process's open descriptors point at (`/proc/self/fd/*`).
func openDescriptorTargets() -> Set<String> {
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return Set(descriptors.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") })
}
