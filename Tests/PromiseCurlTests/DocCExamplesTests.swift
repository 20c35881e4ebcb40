// swift-format-ignore-file
// (documentation quotes this file's code line for line, layout included)
import Foundation
import PromiseCurl
import PromiseTestSupport
import Testing

// The ```swift blocks of PromiseCurl's DocC catalog, each between `// DocC: begin` and
// `// DocC: end` exactly as written there (PromiseCoreTests' `DocCCodeBlocksTests` checks
// them), run against the test servers on 127.0.0.1 with assertions on what they do.

@Suite struct CurlDocCExamplesTests {
    struct User: Decodable, Sendable {
        let id: Int
        let name: String
    }

    @Test func landingPage() async throws {
        // nginx serves /users/7 from its root, a directory of this test run.
        let root = try #require(TestServer.nginx.root)
        try FileManager.default.createDirectory(atPath: root + "/users", withIntermediateDirectories: true)
        try Data(#"{"id": 7, "name": "Ada"}"#.utf8).write(to: URL(fileURLWithPath: root + "/users/7"))
        let server = TestServer.nginx.url("")
        let printed = Recorded()
        @Sendable func print(_ item: Any) { printed.append("\(item)") }

        // DocC: begin
        let client = try CurlClient()
        client.get(server + "/users/7")          // server: "http://127.0.0.1:8080", say
            .validate()                          // non-2xx rejects with CurlError.Code.badStatus
            .decode(User.self)                   // JSON, through Decodable
            .timeout(.seconds(2))                // cancels the transfer on time-out
            .then { user in print(user.name) }
            .catch { error in print(error) }     // one line: what, where, and libcurl's code
        // DocC: end

        #expect(await printed.first() == "Ada")
        try await client.shutdown().get()
    }

    @Test func otherSchemesOnlyWhenARequestAllowsThem() async throws {
        let client = try CurlClient()

        // DocC: begin
        var request = CurlRequest(.get, "file:///srv/mirror/index.html")
        request.allowedSchemes = ["file"]        // this request only
        // DocC: end

        // Allowed, libcurl reads the file (here: there is none); refused without the list.
        let allowed = await #expect(throws: CurlError.self) { try await client.execute(request).get() }
        #expect(allowed?.code != .invalidRequest && allowed?.code != .unsupportedProtocol)
        let refused = await #expect(throws: CurlError.self) { try await client.get("file:///srv/mirror/index.html").get() }
        #expect(refused?.code == .invalidRequest)
        #expect(refused?.message.contains("not allowed") == true)
        try await client.shutdown().get()
    }

    @Test func aTimeoutStopsTheTransfer() async throws {
        struct Report: Decodable, Sendable { let url: String }
        let client = try CurlClient()
        let url = TestServer.httpbin.url("/delay/10")

        // DocC: begin
        let report = client.get(url)
            .then { response in try response.decode(Report.self) }
            .timeout(.seconds(2))          // rejects with PromiseError.Code.timedOut and stops the transfer
        // DocC: end

        let error = await #expect(throws: PromiseError.self) { try await report.get() }
        #expect(error?.code == .timedOut)
        try await client.shutdown().get()
    }
}

extension CurlDocCExamplesTests {
    @Test func aClientThroughAProxy() async throws {
        let proxyURL = "socks5h://user:s3cret@127.0.0.1:\(TestServer.proxy.ports["auth"]!)"

        // DocC: begin
        var configuration = CurlConfiguration()
        configuration.proxy = .through(try CurlProxy(url: proxyURL))   // "socks5h://user:secret@127.0.0.1:1080", say
        let proxied = try CurlClient(configuration: configuration)

        var fromShell = CurlConfiguration()
        fromShell.proxy = .fromEnvironment   // http_proxy, https_proxy, all_proxy, no_proxy, as curl reads them
        // DocC: end

        #expect(try await proxied.get(TestServer.httpbin.url("/get")).validate().get().status.code == 200)
        #expect(fromShell.proxy == .fromEnvironment)
        try await proxied.shutdown().get()
    }

