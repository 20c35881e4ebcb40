import Foundation
import PromiseTestSupport
import Testing

@testable import PromiseCurl

@Suite struct RequestTests {
    let client: CurlClient
    let server = TestServer.httpbin

    init() throws { client = try CurlClient() }

    @Test(arguments: [HTTPRequest.Method.get, .delete])
    func methodsWithoutBody(_ method: HTTPRequest.Method) async throws {
        let response = try await client.execute(CurlRequest(method, server.url("/anything"))).validate().get()
        let echo = try response.decode(Echo.self)
        #expect(echo.method == method.rawValue)
        #expect(response.status == .ok)
        #expect(response.httpVersion == "1.1")
    }

    @Test(arguments: [HTTPRequest.Method.post, .put, .patch, .delete])
    func methodsWithBody(_ method: HTTPRequest.Method) async throws {
        let request = CurlRequest(method, server.url("/anything"), body: .text("payload for \(method.rawValue)"))
        let echo = try await client.execute(request).validate().decode(Echo.self).get()
        #expect(echo.method == method.rawValue)
        #expect(echo.data == "payload for \(method.rawValue)")
        #expect(echo.headers?["Content-Type"] == "text/plain; charset=utf-8")
        #expect(echo.headers?["Expect"] == nil, "no Expect: 100-continue round trip")
    }

    @Test func headHasStatusAndFieldsButNoBody() async throws {
        let response = try await client.head(server.url("/bytes/512")).get()
        #expect(response.status == .ok)
        #expect(response.body.isEmpty)
        #expect(response.headerFields[.contentLength] == "512")
    }

    @Test func postWithoutBodySendsAnEmptyOne() async throws {
        let echo = try await client.execute(CurlRequest(.post, server.url("/post"))).validate().decode(Echo.self).get()
        #expect(echo.data == "")
    }

    @Test func headersAreSentAndReceived() async throws {
        var request = CurlRequest(.get, server.url("/headers"), headers: ["X-Trace": "abc 123", "Accept": "application/json"])
        request.setHeader("X-Empty", "")
        request.headerFields[.userAgent] = "tests/1.0"
        let echo = try await client.execute(request).validate().decode(Echo.self).get()
        #expect(echo.headers?["X-Trace"] == "abc 123")
        #expect(echo.headers?["Accept"] == "application/json")
        #expect(echo.headers?["X-Empty"] == "")
        #expect(echo.headers?["User-Agent"] == "tests/1.0")

        let reply = try await client.get(server.url("/response-headers?X-Answer=42&X-Answer=43")).validate().get()
        #expect(reply.headerFields[values: HTTPField.Name("X-Answer")!] == ["42", "43"])
    }

    @Test func defaultUserAgentIsOurs() async throws {
        let echo = try await client.get(server.url("/headers")).decode(Echo.self).get()
        #expect(echo.headers?["User-Agent"] == "swift-promise PromiseCurl")
    }

    @Test func queryItemsArePercentEncoded() async throws {
        var request = CurlRequest(.get, server.url("/get?existing=1"))
        let items: [(String, String?)] = [("q", "a b&c=d"), ("emoji", "café ☕"), ("plus", "1+1"), ("slash", "a/b?c#d")]
        request.appendQuery(items)
        #expect(request.url.hasSuffix("?existing=1&q=a%20b%26c%3Dd&emoji=caf%C3%A9%20%E2%98%95&plus=1%2B1&slash=a%2Fb%3Fc%23d"))
        let echo = try await client.execute(request).validate().decode(Echo.self).get()
        #expect(echo.args == ["existing": "1", "q": "a b&c=d", "emoji": "café ☕", "plus": "1+1", "slash": "a/b?c#d"])
    }

    @Test func jsonBody() async throws {
        struct Order: Codable, Sendable { let item: String; let note: String }
        let body = try CurlBody.json(Order(item: "tea", note: "line\nbreak \"quoted\""))
        let echo = try await client.post(server.url("/post"), body: body).validate().decode(Echo.self).get()
        #expect(echo.json == ["item": "tea", "note": "line\nbreak \"quoted\""])
        #expect(echo.headers?["Content-Type"] == "application/json")
    }

    @Test func formBody() async throws {
        let body = CurlBody.form([("name", "Ada Lovelace"), ("motto", "a&b=c+d ü")])
        let echo = try await client.post(server.url("/post"), body: body).validate().decode(Echo.self).get()
        #expect(echo.form == ["name": "Ada Lovelace", "motto": "a&b=c+d ü"])
        #expect(echo.headers?["Content-Type"] == "application/x-www-form-urlencoded")
    }

    @Test func bytesBodyWithNULs() async throws {
        let bytes: [UInt8] = [0, 1, 2, 0, 255, 0]
        let response = try await client.post(server.url("/post"), body: .bytes(bytes)).validate().get()
        let echo = try response.decode(Echo.self)
        #expect(echo.data == "data:application/octet-stream;base64," + Data(bytes).base64EncodedString())
    }

