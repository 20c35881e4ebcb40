// PromiseCurl beside a raw C libcurl multi loop (the ceiling) and AsyncHTTPClient, doing the
// same requests against nginx on loopback in one process run, interleaved round by round.
// Prints requests per second and MB/s as medians (min–max) and the ratios.
//
//   swift run -c release PromiseCurlBench [DIRECTORY] [ROUNDS] [SCALE] [WORKLOADS] [BIG_MIB]
//
// DIRECTORY holds the downloaded files (default /tmp); ROUNDS defaults to 5. SCALE 1 is the
// issue's sizes: 5 000 GETs at concurrency 1 and 20 000 at 16 and 256, and a 256 MiB
// download. WORKLOADS is a comma list of c1, c16, c256, inline, download and stream (all by
// default; `inline` adds the PromiseCurl rows whose callbacks run on the client's thread;
// `stream` reads the big file through a streamed body's consumer, against a C write callback
// that looks at each chunk, and times 1 000 requests to a one-event `text/event-stream` up to
// their first event). BIG_MIB sets the download's size (default 256).
//
// The server is `scripts/testservers/serve.py nginx` (one worker), started here and stopped
// when this process ends. Environment: CURL_BENCH_SERVE overrides the path of serve.py;
// CURL_BENCH_SERVER_CPUS (e.g. `0`) starts it under `taskset -c` so nginx and the clients
// get a CPU each (Benchmarks/curl-ratios.sh does that); CURL_BENCH_ONLY runs some candidates
// alone, for profiling (see Step); CURL_BENCH_SERVER uses a server already running. Only
// 127.0.0.1 is contacted.
import AsyncHTTPClient
import CurlRawBench
import Dispatch
import Foundation
import NIOCore
import NIOPosix
import PromiseCurl
import Synchronization

let arguments = CommandLine.arguments
let directory = arguments.count > 1 ? arguments[1] : "/tmp"
let rounds = max(1, arguments.count > 2 ? Int(arguments[2]) ?? 5 : 5)
let scale = arguments.count > 3 ? Double(arguments[3]) ?? 1 : 1
let selected = Set((arguments.count > 4 ? arguments[4] : "c1,c16,c256,inline,download,stream").split(separator: ",").map(String.init))
let bigMiB = arguments.count > 5 ? Int(arguments[5]) ?? 256 : 256
let concurrencies = [1, 16, 256].filter { selected.contains("c\($0)") }
func requestCount(_ concurrency: Int) -> Int { max(concurrency, Int((concurrency == 1 ? 5_000 : 20_000) * scale)) }

enum Log {
    static func line(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
    static func fail(_ text: String) -> Never {
        line("PromiseCurlBench: \(text)")
        exit(1)
    }
}

// MARK: The server

struct ServerInfo: Decodable {
    let http: Int
    let root: String
}

/// Starts serve.py as a child of this process (it stops nginx once this process is gone).
func startServer() -> (Process, ServerInfo) {
    let environment = ProcessInfo.processInfo.environment
    let script =
        environment["CURL_BENCH_SERVE"]
        ?? URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/testservers/serve.py").path
    guard FileManager.default.fileExists(atPath: script) else { Log.fail("no serve.py at \(script); set CURL_BENCH_SERVE") }
    var command = ["python3", script, "nginx", "--parent", "\(getpid())", "--workers", "1"]
    if selected.contains("download") || selected.contains("stream") { command += ["--big-mib", "\(bigMiB)"] }
    if let cpus = environment["CURL_BENCH_SERVER_CPUS"], !cpus.isEmpty { command = ["taskset", "-c", cpus] + command }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = command  // env and taskset exec, so serve.py's parent is this process
    let output = Pipe()
    process.standardOutput = output
    do { try process.run() } catch { Log.fail("cannot start \(command.joined(separator: " ")): \(error)") }
    var line = Data()
    while !line.contains(UInt8(ascii: "\n")) {
        let chunk = output.fileHandleForReading.availableData
        if chunk.isEmpty { Log.fail("serve.py exited before describing the server") }
        line.append(chunk)
    }
    guard let info = try? JSONDecoder().decode(ServerInfo.self, from: line.prefix { $0 != UInt8(ascii: "\n") }) else {
        Log.fail("cannot read serve.py's line: \(String(decoding: line, as: UTF8.self))")
    }
    return (process, info)
}

// MARK: Keeping `concurrency` requests in flight

/// Counts issued and completed requests; whoever completes one issues the next.
final class InFlight: Sendable {
    private struct State {
        var issued = 0
        var completed = 0
        var failures = 0
        var bytes = 0
        var firstError: String?
    }

