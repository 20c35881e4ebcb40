// What a running observation of a query costs, PromiseSQLite's SQLiteValueObservation beside
// GRDB 7's ValueObservation, in one process run, interleaved round by round:
// - the time of 100 000 inserts in transactions of 100, with no observation and with one
//   observing the last row written (`max(id)` and its value, a cheap read) whose consumer takes
//   every value;
// - the latency from the start of a one-row write to the consumer holding the value that
//   includes it, over 1 000 writes one after another (median and 99th percentile).
//
//   swift run -c release SQLiteObservationBench [DIRECTORY] [ROUNDS]
//
// Both libraries use one connection on a file in the same directory, with SQLite's defaults
// (rollback journal, synchronous FULL); GRDB's queue is a DatabaseQueue, ours an SQLiteDatabase.
import GRDB
import Glibc
import PromiseSQLite

let arguments = CommandLine.arguments
let directory = arguments.count > 1 ? arguments[1] : "/tmp"
let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 3 : 3
let transactions = 1_000
let rowsPerTransaction = 100
let latencyWrites = 1_000
let schema = "CREATE TABLE items(id INTEGER PRIMARY KEY, v INTEGER NOT NULL)"
let insertSQL = "INSERT INTO items(v) VALUES (?)"
/// Cheap to run (the last rowid and its value), so the cost measured is the observation's own.
let summarySQL = "SELECT coalesce(max(id), 0) AS count, coalesce((SELECT v FROM items ORDER BY id DESC LIMIT 1), 0) AS total FROM items"

struct Summary: Decodable, Equatable, Sendable {
    let count: Int
    let total: Int
}

func fresh(_ name: String) -> String {
    let path = "\(directory)/\(name).sqlite"
    for suffix in ["", "-journal", "-wal", "-shm"] { unlink(path + suffix) }
    return path
}

func measure(_ body: () async throws -> Void) async throws -> Duration {
    let start = ContinuousClock.now
    try await body()
    return ContinuousClock.now - start
}

// MARK: PromiseSQLite

func promiseOpen(_ name: String) async throws -> SQLiteDatabase {
    let db = try await SQLiteDatabase.open(path: fresh(name)).get()
    try await db.execute(schema).get()
    return db
}

func promiseObservation() -> SQLiteValueObservation<Summary> {
    SQLiteValueObservation { connection in
        try connection.queryFirst(Summary.self, summarySQL) ?? Summary(count: 0, total: 0)
    }
}

func promiseInserts(_ db: SQLiteDatabase) async throws {
    for transaction in 0..<transactions {
        try await db.transaction { db in
            for row in 0..<rowsPerTransaction { try db.execute(insertSQL, [transaction * rowsPerTransaction + row]) }
        }.get()
    }
}

// MARK: GRDB

func grdbOpen(_ name: String) throws -> DatabaseQueue {
    let queue = try DatabaseQueue(path: fresh(name))
    try queue.write { try $0.execute(sql: schema) }
    return queue
}

func grdbObservation() -> ValueObservation<ValueReducers.Fetch<Summary>> {
    ValueObservation.tracking { db in
        guard let row = try Row.fetchOne(db, sql: summarySQL) else { return Summary(count: 0, total: 0) }
        return Summary(count: row["count"], total: row["total"])
    }
}

func grdbInserts(_ queue: DatabaseQueue) async throws {
    for transaction in 0..<transactions {
        try await queue.write { db in
            for row in 0..<rowsPerTransaction {
                try db.execute(sql: insertSQL, arguments: [transaction * rowsPerTransaction + row])
            }
        }
    }
}

// MARK: Either library

/// `inserts` while a consumer of `values` takes every value; how many it took.
func insertsObserved<Values: AsyncSequence & Sendable>(
    _ values: Values, _ inserts: @Sendable () async throws -> Void
) async throws -> Int where Values.Element == Summary {
    let consumer = Task {
        var taken = 0
        for try await summary in values {
            taken += 1
            if summary.count == transactions * rowsPerTransaction { break }
        }
        return taken
    }
    try await inserts()
    return try await consumer.value
}