    @Test func aRequestOverAUnixSocket() async throws {
        let client = try CurlClient()
        let dockerSocket = try #require(TestServer.httpbin.unixSocket)  // httpbin stands in for Docker

        // DocC: begin
        var request = CurlRequest(.get, "http://localhost/v1.43/info")
        request.unixSocketPath = dockerSocket    // "/var/run/docker.sock", say
        let info = client.execute(request).validate().then { response in response.text }
        // DocC: end

        // httpbin answers an unknown path with 404, which validate() rejects: a real answer
        // from the server on the socket.
        let error = await #expect(throws: CurlError.self) { try await info.get() }
        #expect(error?.code == .badStatus)
        #expect(error?.response?.status.code == 404)
        try await client.shutdown().get()
    }
}

extension CurlDocCExamplesTests {
    @Test func aClientThatKeepsCookies() async throws {
        let server = TestServer.httpbin.url("")

        // DocC: begin
        var configuration = CurlConfiguration()
        configuration.keepsCookies = true          // one store, in memory, for this client only
        let session = try CurlClient(configuration: configuration)
        // DocC: end
        // httpbin's /cookies/set answers with Set-Cookie and a redirect; /cookies echoes them.
        let page = session.get(server + "/cookies/set?user=ada")
            .then { _ in session.get(server + "/cookies") }

        struct Jar: Decodable { let cookies: [String: String] }
        #expect(try await page.get().decode(Jar.self).cookies == ["user": "ada"])
        try await session.shutdown().get()
    }
}

/// Lines printed from callbacks, for a test to wait for.
/// The Streaming article's blocks, against the fault server.
@Suite struct CurlStreamingDocCExamplesTests {
    let client: CurlClient
    let faults = TestServer.faults

    init() throws { client = try CurlClient() }

    @Test func aBodyAsAnAsyncSequence() async throws {
        let feedURL = faults.url("/stream?bytes=500000")

        // DocC: begin
        let streamed = try await client.stream(CurlRequest(.get, feedURL)).get().validate()
        var received = 0
        for try await chunk in streamed.body {   // [UInt8], in order, decoded from gzip if sent so
            received += chunk.count
        }
        // DocC: end

        #expect(received == 500_000)
    }

    @Test func callbacksOnAContext() async throws {
        final class Parser: Sendable {
            let bytes = Lock(0)
            func feed(_ chunk: [UInt8]) {
                dispatchPrecondition(condition: .notOnQueue(.main))
                bytes.withLock { $0 += chunk.count }
            }
        }
        let parser = Parser()
        let queue = DispatchQueue(label: "log-parser")
        let logURL = faults.url("/stream?bytes=300000")

        // DocC: begin
        let lines = client.stream(CurlRequest(.get, logURL)).then { streamed in
            streamed.body.forEach(on: queue) { chunk in
                parser.feed(chunk)               // runs on `queue`, chunk after chunk
            }
        }
        // DocC: end

        try await lines.get()
        #expect(parser.bytes.withLock { $0 } == 300_000)
    }

    @Test func anEventSource() async throws {
        let eventsURL = faults.url("/events?count=2")
        let printed = Recorded()
        @Sendable func print(_ items: String...) { printed.append(items.joined(separator: " ")) }

        let reader = offPoolTask {
            // DocC: begin
            for try await event in client.events(CurlRequest(.get, eventsURL)) {
                print(event.type, event.id ?? "-", event.data)
            }
            // DocC: end
        }
        // The stream reconnects for ever: two events a connection, numbered on.
        for _ in 0..<1_000 where printed.all().count < 3 { try await Task.sleep(for: .milliseconds(10)) }
        reader.cancel()
        await #expect(throws: CancellationError.self) { try await reader.value }
        #expect(Array(printed.all().prefix(3)) == ["tick 1 event 1\nsecond line", "tick 2 event 2\nsecond line", "tick 3 event 3\nsecond line"])
    }

    @Test func aProducedBody() async throws {
        let records = ["{\"n\":1}", "{\"n\":2}"]
        let ingestURL = faults.url("/echo")

        // DocC: begin
        let upload = CurlBody.stream(contentType: "application/x-ndjson") { writer in
            for record in records {
                try await writer.write(Array((record + "\n").utf8))   // waits while 256 KiB are queued
            }
        }
        let stored = client.post(ingestURL, body: upload).validate()
        // DocC: end

        let echo = try await stored.decode(RawEcho.self).get()
        #expect(echo.body == "{\"n\":1}\n{\"n\":2}\n")
        #expect(echo.lines(named: "Content-Type") == ["Content-Type: application/x-ndjson"])
    }
}

final class Recorded: Sendable {
    private let lines = Lock<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    /// Every line so far.
    func all() -> [String] { lines.withLock { $0 } }
    /// The first line, once there is one (nil after 10 s).
    func first() async -> String? {
        for _ in 0..<1_000 {
            if let line = lines.withLock({ $0.first }) { return line }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }
}