    let total: Int
    private let state = Mutex(State())
    private let finished = DispatchSemaphore(value: 0)

    init(total: Int) { self.total = total }

    /// Claims the next request; `false` once all were issued.
    func claim() -> Bool {
        state.withLock { state in
            guard state.issued < total else { return false }
            state.issued += 1
            return true
        }
    }

    func complete(bytes: Int, error: String? = nil) {
        let done: Bool = state.withLock { state in
            state.completed += 1
            state.bytes += bytes
            if let error {
                state.failures += 1
                if state.firstError == nil { state.firstError = error }
            }
            return state.completed == total
        }
        if done { finished.signal() }
    }

    /// Waits for the last completion; the total body bytes.
    func wait() -> Int {
        finished.wait()
        let (failures, bytes, firstError) = state.withLock { ($0.failures, $0.bytes, $0.firstError) }
        if failures > 0 { Log.fail("\(failures) of \(total) requests failed; the first: \(firstError ?? "?")") }
        return bytes
    }
}

/// PromiseCurl: `client.get(url)`, chained with `then`/`catch` on `context` (the default
/// context, a serial DispatchQueue, when nil); each completion issues the next request.
func promiseCurlRequests(_ client: CurlClient, _ url: String, count: Int, concurrency: Int, context: (any ExecutionContext)?) -> Int {
    let flight = InFlight(total: count)
    @Sendable func issue() {
        guard flight.claim() else { return }
        client.get(url).then(on: context) { response in
            flight.complete(bytes: response.body.count, error: response.status.code == 200 ? nil : "status \(response.status.code)")
            issue()
        }.catch(on: context) { error in
            flight.complete(bytes: 0, error: "\(error)")
            issue()
        }
    }
    for _ in 0..<min(concurrency, count) { issue() }
    return flight.wait()
}

/// AsyncHTTPClient: `client.get(url:)` (EventLoopFuture, its cheapest path), `whenComplete`
/// on the connection's event loop issues the next request.
func ahcRequests(_ client: HTTPClient, _ url: String, count: Int, concurrency: Int) -> Int {
    let flight = InFlight(total: count)
    @Sendable func issue() {
        guard flight.claim() else { return }
        client.get(url: url).whenComplete { result in
            switch result {
            case .success(let response):
                flight.complete(bytes: response.body?.readableBytes ?? 0, error: response.status.code == 200 ? nil : "status \(response.status.code)")
            case .failure(let error):
                flight.complete(bytes: 0, error: "\(error)")
            }
            issue()
        }
    }
    for _ in 0..<min(concurrency, count) { issue() }
    return flight.wait()
}

func rawRequests(_ raw: OpaquePointer, _ url: String, count: Int) -> Int {
    let bytes = curl_raw_requests(raw, url, Int64(count))
    if bytes < 0 { Log.fail("the raw C loop saw a failed transfer") }
    return Int(bytes)
}

// MARK: Recording

enum Candidate: String, CaseIterable {
    case promise = "PromiseCurl"
    case raw = "raw C"
    case ahc = "AHC"
}

struct Row {
    let label: String
    let unit: String
    var samples: [Candidate: [Double]] = [:]
}

var rows: [Row] = []
@MainActor func record(_ label: String, unit: String, _ candidate: Candidate, _ value: Double) {
    if let index = rows.firstIndex(where: { $0.label == label }) {
        rows[index].samples[candidate, default: []].append(value)
    } else {
        var row = Row(label: label, unit: unit)
        row.samples[candidate] = [value]
        rows.append(row)
    }
}

func seconds(_ body: () -> Void) -> Double {
    let start = ContinuousClock.now
    body()
    let elapsed = (ContinuousClock.now - start).components
    return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
}

/// One candidate's turn in a round. CURL_BENCH_ONLY (a comma list of names: promise, inline,
/// raw, ahc, promise-memory, raw-memory, ahc-memory, promise-file, raw-file) runs only those,
/// for profiling one candidate alone.
struct Step {
    static let only = ProcessInfo.processInfo.environment["CURL_BENCH_ONLY"].map { Set($0.split(separator: ",").map(String.init)) }
    let name: String
    let body: () -> Void
    init(_ name: String, _ body: @escaping () -> Void) {
        self.name = name
        self.body = body
    }
    func run() {
        if Step.only?.contains(name) ?? true { body() }
    }
}

/// Runs `candidates` in an order rotated by `round`, so each goes first in turn.
func rotated<T>(_ candidates: [T], by round: Int) -> [T] {
    let shift = round % candidates.count
    return Array(candidates[shift...] + candidates[..<shift])
}

// MARK: Setup

// CURL_BENCH_SERVER: serve.py's JSON line of a server started elsewhere (under valgrind,
// Foundation's Process cannot start one).
let given = ProcessInfo.processInfo.environment["CURL_BENCH_SERVER"].flatMap { try? JSONDecoder().decode(ServerInfo.self, from: Data($0.utf8)) }
let (server, info): (Process?, ServerInfo) = given.map { (nil, $0) } ?? startServer()
let base = "http://127.0.0.1:\(info.http)"
let helloURL = "\(base)/hello"
let bigURL = "\(base)/big.bin"
let bigBytes = bigMiB << 20
let serverPinning = ProcessInfo.processInfo.environment["CURL_BENCH_SERVER_CPUS"].map { " (CPU \($0))" } ?? ""
Log.line("nginx on 127.0.0.1:\(info.http)\(serverPinning)")
if selected.contains("download") || selected.contains("stream") {
    // serve.py has just written big.bin: flush it now, or its writeback competes with the
    // first timed downloads to a file.
    sync()
}

struct Clients {
    let promise: CurlClient
    let raw: OpaquePointer
    let ahc: HTTPClient
}

func makeClients(_ concurrency: Int) -> Clients {
    var configuration = CurlConfiguration()
    configuration.maxConnections = concurrency
    configuration.maxConnectionsPerHost = concurrency
    guard let promise = try? CurlClient(configuration: configuration) else { Log.fail("CurlClient(configuration:) failed") }
    guard let raw = curl_raw_create(Int32(concurrency)) else { Log.fail("curl_raw_create failed") }
    var ahcConfiguration = HTTPClient.Configuration()
    ahcConfiguration.connectionPool = .init(idleTimeout: .seconds(120), concurrentHTTP1ConnectionsPerHostSoftLimit: concurrency)
    let ahc = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: ahcConfiguration)
    return Clients(promise: promise, raw: raw, ahc: ahc)
}

