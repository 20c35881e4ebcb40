// Instructions and heap allocations per row of PromiseSQLite beside the same work done with
// plain sqlite3 calls, for Benchmarks/sqlite-counts.sh to run under valgrind. Wall time on
// this shared machine moves by a third between runs; instruction counts do not.
//
//   PromiseSQLiteCounts <workload>/<candidate> <N> [DIRECTORY]
//   PromiseSQLiteCounts --list
//
// Every run prepares the same fixture (a 20 000-row table written with raw C), then does N
// operations. The program is synchronous (`awaitPromise`): valgrind crashes on a top-level
// `await` here. sqlite-counts.sh runs two values of N and divides the difference, so start-up and
// fixture cancel out.
import Glibc
import PromiseCore
import PromiseSQLite
import RawSQLite

struct Item: Decodable, Sendable {
    let id: Int
    let name: String
    let score: Double
}

let fixtureRows = 20_000
let schema = "DROP TABLE IF EXISTS items; CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score REAL NOT NULL)"
let insertSQL = "INSERT INTO items(id, name, score) VALUES (?, ?, ?)"
let pointSQL = "SELECT name FROM items WHERE id = ?"
let scanSQL = "SELECT id, name, score FROM items LIMIT ?"
func pointID(_ i: Int) -> Int { (i * 7919) % fixtureRows + 1 }

/// Opens the database at `path` with the defaults, without polling: valgrind runs one thread at a time, so a thread that polls
/// would spin for its whole time slice and its checks would swamp the counts. What is counted
/// is the work itself; Benchmarks/README.md has what polling saves in wall time.
func openDatabase(_ path: String) throws -> SQLiteDatabase {
    var configuration = SQLiteConfiguration()
    configuration.pollBeforeSleeping = .zero
    return try awaitPromise(SQLiteDatabase.open(path: path, configuration: configuration))
}

/// Each variant: what it does with `count` operations (inserts, point queries or rows read).
/// Inserts rows 1 through `count` in one transaction, each with `insert`.
func insertInTransaction(_ path: String, _ count: Int, _ insert: @escaping @Sendable (SQLiteConnection, Int) throws -> Void) throws -> Int {
    let db = try openDatabase(path)
    try awaitPromise(db.executeScript(schema))
    try awaitPromise(
        db.transaction { db in
            for i in stride(from: 1, through: count, by: 1) { try insert(db, i) }
        })
    try awaitPromise(db.close())
    return count
}

/// Queries `count` point rows one at a time, waiting for each with `awaitPromise`; the values
/// are bound with `binding:` or in an array literal.
func awaitEachPoint(_ path: String, _ count: Int, binding: Bool) throws -> Int {
    let db = try openDatabase(path)
    var sum = 0
    for i in 0..<count {
        let query = binding ? db.scalar(String.self, pointSQL, binding: pointID(i)) : db.scalar(String.self, pointSQL, [pointID(i)])
        sum &+= try awaitPromise(query)?.utf8.count ?? 0
    }
    try awaitPromise(db.close())
    return sum
}

let variants: [(name: String, run: @Sendable (_ path: String, _ count: Int) throws -> Int)] = [
    (
        "insert/raw",
        { path, count in
            let db = raw_open(path)!
            defer { raw_close(db) }
            precondition(raw_exec(db, schema) == 0)
            return Int(raw_insert(db, Int32(count)))
        }
    ),
    ("insert/promise", { path, count in try insertInTransaction(path, count) { try $0.execute(insertSQL, [$1, "name \($1)", Double($1) * 0.5]) } }),
    (
        "insert/promise-binding",
        { path, count in try insertInTransaction(path, count) { try $0.execute(insertSQL, binding: $1, "name \($1)", Double($1) * 0.5) } }
    ),
    (
        "point/raw",
        { path, count in
            let db = raw_open(path)!
            defer { raw_close(db) }
            return Int(raw_point_queries(db, Int32(count), Int32(fixtureRows)))
        }
    ),
    (
        "point/promise-read",
        { path, count in
            let db = try openDatabase(path)
            let sum = try awaitPromise(
                db.readWithoutTransaction { db in
                    var sum = 0
                    for i in 0..<count { sum &+= try db.scalar(String.self, pointSQL, [pointID(i)])?.utf8.count ?? 0 }
                    return sum
                })
            try awaitPromise(db.close())
            return sum
        }
    ),
    ("point/promise-awaited", { path, count in try awaitEachPoint(path, count, binding: false) }),
    ("point/promise-awaited-binding", { path, count in try awaitEachPoint(path, count, binding: true) }),
    (
        "scan/raw",
        { path, count in
            let db = raw_open(path)!
            defer { raw_close(db) }
            return Int(raw_scan_limit(db, Int32(count)))
        }
    ),
    (
        "scan/promise-decodable",
        { path, count in
            let db = try openDatabase(path)
            let items = try awaitPromise(db.query(Item.self, scanSQL, [count]))
            try awaitPromise(db.close())
            return items.count
        }
    ),
    (
        "scan/promise-rows",
        { path, count in
            let db = try openDatabase(path)
            let rows = try awaitPromise(db.query(scanSQL, [count]))
            let items = try rows.map { Item(id: try $0.get(0), name: try $0.get(1), score: try $0.get(2)) }
            try awaitPromise(db.close())
            return items.count
        }
    ),
]

let arguments = CommandLine.arguments
if arguments.count == 2, arguments[1] == "--list" {
    for variant in variants { print(variant.name) }
    exit(0)
}
guard arguments.count >= 3, let variant = variants.first(where: { $0.name == arguments[1] }), let count = Int(arguments[2]) else {
    print("usage: PromiseSQLiteCounts <workload>/<candidate> <N> [DIRECTORY] | --list")
    exit(2)
}
let directory = arguments.count > 3 ? arguments[3] : "/tmp"
let path = "\(directory)/counts-\(getpid()).sqlite"
unlink(path)
do {
    let db = raw_open(path)!
    precondition(raw_exec(db, schema) == 0)
    precondition(raw_insert(db, Int32(fixtureRows)) == fixtureRows)
    raw_close(db)
}
let checksum = try variant.run(path, count)
unlink(path)
unlink(path + "-journal")
print("\(variant.name) \(count): checksum \(checksum)")
