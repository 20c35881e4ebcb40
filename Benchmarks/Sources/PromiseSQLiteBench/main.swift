// PromiseSQLite beside raw C sqlite3 calls and vapor/sqlite-nio, doing the same work in one
// process run, interleaved round by round. Prints medians (min-max) and ratios.
//
//   swift run -c release PromiseSQLiteBench [DIRECTORY] [ROUNDS] [SCALE]
//
// SCALE 1 is the sizes: 100 000 inserts, 100 000 point queries, 1 000 000 rows scanned.
// sqlite-nio bundles its own SQLite (3.53 with its build options); PromiseSQLite and raw C use
// the system's 3.40.1. Both connections use synchronous FULL and a rollback journal.
import Glibc
import NIOCore
import NIOPosix
import PromiseSQLite
import RawSQLite
import SQLiteNIO

let arguments = CommandLine.arguments
let directory = arguments.count > 1 ? arguments[1] : "/tmp"
let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 5 : 5
let scale = arguments.count > 3 ? Double(arguments[3]) ?? 1 : 1
/// Which workloads to run: `insert,point,scan,durability` (the default) or a subset.
let selected = Set((arguments.count > 4 ? arguments[4] : "insert,point,scan,durability").split(separator: ",").map(String.init))
let inserts = Int(100_000 * scale)
let points = Int(100_000 * scale)
let pointRows = 100_000
let scanRows = Int(1_000_000 * scale)

struct Item: Decodable, Sendable {
    let id: Int
    let name: String
    let score: Double
}

let schema = "DROP TABLE IF EXISTS items; CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score REAL NOT NULL)"
let insertSQL = "INSERT INTO items(id, name, score) VALUES (?, ?, ?)"
let pointSQL = "SELECT name FROM items WHERE id = ?"
let scanSQL = "SELECT id, name, score FROM items"
func pointID(_ i: Int) -> Int { (i * 7919) % pointRows + 1 }

func rawOpen(_ path: String) -> UnsafeMutableRawPointer {
    guard let db = raw_open(path) else { fatalError("cannot open \(path)") }
    return db
}

/// A file with `rows` items, written with raw C (setup, not measured).
func prepareFile(_ name: String, rows: Int) -> String {
    let path = "\(directory)/\(name)"
    unlink(path)
    let db = rawOpen(path)
    precondition(raw_exec(db, schema) == 0)
    precondition(raw_insert(db, Int32(rows)) == rows)
    raw_close(db)
    return path
}

func measure(_ body: () async throws -> Void) async throws -> Duration {
    let start = ContinuousClock.now
    try await body()
    return ContinuousClock.now - start
}

var results: [String: [String: [Duration]]] = [:]
var order: [(workload: String, candidates: [String])] = []
@MainActor func record(_ workload: String, _ candidate: String, _ time: Duration) {
    if results[workload] == nil { order.append((workload, [])); results[workload] = [:] }
    if results[workload]![candidate] == nil {
        let index = order.firstIndex { $0.workload == workload }!
        order[index].candidates.append(candidate)
    }
    results[workload]![candidate, default: []].append(time)
}

let group = MultiThreadedEventLoopGroup.singleton
let pool = NIOThreadPool.singleton

// Files: one per candidate for inserts, shared read-only files for the reads.
let insertPaths = ["raw", "promise", "promise-each", "nio"].reduce(into: [String: String]()) { $0[$1] = "\(directory)/insert-\($1).sqlite" }
for path in insertPaths.values { unlink(path) }
let pointsPath = prepareFile("points.sqlite", rows: pointRows)
let scanPath = prepareFile("scan.sqlite", rows: scanRows)

let rawInsertDB = rawOpen(insertPaths["raw"]!)
let rawPointsDB = rawOpen(pointsPath)
let rawScanDB = rawOpen(scanPath)
let promiseInsertDB = try await SQLiteDatabase.open(path: insertPaths["promise"]!).get()
let promiseEachDB = try await SQLiteDatabase.open(path: insertPaths["promise-each"]!).get()
let promisePointsDB = try await SQLiteDatabase.open(path: pointsPath).get()
let promisePointsInTaskDB = try await SQLiteDatabase.open(
    path: pointsPath,
    configuration: {
        var configuration = SQLiteConfiguration()
        configuration.operationsOnWaitingThreads = .blockedAndAwaiting
        return configuration
    }()
).get()
let promiseScanDB = try await SQLiteDatabase.open(path: scanPath).get()
let nioInsertDB: SQLiteNIO.SQLiteConnection = try await SQLiteNIO.SQLiteConnection.open(
    storage: .file(path: insertPaths["nio"]!), threadPool: pool, on: group.any())