var clients: [Int: Clients] = [:]
for concurrency in Set(concurrencies + (selected.contains("download") || selected.contains("stream") ? [1] : [])) {
    clients[concurrency] = makeClients(concurrency)
}

// Warm-up: every candidate opens its connections before anything is timed.
for concurrency in concurrencies {
    let c = clients[concurrency]!
    let count = max(200, concurrency * 4)
    Step("promise") { _ = promiseCurlRequests(c.promise, helloURL, count: count, concurrency: concurrency, context: nil) }.run()
    Step("raw") { _ = rawRequests(c.raw, helloURL, count: count) }.run()
    Step("ahc") { _ = ahcRequests(c.ahc, helloURL, count: count, concurrency: concurrency) }.run()
}

// MARK: Rounds

let downloadPath = "\(directory)/promisecurl-bench-\(getpid()).bin"
var bigRequest = CurlRequest(.get, bigURL)
bigRequest.maxResponseBodySize = bigBytes * 2
var downloadOptions = CurlDownloadOptions()
downloadOptions.durable = false

func checkSize(_ bytes: Int, _ who: String) {
    if bytes != bigBytes { Log.fail("\(who) downloaded \(bytes) bytes, expected \(bigBytes)") }
}

let eventURL = "\(base)/event"
let eventCount = max(10, Int(1_000 * scale))

