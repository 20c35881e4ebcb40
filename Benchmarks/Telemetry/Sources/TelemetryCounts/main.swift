// Instructions and heap allocations per statement and per request, with PromiseSQLite's and
// PromiseCurl's spans and metrics off (the traits off), on with nothing bootstrapped, and on
// with the in-memory backends of swift-distributed-tracing and swift-metrics keeping every span
// and metric. For Benchmarks/telemetry-counts.sh, which runs two values of N and divides the
// difference, so start-up and fixtures cancel out.
//
//   TelemetryCounts <workload>/<mode> <N> <DIRECTORY> [SERVER_JSON]
//   TelemetryCounts --list
//
// Workloads: `point` (a point query, awaited: one job and one statement), `insert` (inserts in
// one transaction: one statement each), `request` (a GET of nginx's /hello, awaited). Modes:
// `off` in the build without the traits; `inactive` and `recorded` in the build with them.
import Foundation
import InMemoryTracing
import MetricsTestKit
import PromiseCurl
import PromiseSQLite

#if TELEMETRY_ON
    import CoreMetrics
    import Tracing
#endif

#if TELEMETRY_ON
    let modes = ["inactive", "recorded"]
#else
    let modes = ["off"]
#endif
let workloads = ["point", "insert", "request"]

let fixtureRows = 20_000
let schema = "DROP TABLE IF EXISTS items; CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score REAL NOT NULL)"
let insertSQL = "INSERT INTO items(id, name, score) VALUES (?, ?, ?)"
let pointSQL = "SELECT name FROM items WHERE id = ?"
func pointID(_ i: Int) -> Int { (i * 7919) % fixtureRows + 1 }

/// The backends of the `recorded` mode, kept alive for the whole run.
let tracer = InMemoryTracer()
let metrics = TestMetrics()

#if TELEMETRY_ON
    /// A configuration that names a tracer and a metrics factory.
    protocol Recordable {
        var tracer: (any Tracer)? { get set }
        var metricsFactory: (any MetricsFactory)? { get set }
    }
    extension SQLiteConfiguration: Recordable {}
    extension CurlConfiguration: Recordable {}

    /// `configuration` with the in-memory backends in the `recorded` mode.
    func forMode<Configuration: Recordable>(_ mode: String, _ configuration: Configuration) -> Configuration {
        var configuration = configuration
        if mode == "recorded" {
            configuration.tracer = tracer
            configuration.metricsFactory = metrics
        }
        return configuration
    }
#else
    /// `configuration` as it is: the traits are off.
    func forMode<Configuration>(_ mode: String, _ configuration: Configuration) -> Configuration { configuration }
#endif

func sqliteConfiguration(_ mode: String) -> SQLiteConfiguration {
    var configuration = SQLiteConfiguration()
    // valgrind runs one thread at a time: a polling thread would spin for its whole time slice.
    configuration.pollBeforeSleeping = .zero
    return forMode(mode, configuration)
}

/// Inserts rows 1 through `count` in one transaction.
func insert(_ db: SQLiteDatabase, _ count: Int) throws {
    try awaitPromise(
        db.transaction { db in
            for i in stride(from: 1, through: count, by: 1) { try db.execute(insertSQL, [i, "name \(i)", Double(i) * 0.5]) }
        })
}

func run(_ workload: String, _ mode: String, _ count: Int, _ directory: String, _ server: String?) throws -> Int {
    switch workload {
    case "point":
        let db = try awaitPromise(SQLiteDatabase.open(path: directory + "/point.sqlite", configuration: sqliteConfiguration(mode)))
        try awaitPromise(db.executeScript(schema))
        try insert(db, fixtureRows)
        var sum = 0
        for i in 0..<count { sum &+= try awaitPromise(db.scalar(String.self, pointSQL, [pointID(i)]))?.utf8.count ?? 0 }
        try awaitPromise(db.close())
        return sum
    case "insert":
        let db = try awaitPromise(SQLiteDatabase.open(path: directory + "/insert.sqlite", configuration: sqliteConfiguration(mode)))
        try awaitPromise(db.executeScript(schema))
        try insert(db, count)
        try awaitPromise(db.close())
        return count
    case "request":
        guard let server, let port = serverPort(server) else { fatalError("request needs the JSON serve.py printed, with an http port") }
        let client = try CurlClient(configuration: forMode(mode, CurlConfiguration()))
        let url = "http://127.0.0.1:\(port)/hello"
        _ = try awaitPromise(client.get(url))  // the connection, outside the count
        var bytes = 0
        for _ in 0..<count { bytes += try awaitPromise(client.get(url)).body.count }
        try awaitPromise(client.shutdown())
        return bytes
    default:
        fatalError("no workload \(workload)")
    }
}

/// The `http` port of serve.py's JSON line.
func serverPort(_ json: String) -> Int? {
    guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else { return nil }
    return object["http"] as? Int
}

let arguments = CommandLine.arguments
if arguments.count == 2, arguments[1] == "--list" {
    for workload in workloads { for mode in modes { print("\(workload)/\(mode)") } }
    exit(0)
}
guard arguments.count >= 4, let count = Int(arguments[2]) else {
    fatalError("usage: TelemetryCounts <workload>/<mode> <N> <DIRECTORY> [SERVER_JSON] | --list")
}
let parts = arguments[1].split(separator: "/").map(String.init)
guard parts.count == 2, workloads.contains(parts[0]), modes.contains(parts[1]) else { fatalError("no variant \(arguments[1]) in this build") }
let result = try run(parts[0], parts[1], count, arguments[3], arguments.count > 4 ? arguments[4] : nil)
print("\(arguments[1]) \(count): \(result)")