let nioPointsDB: SQLiteNIO.SQLiteConnection = try await SQLiteNIO.SQLiteConnection.open(storage: .file(path: pointsPath), threadPool: pool, on: group.any())
let nioScanDB: SQLiteNIO.SQLiteConnection = try await SQLiteNIO.SQLiteConnection.open(storage: .file(path: scanPath), threadPool: pool, on: group.any())
for statement in ["PRAGMA synchronous = FULL", "PRAGMA journal_mode = DELETE"] {
    for connection in [nioInsertDB, nioPointsDB, nioScanDB] { let _: [SQLiteNIO.SQLiteRow] = try await connection.query(statement, []) }
}

var checksum = 0
for round in 0..<rounds {
    FileHandleless.log("round \(round + 1)/\(rounds)")

    // 1. Inserts in one transaction.
    if selected.contains("insert-transaction") {
        // Profiling aid: the transaction candidate alone.
        try await promiseInsertDB.executeScript(schema).get()
        let count = inserts
        record(
            "\(inserts) inserts, one transaction", "PromiseSQLite transaction { }",
            try await measure {
                try await promiseInsertDB.transaction { db in
                    for i in 1...count { try db.execute(insertSQL, [i, "name \(i)", Double(i) * 0.5]) }
                }.get()
            })
    }
    if selected.contains("insert") {
        precondition(raw_exec(rawInsertDB, schema) == 0)
        record(
            "\(inserts) inserts, one transaction", "raw C",
            try await measure {
                checksum &+= Int(raw_insert(rawInsertDB, Int32(inserts)))
            })
        typealias Insert = @Sendable (PromiseSQLite.SQLiteConnection, Int) throws -> SQLiteChanges
        let withArray: Insert = { db, i in try db.execute(insertSQL, [i, "name \(i)", Double(i) * 0.5]) }
        let withBinding: Insert = { db, i in try db.execute(insertSQL, binding: i, "name \(i)", Double(i) * 0.5) }
        for (candidate, insert) in [("PromiseSQLite transaction { }", withArray), ("PromiseSQLite transaction { }, `binding:`", withBinding)] {
            try await promiseInsertDB.executeScript(schema).get()
            record(
                "\(inserts) inserts, one transaction", candidate,
                try await measure {
                    let count = inserts
                    try await promiseInsertDB.transaction { db in
                        for i in 1...count { _ = try insert(db, i) }
                    }.get()
                })
        }
        try await promiseEachDB.executeScript(schema).get()
        record(
            "\(inserts) inserts, one transaction", "PromiseSQLite, a promise per insert",
            try await measure {
                try await promiseEachDB.execute("BEGIN IMMEDIATE").get()
                let each = (1...inserts).map { promiseEachDB.execute(insertSQL, [$0, "name \($0)", Double($0) * 0.5]) }
                try await all(each).get()
                try await promiseEachDB.execute("COMMIT").get()
            })
        for statement in schema.split(separator: ";") { let _: [SQLiteNIO.SQLiteRow] = try await nioInsertDB.query(String(statement), []) }
        record(
            "\(inserts) inserts, one transaction", "sqlite-nio, awaiting each",
            try await measure {
                let _: [SQLiteNIO.SQLiteRow] = try await nioInsertDB.query("BEGIN IMMEDIATE", [])
                for i in 1...inserts {
                    let _: [SQLiteNIO.SQLiteRow] = try await nioInsertDB.query(insertSQL, [.integer(i), .text("name \(i)"), .float(Double(i) * 0.5)])
                }
                let _: [SQLiteNIO.SQLiteRow] = try await nioInsertDB.query("COMMIT", [])
            })

    }

    // 2. Point queries by primary key.
    if selected.contains("point") {
        let w2 = "\(points) point queries"
        record(
            w2, "raw C",
            try await measure {
                checksum &+= Int(raw_point_queries(rawPointsDB, Int32(points), Int32(pointRows)))
            })
        record(
            w2, "PromiseSQLite, awaiting each",
            try await measure {
                for i in 0..<points {
                    checksum &+= try await promisePointsDB.scalar(String.self, pointSQL, [pointID(i)]).get()?.utf8.count ?? 0
                }
            })
        record(
            w2, "PromiseSQLite, awaiting each, run in the awaiting task",
            try await measure {
                for i in 0..<points {
                    checksum &+= try await promisePointsInTaskDB.scalar(String.self, pointSQL, [pointID(i)]).get()?.utf8.count ?? 0
                }
            })
        record(
            w2, "PromiseSQLite, all issued at once",
            try await measure {
                let names = try await all((0..<points).map { promisePointsDB.scalar(String.self, pointSQL, [pointID($0)]) }).get()
                checksum &+= names.count
            })
        record(
            w2, "PromiseSQLite, batches of 1000 in read { }",
            try await measure {
                let batches = stride(from: 0, to: points, by: 1000).map { start in
                    promisePointsDB.read { db in
                        var sum = 0
                        for i in start..<min(start + 1000, points) {
                            sum &+= try db.scalar(String.self, pointSQL, [pointID(i)])?.utf8.count ?? 0
                        }
                        return sum
                    }
                }
                checksum &+= try await all(batches).get().reduce(0, &+)
            })
        record(
            w2, "sqlite-nio, awaiting each",
            try await measure {
                for i in 0..<points {
                    let rows = try await nioPointsDB.query(pointSQL, [.integer(pointID(i))])
                    checksum &+= rows.first?.column("name")?.string?.utf8.count ?? 0
                }
            })
        record(
            w2, "sqlite-nio, all issued at once",
            try await measure {
                let futures = (0..<points).map { nioPointsDB.query(pointSQL, [.integer(pointID($0))]) as EventLoopFuture<[SQLiteNIO.SQLiteRow]> }
                checksum &+= try await EventLoopFuture.whenAllSucceed(futures, on: group.any()).get().count
            })

    }

    // 3. A full scan decoded into structs.
    if selected.contains("scan") {
        let w3 = "\(scanRows) rows decoded"
        record(
            w3, "raw C",
            try await measure {
                checksum &+= Int(raw_scan(rawScanDB))
            })
        record(
            w3, "PromiseSQLite query(Item.self) (Decodable)",
            try await measure {
                let items = try await promiseScanDB.query(Item.self, scanSQL).get()
                checksum &+= items.count
            })
        record(
            w3, "PromiseSQLite query() rows, then get(_:as:)",
            try await measure {
                let rows = try await promiseScanDB.query(scanSQL).get()
                let items = try rows.map { Item(id: try $0.get(0), name: try $0.get(1), score: try $0.get(2)) }
                checksum &+= items.count
            })
        record(
            w3, "sqlite-nio query() rows, then column(_:)",
            try await measure {
                let rows = try await nioScanDB.query(scanSQL, [])
                let items = rows.map { Item(id: $0.column("id")?.integer ?? 0, name: $0.column("name")?.string ?? "", score: $0.column("score")?.double ?? 0) }
                checksum &+= items.count
            })
    }
}