/// For each of `latencyWrites` writes, the time from its start until `values` gives a value
/// that includes it.
func latencies<Values: AsyncSequence>(
    _ values: Values, write: @Sendable (Int) async throws -> Void
) async throws -> [Duration] where Values.Element == Summary {
    var iterator = values.makeAsyncIterator()
    _ = try await iterator.next()
    var latencies: [Duration] = []
    for written in 1...latencyWrites {
        let start = ContinuousClock.now
        try await write(written)
        while let summary = try await iterator.next(), summary.count < written {}
        latencies.append(ContinuousClock.now - start)
    }
    return latencies
}

// MARK: Rounds

func median(_ values: [Duration]) -> Duration { values.sorted()[values.count / 2] }
func percentile99(_ values: [Duration]) -> Duration { values.sorted()[min(values.count - 1, values.count * 99 / 100)] }
func ms(_ duration: Duration) -> String {
    let value = Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
    return String(format: "%.1f ms", value)
}
func us(_ duration: Duration) -> String {
    let value = Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12
    return String(format: "%.0f µs", value)
}

var plain: [String: [Duration]] = [:]
var observed: [String: [Duration]] = [:]
var taken: [String: [Int]] = [:]
var latency: [String: [Duration]] = [:]

for round in 1...rounds {
    progress("round \(round) of \(rounds)")
    do {
        let db = try await promiseOpen("promise-plain")
        plain["PromiseSQLite", default: []].append(try await measure { try await promiseInserts(db) })
        try await db.close().get()
    }
    do {
        let queue = try grdbOpen("grdb-plain")
        plain["GRDB 7", default: []].append(try await measure { try await grdbInserts(queue) })
        try queue.close()
    }
    do {
        let db = try await promiseOpen("promise-observed")
        var count = 0
        observed["PromiseSQLite", default: []].append(
            try await measure { count = try await insertsObserved(promiseObservation().values(in: db)) { try await promiseInserts(db) } })
        taken["PromiseSQLite", default: []].append(count)
        try await db.close().get()
    }
    do {
        let queue = try grdbOpen("grdb-observed")
        var count = 0
        observed["GRDB 7", default: []].append(
            try await measure { count = try await insertsObserved(grdbObservation().values(in: queue)) { try await grdbInserts(queue) } })
        taken["GRDB 7", default: []].append(count)
        try queue.close()
    }
    do {
        let db = try await promiseOpen("promise-latency")
        latency["PromiseSQLite", default: []] += try await latencies(promiseObservation().values(in: db)) { written in
            try await db.execute(insertSQL, [written]).get()
        }
        try await db.close().get()
    }
    do {
        let queue = try grdbOpen("grdb-latency")
        latency["GRDB 7", default: []] += try await latencies(grdbObservation().values(in: queue)) { written in
            try await queue.write { try $0.execute(sql: insertSQL, arguments: [written]) }
        }
        try queue.close()
    }
}
for name in ["promise-plain", "grdb-plain", "promise-observed", "grdb-observed", "promise-latency", "grdb-latency"] {
    _ = fresh(name)
}

print(
    "| \(transactions * rowsPerTransaction) inserts, \(rowsPerTransaction) a transaction | no observation | observed | cost of the observation | values taken |"
)
print("|--|--:|--:|--:|--:|")
for name in ["PromiseSQLite", "GRDB 7"] {
    let without = median(plain[name]!)
    let with = median(observed[name]!)
    let ratio =
        Double(with.components.attoseconds / 1_000_000_000 + with.components.seconds * 1_000_000_000)
        / Double(without.components.attoseconds / 1_000_000_000 + without.components.seconds * 1_000_000_000)
    let values = taken[name]!.sorted()[taken[name]!.count / 2]
    print("| \(name) | \(ms(without)) | \(ms(with)) | \(String(format: "%+.1f %%", (ratio - 1) * 100)) | \(values) |")
}
print()
print("| commit to new value, \(latencyWrites) writes x \(rounds) rounds | median | 99th percentile |")
print("|--|--:|--:|")
for name in ["PromiseSQLite", "GRDB 7"] {
    print("| \(name) | \(us(median(latency[name]!))) | \(us(percentile99(latency[name]!))) |")
}

/// Writes `text` and a newline to standard error.
func progress(_ text: String) {
    let line = Array((text + "\n").utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}