    @Test func fileBodyIsStreamedWithProgress() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/upload.txt"
        let text = String(repeating: "upload line\n", count: 50_000)
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        let reports = Lock<[CurlProgress]>([])
        var request = CurlRequest(.put, server.url("/put"), body: .file(path, contentType: "text/plain"))
        request.onProgress = { progress in reports.withLock { $0.append(progress) } }
        let echo = try await client.execute(request).validate().decode(Echo.self).get()
        #expect(echo.data == text)
        #expect(try await eventually { reports.withLock { $0.last?.uploaded == Int64(text.utf8.count) } })
        #expect(reports.withLock { $0.last?.expectedUpload } == Int64(text.utf8.count))
    }

    @Test func missingBodyFileRejectsWithThePath() async throws {
        let error = await #expect(throws: CurlError.self) {
            try await client.post(server.url("/post"), body: .file("/nonexistent/body.bin")).get()
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("/nonexistent/body.bin") == true)
        #expect(error?.message.contains("no such file") == true)
    }

    @Test func httpRequestHeadRoundTrips() async throws {
        var head = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(server.ports["http"]!)", path: "/get?x=1")
        head.headerFields[.accept] = "application/json"
        let request = CurlRequest(head)
        #expect(request.url == server.url("/get?x=1"))
        #expect(request.head.path == "/get?x=1")
        let echo = try await client.execute(request).validate().decode(Echo.self).get()
        #expect(echo.args == ["x": "1"])
    }

    /// With `onProgress(on: .inline)` the handler runs on the driver thread, but only once
    /// libcurl has returned from `curl_multi_perform`: never inside its progress callback.
    @Test func inlineProgressRunsAfterLibcurlReturnsNeverInsideItsCallback() async throws {
        let outbox = client.driver.progressOutbox
        let insideLibcurl = Lock<[Bool]>([])
        // A body dripped over a second: several reports while the transfer runs.
        var request = CurlRequest(.get, server.url("/drip?duration=1&numbytes=10&delay=0"))
        request.onProgress(on: .inline) { _ in insideLibcurl.withLock { $0.append(outbox.insideLibcurl) } }
        _ = try await client.execute(request).validate().get()
        let seen = insideLibcurl.withLock { $0 }
        #expect(seen.count >= 3, "reports: \(seen.count)")
        #expect(!seen.contains(true), "a progress handler ran inside libcurl's callback")
    }

    /// `decode(on:_:)` decodes on the context it names, first argument as in `then(on:_:)`.
    @Test func decodeRunsOnTheContextItNames() async throws {
        let queue = DispatchQueue(label: "decode-queue")
        queue.setSpecific(key: decodeQueueKey, value: true)
        struct Probe: Decodable, Sendable {
            let onQueue: Bool
            init(from decoder: any Decoder) throws { onQueue = DispatchQueue.getSpecific(key: decodeQueueKey) == true }
        }
        let probe = try await client.get(server.url("/get")).validate().decode(on: queue, Probe.self).get()
        #expect(probe.onQueue, "decoding ran off the queue it was given")
    }

    /// One request at a time reuses one easy handle: a plain GET keeps its options for the
    /// next plain GET, and anything else must reset them, so no method, body, header field or
    /// limit of one request reaches the next.
    @Test func aReusedHandleCarriesNothingOver() async throws {
        let plain = try await client.get(server.url("/anything")).validate().decode(Echo.self).get()
        #expect(plain.method == "GET")

        var post = CurlRequest(.post, server.url("/anything"), headers: ["X-Only-Once": "1"], body: .text("one-off"))
        post.timeout = .seconds(30)
        let posted = try await client.execute(post).validate().decode(Echo.self).get()
        #expect(posted.method == "POST")
        #expect(posted.headers?["X-Only-Once"] == "1")

        let after = try await client.get(server.url("/anything")).validate().decode(Echo.self).get()
        #expect(after.method == "GET")
        #expect(after.data == "")
        #expect(after.headers?["X-Only-Once"] == nil)
        #expect(after.headers?["Content-Type"] == nil)

        let head = try await client.head(server.url("/bytes/64")).validate().get()
        #expect(head.body.isEmpty)
        let full = try await client.get(server.url("/bytes/64")).validate().get()
        #expect(full.body.count == 64, "a HEAD's NOBODY option was kept")

        // A HEAD reads no body, so the Content-Length it announces is not held to the limit.
        var limitedHead = CurlRequest(.head, server.url("/bytes/5000"))
        limitedHead.maxResponseBodySize = 1000
        let announced = try await client.execute(limitedHead).validate().get()
        #expect(announced.body.isEmpty)
        #expect(announced.headerFields[.contentLength] == "5000")

        var limited = CurlRequest(.get, server.url("/bytes/5000"))
        limited.maxResponseBodySize = 1000
        // Refused from the announced Content-Length (CURLOPT_MAXFILESIZE_LARGE), before any
        // body byte, so the option itself was set, not only the write callback's limit.
        let refused = await #expect(throws: CurlError.self) { try await client.execute(limited).get() }
        #expect(refused?.code == .responseTooLarge)
        #expect(refused?.message.contains("Content-Length says so") == true, "\(String(describing: refused))")
        let unlimited = try await client.get(server.url("/bytes/5000")).validate().get()
        #expect(unlimited.body.count == 5000, "the last request's smaller body limit was kept")
        let refusedAgain = await #expect(throws: CurlError.self) { try await client.execute(limited).get() }
        #expect(refusedAgain?.code == .responseTooLarge)
        #expect(refusedAgain?.message.contains("Content-Length says so") == true, "a plain request's larger body limit was kept")
    }

    @Test func callbacksNeverRunOnTheDriverThread() async throws {
        let names = try await client.get(server.url("/get")).then { _ in currentThreadName() }.get()
        #expect(names != "promise-curl")
        let queue = DispatchQueue(label: "caller-queue")
        let onQueue = try await client.get(server.url("/get")).then(on: queue) { _ in currentThreadName() }.get()
        #expect(onQueue != "promise-curl")
    }
}

/// Marks the queue `decodeRunsOnTheContextItNames` decodes on.
private let decodeQueueKey = DispatchSpecificKey<Bool>()
