// LinkNotes' route (Examples/Sources/LinkNotes: PromiseSQLite, PromiseCurl and PromiseNIO in a
// Hummingbird 2 server) beside the same route written with vapor/sqlite-nio and
// AsyncHTTPClient, in one process, served to wrk in turns: requests per second of each, and
// the ratio. Both read the same note from the same SQLite file through one connection, and
// fetch the same 1234-byte page from an upstream Hummingbird server on loopback.
//
//   Benchmarks/route-ratios.sh      # builds in release, then runs this
//
// Arguments: rounds (3), seconds per run (5), wrk connections (16).
import AsyncHTTPClient
import Foundation
import Hummingbird
import LinkNotes
import NIOCore
import NIOPosix
import PromiseCurl
import PromiseSQLite
import SQLiteNIO

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let rounds = arguments.count > 0 ? arguments[0] : 3
let seconds = arguments.count > 1 ? arguments[1] : 5
let connections = arguments.count > 2 ? arguments[2] : 16

let directory = NSTemporaryDirectory() + "link-notes-bench-" + UUID().uuidString
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: directory) }

/// Collects the port each server reports once it listens.
let (ports, portSink) = AsyncStream.makeStream(of: (String, Int).self)
func serve<Context: RequestContext>(_ name: String, _ router: Router<Context>) -> some ApplicationProtocol
where Context.Source == ApplicationRequestContextSource {
    Application(
        router: router,
        configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: name),
        onServerRunning: { portSink.yield((name, $0.localAddress!.port!)) }
    )
}

// PromiseSQLite and PromiseCurl: LinkNotes itself.
let database = SQLiteDatabase(path: directory + "/notes.sqlite")
try await prepareLinkNotes(database).get()
let client = try CurlClient()

// sqlite-nio and AsyncHTTPClient: the same route.
let peerConnection: SQLiteNIO.SQLiteConnection = try await SQLiteNIO.SQLiteConnection.open(
    storage: .file(path: directory + "/notes.sqlite"),
    threadPool: .singleton,
    on: MultiThreadedEventLoopGroup.singleton.any()
)

try await withThrowingTaskGroup(of: Void.self) { servers in
    servers.addTask { try await serve("upstream", linkNotesSamplePages()).runService(gracefulShutdownSignals: []) }
    servers.addTask { try await serve("promise", linkNotesRouter(database: database, client: client)).runService(gracefulShutdownSignals: []) }
    servers.addTask { try await serve("peer", peerRouter(peerConnection)).runService(gracefulShutdownSignals: []) }
    var port: [String: Int] = [:]
    for await (name, number) in ports {
        port[name] = number
        if port.count == 3 { break }
    }

    // One note, stored through the promise route, read by both.
    let link = "http://127.0.0.1:\(port["upstream"]!)/page"
    let created = try await client.post("http://127.0.0.1:\(port["promise"]!)/notes", body: .json(["title": "page", "link": link]))
        .validate().get()
    struct Created: Decodable { let id: Int64 }
    let id = try created.decode(Created.self).id
    let urls = ["promise": "http://127.0.0.1:\(port["promise"]!)/notes/\(id)", "peer": "http://127.0.0.1:\(port["peer"]!)/notes/\(id)"]
    let fromPromise = try await client.get(urls["promise"]!).validate().get().decode(NotePreview.self)
    let fromPeer = try await client.get(urls["peer"]!).validate().get().decode(NotePreview.self)
    let answers = [fromPromise, fromPeer]
    precondition(answers[0] == answers[1] && answers[0].linkBytes == 1234, "the two routes disagree: \(answers)")

    var figures: [String: [Double]] = [:]
    for round in 1...rounds {
        for name in ["promise", "peer"] {
            let rate = try runWrk(urls[name]!, seconds: seconds, connections: connections)
            figures[name, default: []].append(rate)
            print("round \(round) \(name): \(String(format: "%.0f", rate)) requests/s")
        }
    }
    let promise = median(figures["promise"]!)
    let peer = median(figures["peer"]!)
    print("")
    print("| route | requests/s (median of \(rounds), \(seconds) s each, \(connections) connections) |")
    print("|---|--:|")
    print("| LinkNotes: PromiseSQLite + PromiseCurl + PromiseNIO | \(String(format: "%.0f", promise)) |")
    print("| the same route: sqlite-nio + AsyncHTTPClient | \(String(format: "%.0f", peer)) |")
    print("| ratio | \(String(format: "%.2f", promise / peer))x |")
    servers.cancelAll()
}
try await client.shutdown().get()
try await database.close().get()
try await peerConnection.close()

/// LinkNotes' `GET /notes/:id` on sqlite-nio and AsyncHTTPClient.
func peerRouter(_ connection: SQLiteNIO.SQLiteConnection) -> Router<BasicRequestContext> {
    let router = Router()
    router.get("/notes/:id") { _, context -> NotePreview in
        let id = try context.parameters.require("id", as: Int.self)
        let rows = try await connection.query("SELECT id, title, link FROM notes WHERE id = ?", [SQLiteData.integer(id)])
        guard let row = rows.first, let title = row.column("title")?.string, let link = row.column("link")?.string else {
            throw HTTPError(.notFound, message: "no note \(id)")
        }
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: link), timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 24)
        return NotePreview(
            id: Int64(id), title: title, link: link, linkStatus: Int(response.status.code),
            linkType: response.headers.first(name: "content-type"), linkBytes: body.readableBytes
        )
    }
    return router
}

/// wrk's "Requests/sec" for `url`; fails on any non-2xx answer or socket error.
func runWrk(_ url: String, seconds: Int, connections: Int) throws -> Double {
    let wrk = Process()
    wrk.executableURL = URL(fileURLWithPath: "/usr/bin/wrk")
    wrk.arguments = ["-t", "1", "-c", "\(connections)", "-d", "\(seconds)s", url]
    let output = Pipe()
    wrk.standardOutput = output
    try wrk.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    wrk.waitUntilExit()
    precondition(!text.contains("Non-2xx") && !text.contains("Socket errors"), "wrk saw failures:\n\(text)")
    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Requests/sec:") }),
        let rate = Double(line.split(separator: " ").last ?? "")
    else { fatalError("no rate in wrk's output:\n\(text)") }
    return rate
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}
