// swift-format-ignore-file
// (documentation quotes this file's code line for line, layout included)
import PromiseTestSupport
import Foundation
import Testing

import PromiseCurl

// The README's PromiseCurl tour, verbatim, so it stays true. `port` and `path` are the
// test's: httpbin on loopback and a temporary file.

private func tour(port: Int, path: String) async throws -> String {
    let client = try CurlClient()                              // one driver thread, one connection pool

    var request = CurlRequest(.post, "http://127.0.0.1:\(port)/post")
    request.body = try .json(["item": "tea"])
    request.setHeader("X-Order-Source", "readme")
    request.timeout = .seconds(5)                              // total deadline, redirects included

    let echoed = client.execute(request)
        .validate()                                            // non-2xx rejects, carrying the response
        .then { response in response.text }

    let page = retry(attempts: 3, delay: .milliseconds(100)) {
        client.get("http://127.0.0.1:\(port)/get").validate()
    }
    .timeout(.seconds(10))                                     // a time-out cancels the transfer

    let saved = client.download("http://127.0.0.1:\(port)/bytes/4096", to: path)  // renamed into place when whole

    let (text, _, _) = try await all(echoed, page, saved).get()
    try await client.shutdown().get()
    return text
}

private func minimalProgram(port: Int) throws {
    let done = CurlClient.shared.get("http://127.0.0.1:\(port)/get")
        .validate()
        .then { response in print(response.status.code, response.text.count, "bytes") }
    _ = try awaitPromise(done)
}

@Suite struct CurlReadmeExamplesTests {
    @Test func theTourRuns() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/bytes.bin"
        let text = try await tour(port: TestServer.httpbin.ports["http"]!, path: path)
        #expect(text.contains("\"item\": \"tea\""))
        #expect(text.contains("\"X-Order-Source\": \"readme\""), "\(text)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).count == 4096)
    }

    @Test func theMinimalProgramRuns() async throws {
        let port = TestServer.httpbin.ports["http"]!
        try await Task.detached { try minimalProgram(port: port) }.value
    }
}