for round in 0..<rounds {
    Log.line("round \(round + 1)/\(rounds)")
    for concurrency in concurrencies {
        let c = clients[concurrency]!
        let count = requestCount(concurrency)
        let label = "GET /hello, c=\(concurrency), \(count) requests"
        let inlineLabel = "\(label), PromiseCurl callbacks on .inline"
        var steps: [Step] = [
            Step("promise") {
                let t = seconds { precondition(promiseCurlRequests(c.promise, helloURL, count: count, concurrency: concurrency, context: nil) == 6 * count) }
                record(label, unit: "req/s", .promise, Double(count) / t)
            },
            Step("raw") {
                let t = seconds { precondition(rawRequests(c.raw, helloURL, count: count) == 6 * count) }
                record(label, unit: "req/s", .raw, Double(count) / t)
                if selected.contains("inline") { record(inlineLabel, unit: "req/s", .raw, Double(count) / t) }
            },
            Step("ahc") {
                let t = seconds { precondition(ahcRequests(c.ahc, helloURL, count: count, concurrency: concurrency) == 6 * count) }
                record(label, unit: "req/s", .ahc, Double(count) / t)
                if selected.contains("inline") { record(inlineLabel, unit: "req/s", .ahc, Double(count) / t) }
            },
        ]
        if selected.contains("inline") {
            steps.append(
                Step("inline") {
                    let t = seconds {
                        precondition(promiseCurlRequests(c.promise, helloURL, count: count, concurrency: concurrency, context: InlineContext()) == 6 * count)
                    }
                    record(inlineLabel, unit: "req/s", .promise, Double(count) / t)
                })
        }
        for step in rotated(steps, by: round) { step.run() }
    }

    if selected.contains("download") {
        let c = clients[1]!
        let memory = "\(bigMiB) MiB download into memory"
        let file = "\(bigMiB) MiB download to a file (PromiseCurl durable: false; raw C write(2))"
        let megabytes = Double(bigBytes) / 1e6
        let steps: [Step] = [
            Step("promise-memory") {
                let t = seconds {
                    guard let response = try? awaitPromise(c.promise.execute(bigRequest)) else { Log.fail("PromiseCurl download into memory failed") }
                    checkSize(response.body.count, "PromiseCurl")
                }
                record(memory, unit: "MB/s", .promise, megabytes / t)
            },
            Step("raw-memory") {
                let t = seconds { checkSize(Int(curl_raw_download_memory(c.raw, bigURL)), "raw C") }
                record(memory, unit: "MB/s", .raw, megabytes / t)
            },
            Step("ahc-memory") {
                let t = seconds {
                    guard let response = try? c.ahc.get(url: bigURL).wait() else { Log.fail("AHC download into memory failed") }
                    checkSize(response.body?.readableBytes ?? 0, "AHC")
                }
                record(memory, unit: "MB/s", .ahc, megabytes / t)
            },
            Step("promise-file") {
                unlink(downloadPath)
                let t = seconds {
                    do { _ = try awaitPromise(c.promise.download(bigURL, to: downloadPath, options: downloadOptions)) } catch {
                        Log.fail("PromiseCurl download to \(downloadPath) failed: \(error)")
                    }
                }
                var status = stat()
                checkSize(stat(downloadPath, &status) == 0 ? Int(status.st_size) : -1, "PromiseCurl download(to:)")
                unlink(downloadPath)
                record(file, unit: "MB/s", .promise, megabytes / t)
            },
            Step("raw-file") {
                unlink(downloadPath)
                let t = seconds { checkSize(Int(curl_raw_download_file(c.raw, bigURL, downloadPath)), "raw C to a file") }
                unlink(downloadPath)
                record(file, unit: "MB/s", .raw, megabytes / t)
            },
        ]
        for step in rotated(steps, by: round) { step.run() }
    }

    if selected.contains("stream") {
        let c = clients[1]!
        let megabytes = Double(bigBytes) / 1e6
        let asyncLabel = "\(bigMiB) MiB streamed through a consumer, for try await (raw C: a write callback)"
        let forEachLabel = "\(bigMiB) MiB streamed through a consumer, forEach on the default context"
        let eventLabel = "requests to their first event, \(eventCount) one after another (raw C: whole responses)"
        let client = c.promise
        let steps: [Step] = [
            Step("promise-stream") {
                let t = seconds {
                    let tally = blocking {
                        var tally = ChunkTally()
                        for try await chunk in try await client.stream(CurlRequest(.get, bigURL)).get().validate().body { tally.take(chunk) }
                        return tally
                    }
                    checkSize(tally.bytes, "PromiseCurl stream, for try await")
                }
                record(asyncLabel, unit: "MB/s", .promise, megabytes / t)
            },
            Step("promise-stream-forEach") {
                let t = seconds {
                    let tally = Mutex(ChunkTally())
                    do {
                        let streamed = try awaitPromise(client.stream(CurlRequest(.get, bigURL))).validate()
                        try awaitPromise(streamed.body.forEach { chunk in tally.withLock { $0.take(chunk) } })
                    } catch {
                        Log.fail("PromiseCurl stream, forEach failed: \(error)")
                    }
                    checkSize(tally.withLock { $0.bytes }, "PromiseCurl stream, forEach")
                }
                record(forEachLabel, unit: "MB/s", .promise, megabytes / t)
            },
            Step("raw-stream") {
                let t = seconds { checkSize(Int(curl_raw_download_count(c.raw, bigURL)), "raw C write callback") }
                record(asyncLabel, unit: "MB/s", .raw, megabytes / t)
                record(forEachLabel, unit: "MB/s", .raw, megabytes / t)
            },
            Step("promise-first-event") {
                let t = seconds {
                    let events = blocking {
                        var events = 0
                        for _ in 0..<eventCount {
                            let streamed = try await client.stream(CurlRequest(.get, eventURL)).get()
                            var iterator = streamed.body.serverSentEvents().makeAsyncIterator()
                            if try await iterator.next()?.data == "hello" { events += 1 }
                        }
                        return events
                    }
                    if events != eventCount { Log.fail("PromiseCurl got \(events) first events of \(eventCount)") }
                }
                record(eventLabel, unit: "req/s", .promise, Double(eventCount) / t)
            },
            Step("raw-first-event") {
                let t = seconds {
                    if curl_raw_requests(c.raw, eventURL, Int64(eventCount)) != Int64(13 * eventCount) { Log.fail("raw C /event requests failed") }
                }
                record(eventLabel, unit: "req/s", .raw, Double(eventCount) / t)
            },
        ]
        for step in rotated(steps, by: round) { step.run() }
    }
}

