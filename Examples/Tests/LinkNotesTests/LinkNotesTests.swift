import Foundation
import Hummingbird
import LinkNotes
import Logging
import NIOPosix
import PromiseCurl
import PromiseNIO
import PromiseSQLite
import Testing

/// LinkNotes served for real on 127.0.0.1: a Hummingbird server answering from PromiseSQLite
/// and PromiseCurl, an upstream Hummingbird server for the notes' links, and requests sent with
/// PromiseCurl. Each test has its own servers, ports, database and temporary directory.
@Suite struct LinkNotesTests {
    @Test func aPostedNoteIsServedWithWhatItsLinkAnswers() async throws {
        try await withLinkNotes { servers in
            let created = try await servers.post(title: "page", link: servers.upstream("/page"))
            let preview = try await servers.client.get(servers.app("/notes/\(created)")).validate().get()
                .decode(NotePreview.self)
            #expect(
                preview
                    == NotePreview(
                        id: created, title: "page", link: servers.upstream("/page"), linkStatus: 200,
                        linkType: "text/html; charset=utf-8", linkBytes: 1234
                    )
            )
        }
    }

    @Test func aLinkAnsweringNotFoundIsReportedNotFailed() async throws {
        try await withLinkNotes { servers in
            let created = try await servers.post(title: "gone", link: servers.upstream("/gone"))
            let preview = try await servers.client.get(servers.app("/notes/\(created)")).validate().get()
                .decode(NotePreview.self)
            #expect(preview.linkStatus == 404)
        }
    }

    @Test func aMissingNoteIsNotFound() async throws {
        try await withLinkNotes { servers in
            let response = try await servers.client.get(servers.app("/notes/4242")).get()
            #expect(response.status.code == 404)
            #expect(response.text.contains("no note 4242"))
        }
    }

    @Test func aNoteWithoutAnHTTPLinkIsRefused() async throws {
        try await withLinkNotes { servers in
            let body = try CurlBody.json(["title": "x", "link": "file:///etc/passwd"])
            let response = try await servers.client.post(servers.app("/notes"), body: body).get()
            #expect(response.status.code == 400)
            let count = try await servers.database.queryFirst(Int.self, "SELECT count(*) FROM notes WHERE id > ?", binding: 0).get()
            #expect(count == 0, "nothing was stored")
        }
    }

    @Test func aLinkNobodyAnswersIsABadGateway() async throws {
        try await withLinkNotes { servers in
            // A port of the upstream's that nothing listens on any more.
            let closed = try await closedLoopbackPort()
            let created = try await servers.post(title: "down", link: "http://127.0.0.1:\(closed)/")
            let response = try await servers.client.get(servers.app("/notes/\(created)")).get()
            #expect(response.status.code == 502)
        }
    }

    @Test func aLinkSlowerThanTheLimitIsAGatewayTimeoutAndIsStopped() async throws {
        try await withLinkNotes(linkTimeout: .milliseconds(300)) { servers in
            let created = try await servers.post(title: "slow", link: servers.upstream("/slow"))
            let start = ContinuousClock.now
            // Timed where the response arrives, not where this task resumes after it.
            let answered = servers.client.get(servers.app("/notes/\(created)")).then(on: .inline) { ($0, ContinuousClock.now) }
            let (response, end) = try await answered.get()
            #expect(response.status.code == 504)
            #expect(end - start < .seconds(20), "the route gave up at its limit, not after the link's 30 s")
        }
    }

    @Test func fiftyRequestsAtOnceAreAllAnswered() async throws {
        try await withLinkNotes { servers in
            let created = try await servers.post(title: "page", link: servers.upstream("/page"))
            let requests = (0..<50).map { _ in
                servers.client.get(servers.app("/notes/\(created)")).validate().then { try $0.decode(NotePreview.self) }
            }
            let previews = try await all(requests).get()
            #expect(previews.count == 50)
            #expect(previews.allSatisfy { $0.linkBytes == 1234 && $0.id == created })
        }
    }
}

/// The servers and client of one test.
struct LinkNotesServers: Sendable {
    let appPort: Int
    let upstreamPort: Int
    let client: CurlClient
    let database: SQLiteDatabase

    func app(_ path: String) -> String { "http://127.0.0.1:\(appPort)\(path)" }
    func upstream(_ path: String) -> String { "http://127.0.0.1:\(upstreamPort)\(path)" }

    /// Creates a note through the server; returns its id.
    func post(title: String, link: String) async throws -> Int64 {
        struct Created: Decodable { let id: Int64 }
        let response = try await client.post(app("/notes"), body: .json(["title": title, "link": link])).validate().get()
        return try response.decode(Created.self).id
    }
}

/// A loopback port that was just bound and closed: nothing listens on it.
func closedLoopbackPort() async throws -> Int {
    let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .bind(host: "127.0.0.1", port: 0).get()
    let port = channel.localAddress!.port!
    try await channel.close()
    return port
}

/// Runs `body` with LinkNotes and its upstream served on loopback ports of their own, then
/// stops both servers and closes the client and database.
func withLinkNotes(
    linkTimeout: Duration = .seconds(10),
    _ body: @escaping @Sendable (LinkNotesServers) async throws -> Void
) async throws {
    let directory = NSTemporaryDirectory() + "link-notes-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let database = SQLiteDatabase(path: directory + "/notes.sqlite")
    try await prepareLinkNotes(database).get()
    let client = try CurlClient()
    let (ports, portSink) = AsyncStream.makeStream(of: (String, Int).self)
    // The servers end by cancellation, which Hummingbird logs as errors ("Waiting on child
    // channel: CancellationError"); a graceful shutdown would wait out `/slow`'s 30 s.
    var logger = Logger(label: "link-notes-test")
    logger.logLevel = .critical
    let upstream = Application(
        router: linkNotesSamplePages(),
        configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { portSink.yield(("upstream", $0.localAddress!.port!)) },
        logger: logger
    )
    let app = Application(
        router: linkNotesRouter(database: database, client: client, linkTimeout: linkTimeout),
        configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { portSink.yield(("app", $0.localAddress!.port!)) },
        logger: logger
    )
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await upstream.runService(gracefulShutdownSignals: []) }
        group.addTask { try await app.runService(gracefulShutdownSignals: []) }
        var known: [String: Int] = [:]
        for await (name, port) in ports {
            known[name] = port
            if known.count == 2 { break }
        }
        let servers = LinkNotesServers(appPort: known["app"]!, upstreamPort: known["upstream"]!, client: client, database: database)
        do {
            try await body(servers)
        } catch {
            group.cancelAll()
            throw error
        }
        group.cancelAll()
    }
    try await client.shutdown().get()
    try await database.close().get()
}