// 4. What durability costs: 1 000 single-row transactions (autocommit inserts), each committed
// before the next starts, under each journal mode and synchronous level. No baseline: this is
// the table behind the Durability article.
if selected.contains("durability") {
    let commits = 1_000
    let settings: [(String, SQLiteConfiguration.JournalMode, SQLiteConfiguration.Synchronous)] = [
        ("DELETE journal, synchronous FULL (default)", .delete, .full),
        ("WAL, synchronous FULL", .wal, .full),
        ("WAL, synchronous NORMAL", .wal, .normal),
        ("DELETE journal, synchronous OFF", .delete, .off),
    ]
    for _ in 0..<rounds {
        for (label, mode, synchronous) in settings {
            let path = "\(directory)/durability.sqlite"
            for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
            var configuration = SQLiteConfiguration()
            configuration.journalMode = mode
            configuration.synchronous = synchronous
            let db = try await SQLiteDatabase.open(path: path, configuration: configuration).get()
            try await db.executeScript(schema).get()
            record(
                "\(commits) commits of one insert each", label,
                try await measure {
                    for i in 1...commits {
                        try await db.execute(insertSQL, [i, "name \(i)", Double(i)]).get()
                    }
                })
            try await db.close().get()
            for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
        }
    }
}

try await nioInsertDB.close().get()
try await nioPointsDB.close().get()
try await nioScanDB.close().get()
for db in [promiseInsertDB, promiseEachDB, promisePointsDB, promisePointsInTaskDB, promiseScanDB] { try await db.close().get() }
for db in [rawInsertDB, rawPointsDB, rawScanDB] { raw_close(db) }
for path in Array(insertPaths.values) + [pointsPath, scanPath] { unlink(path) }

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

print("SQLite \(String(cString: sqlite3_libversion_for_bench())) (PromiseSQLite, raw C); \(rounds) rounds; checksum \(checksum & 0xff)")
print("")
print("| workload | candidate | median ms | min–max ms | raw C time / candidate time | per second |")
print("|---|---|---|---|---|---|")
for (workload, candidates) in order {
    let rawMedian = results[workload]!["raw C"].map { $0.sorted()[$0.count / 2] }
    for candidate in candidates {
        let times = results[workload]![candidate]!.sorted()
        let median = times[times.count / 2]
        let ratio = rawMedian.map { String(format2(milliseconds($0) / milliseconds(median))) } ?? "—"
        let operations = Double(workload.prefix { $0.isNumber }) ?? 0
        let rate = Int(operations / (milliseconds(median) / 1000))
        print(
            "| \(workload) | \(candidate) | \(format1(milliseconds(median))) | \(format1(milliseconds(times.first!)))–\(format1(milliseconds(times.last!))) | \(ratio) | \(rate) |"
        )
    }
}

func format1(_ value: Double) -> String { String(Double(Int(value * 10 + 0.5)) / 10) }
func format2(_ value: Double) -> String { String(Double(Int(value * 100 + 0.5)) / 100) }

enum FileHandleless {
    static func log(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
}
