import Foundation
import PromiseTestSupport
import Testing

@testable import PromiseCurl

@Suite struct FailureTests {
    let client: CurlClient
    let faults = TestServer.faults
    let httpbin = TestServer.httpbin

    init() throws { client = try CurlClient() }

    @Test func waitingForARequestInsideAnInlineCallbackFailsInsteadOfStoppingTheClient() async throws {
        // An inline callback runs on the client's thread: blocking there would stop every transfer.
        // The first response is delayed so the callback is attached before it settles: one
        // attached to a settled promise runs on the attaching thread, where waiting is fine.
        let nested = client.get(httpbin.url("/delay/1")).then(on: .inline) { _ -> Int in
            try awaitPromise(client.get(httpbin.url("/status/204"))).status.code
        }
        let error = await #expect(throws: PromiseError.self) { try await nested.get() }
        #expect(error?.code == .deadlock)
        #expect(error?.message.contains("CurlClient's thread") == true, "\(String(describing: error))")
        // The client still works.
        #expect(try await client.get(httpbin.url("/status/204")).get().status.code == 204)
    }

    @Test func connectionRefusedSaysSo() async throws {
        let port = refusedPort()
        let error = await #expect(throws: CurlError.self) { try await client.get("http://127.0.0.1:\(port)/").get() }
        #expect(error?.code == .couldNotConnect)
        #expect(error?.message.hasPrefix("connection refused by 127.0.0.1:\(port)") == true, "\(String(describing: error))")
        #expect(error?.description.contains("\n") == false)
    }

    @Test func aServerThatNeverAnswersTimesOut() async throws {
        var request = CurlRequest(.get, faults.url("/never"))
        request.timeout = .milliseconds(300)
        let start = ContinuousClock.now
        let promise = client.execute(request)
        let settled = SettleTime(of: promise)
        let error = await #expect(throws: CurlError.self) { try await promise.get() }
        #expect(error?.code == .operationTimedOut)
        expectTimeLimit(settled.since(start), under: .seconds(10), "the request with a 300 ms timeout settling")
    }

    @Test func theClientTimeoutAppliesWhenTheRequestHasNone() async throws {
        var configuration = CurlConfiguration()
        configuration.timeout = .milliseconds(200)
        let strict = try CurlClient(configuration: configuration)
        let error = await #expect(throws: CurlError.self) { try await strict.get(faults.url("/never")).get() }
        #expect(error?.code == .operationTimedOut)
        try await strict.shutdown().get()
    }

    @Test func aResetMidBodyFails() async throws {
        let error = await #expect(throws: CurlError.self) { try await client.get(faults.url("/reset")).get() }
        #expect(error?.code == .receiveError || error?.code == .partialFile, "\(String(describing: error))")
    }

    @Test func truncatedChunkedEncodingFails() async throws {
        let error = await #expect(throws: CurlError.self) { try await client.get(faults.url("/truncated")).get() }
        #expect(error?.code == .partialFile || error?.code == .receiveError, "\(String(describing: error))")
    }

    @Test func anInvalidStatusLineFails() async throws {
        let error = await #expect(throws: CurlError.self) { try await client.get(faults.url("/bad-status")).get() }
        #expect(error?.code == .weirdServerReply || error?.code == .unsupportedProtocol, "\(String(describing: error))")
    }

    @Test func hugeHeadersAreRefused() async throws {
        let error = await #expect(throws: CurlError.self) { try await client.get(faults.url("/huge-headers")).get() }
        #expect(error?.code == .headersTooLarge || error?.code == .weirdServerReply, "\(String(describing: error))")
    }

    @Test func nothingAtAllFails() async throws {
        let error = await #expect(throws: CurlError.self) { try await client.get(faults.url("/close")).get() }
        #expect(error?.code == .gotNothing)
    }

    @Test func oversizedBodiesAreRefused() async throws {
        var request = CurlRequest(.get, httpbin.url("/bytes/5000"))
        request.maxResponseBodySize = 1000
        // Content-Length announces too much.
        let announced = await #expect(throws: CurlError.self) { try await client.execute(request).get() }
        #expect(announced?.code == .responseTooLarge)
        // Chunked: stopped while receiving.
        var chunked = CurlRequest(.get, httpbin.url("/stream-bytes/5000?chunk_size=100"))
        chunked.maxResponseBodySize = 1000
        let streamed = await #expect(throws: CurlError.self) { try await client.execute(chunked).get() }
        #expect(streamed.map { CurlError.Code.responseTooLarge ~= $0 } == true)
        // Compressed: the limit counts decoded bytes, so a small gzip body cannot blow up.
        var compressed = CurlRequest(.get, TestServer.nginx.url("/text.txt"))
        compressed.maxResponseBodySize = 10_000
        let decoded = await #expect(throws: CurlError.self) { try await client.execute(compressed).get() }
        #expect(decoded?.code == .responseTooLarge)
    }

    @Test func fileURLsAreRefusedUnlessAllowed() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "local".write(toFile: directory + "/local.txt", atomically: false, encoding: .utf8)
        let refused = client.get("file://\(directory)/local.txt")
        #expect(refused.isRejected, "refused before anything reaches libcurl")
        let error = await #expect(throws: CurlError.self) { try await refused.get() }
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("allowedSchemes") == true)

        var allowed = CurlRequest(.get, "file://\(directory)/local.txt")
        allowed.allowedSchemes = ["file"]
        #expect(try await client.execute(allowed).get().text == "local")
    }

    @Test func headerInjectionIsRefusedBeforeSending() async throws {
        for (name, value) in [("X-Evil", "a\r\nInjected: 1"), ("X-Evil", "a\nb"), ("X-Nul", "a\u{0}b"), ("Bad Name", "v"), ("X:Colon", "v")] {
            var request = CurlRequest(.get, httpbin.url("/headers"))
            request.setHeader(name, value)
            let promise = client.execute(request)
            #expect(promise.isRejected, "rejected at once, nothing sent")
            let error = await #expect(throws: CurlError.self) { try await promise.get() }
            #expect(error?.code == .invalidRequest)
            #expect(error?.message.contains("header") == true)
        }
    }

    @Test func badURLsAreRefusedWithTheReason() async throws {
        let cases = [
            ("http://127.0.0.1/a b", "space"),
            ("http://127.0.0.1/a\r\nHost: evil", "control character"),
            ("127.0.0.1:8080/path", "not absolute"),
            ("http:///path", "no host"),
            ("ht tp://x/", "space"),
        ]
        for (url, reason) in cases {
            let error = await #expect(throws: CurlError.self) { try await client.get(url).get() }
            #expect(error?.code == .invalidRequest)
            #expect(error?.message.contains(reason) == true, "\(url): \(String(describing: error))")
        }
    }

    @Test func theClientKeepsServingAfterFaults() async throws {
        async let a = client.get(faults.url("/reset")).get()
        async let b = client.get(faults.url("/bad-status")).get()
        _ = try? await (a, b)
        #expect(try await client.get(httpbin.url("/get")).validate().get().status == .ok)
        #expect(try await eventually { client.pendingRequests == 0 })
    }
}