// MARK: Teardown and report

for c in clients.values {
    _ = try? awaitPromise(c.promise.shutdown())
    curl_raw_destroy(c.raw)
    try? c.ahc.syncShutdown()
}
server?.terminate()
server?.waitUntilExit()

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func formatRate(_ value: Double) -> String {
    value >= 100 ? String(Int(value.rounded())) : String(format: "%.1f", value)
}

func cell(_ values: [Double]?) -> String {
    guard let values, !values.isEmpty else { return "—" }
    let median = formatRate(median(values))
    guard values.count > 1 else { return median }
    return "\(median) (\(formatRate(values.min()!))–\(formatRate(values.max()!)))"
}

func ratio(_ row: Row, _ baseline: Candidate) -> (text: String, value: Double?) {
    guard let mine = row.samples[.promise], let theirs = row.samples[baseline] else { return ("—", nil) }
    let value = median(mine) / median(theirs)
    return (String(format: "%.2f", value), value)
}

print("PromiseCurl against a raw C libcurl multi loop and AsyncHTTPClient 1.37.0, nginx (1 worker) on loopback, HTTP/1.1 keep-alive")
print("\(String(cString: curl_raw_version())); \(rounds) rounds, medians (min–max); higher is better; goals: ≥ 0.90 × raw C, > 1.00 × AHC")
print("")
print("| workload | unit | PromiseCurl | raw C | AHC | PromiseCurl / raw C | PromiseCurl / AHC |")
print("|---|---|---|---|---|---|---|")
for row in rows {
    let raw = ratio(row, .raw)
    let ahc = ratio(row, .ahc)
    let rawMark = raw.value.map { $0 >= 0.9 ? "" : " ✗" } ?? ""
    let ahcMark = ahc.value.map { $0 > 1 ? "" : " ✗" } ?? ""
    print(
        "| \(row.label) | \(row.unit) | \(cell(row.samples[.promise])) | \(cell(row.samples[.raw])) | \(cell(row.samples[.ahc])) | \(raw.text)\(rawMark) | \(ahc.text)\(ahcMark) |"
    )
}
print("")
print(
    "✗ marks a ratio short of its goal. PromiseCurl rows chain then/catch on the default context (a serial DispatchQueue) unless the row says .inline; AHC uses get(url:) and whenComplete on its event loop; raw C re-adds its easy handles."
)
