import Foundation
import PromiseTestSupport
import Testing

@testable import PromiseCurl

/// What the request a redirect leads to sends, per status and method (RFC 9110 §15.4), read
/// from the fault server's `/echo`.
@Suite struct RedirectMethodTests {
    let client: CurlClient
    let faults = TestServer.faults

    init() throws { client = try CurlClient() }

    struct Case: Sendable, CustomTestStringConvertible {
        let status: Int
        let method: HTTPRequest.Method
        /// The method the redirected request uses; the body and its Content-Type go along
        /// exactly when it is the same method.
        let then: HTTPRequest.Method
        let keepsBody: Bool
        var testDescription: String { "\(status) \(method.rawValue) → \(then.rawValue)\(keepsBody ? " with body" : "")" }
    }

    static let cases: [Case] = [
        Case(status: 301, method: .post, then: .get, keepsBody: false),
        Case(status: 302, method: .post, then: .get, keepsBody: false),
        Case(status: 303, method: .post, then: .get, keepsBody: false),
        Case(status: 301, method: .put, then: .put, keepsBody: true),
        Case(status: 302, method: .patch, then: .patch, keepsBody: true),
        Case(status: 302, method: .delete, then: .delete, keepsBody: true),
        Case(status: 303, method: .put, then: .get, keepsBody: false),
        Case(status: 303, method: .patch, then: .get, keepsBody: false),
        Case(status: 303, method: .delete, then: .get, keepsBody: false),
        Case(status: 307, method: .post, then: .post, keepsBody: true),
        Case(status: 307, method: .put, then: .put, keepsBody: true),
        Case(status: 308, method: .post, then: .post, keepsBody: true),
        Case(status: 308, method: .patch, then: .patch, keepsBody: true),
        Case(status: 301, method: .get, then: .get, keepsBody: false),
        Case(status: 303, method: .get, then: .get, keepsBody: false),
    ]

    @Test(arguments: cases)
    func theRedirectedRequestFollowsRFC9110(_ row: Case) async throws {
        let body: CurlBody? = row.method == .get ? nil : .text("payload")
        var request = CurlRequest(row.method, faults.url("/redirect?status=\(row.status)&to=/echo"), body: body)
        request.setHeader("X-Kept", "yes")
        request.setHeader("Content-Language", "en")
        let response = try await client.execute(request).validate().get()
        #expect(response.redirectCount == 1)
        #expect(response.url == faults.url("/echo"))
        let echo = try response.decode(RawEcho.self)
        #expect(echo.method == row.then.rawValue)
        #expect(echo.lines(named: "X-Kept") == ["X-Kept: yes"], "other fields go along")
        if row.keepsBody {
            #expect(echo.body == "payload")
            #expect(echo.lines(named: "Content-Type") == ["Content-Type: text/plain; charset=utf-8"])
            #expect(echo.lines(named: "Content-Length") == ["Content-Length: 7"])
            #expect(echo.lines(named: "Content-Language") == ["Content-Language: en"])
        } else {
            #expect(echo.body == "")
            #expect(echo.lines(named: "Content-Type").isEmpty, "\(echo.lines)")
            #expect(echo.lines(named: "Content-Length").isEmpty || echo.lines(named: "Content-Length") == ["Content-Length: 0"], "\(echo.lines)")
            #expect(echo.lines(named: "Content-Language").isEmpty || body == nil, "\(echo.lines)")
        }
    }

    @Test func aFileBodyIsSentAgainAfterA307() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let content = String(repeating: "file body ", count: 10_000)
        try content.write(toFile: directory + "/body.txt", atomically: false, encoding: .utf8)
        let request = CurlRequest(.put, faults.url("/redirect?status=307&to=/echo"), body: .file(directory + "/body.txt", contentType: "text/plain"))
        let echo = try await client.execute(request).validate().decode(RawEcho.self).get()
        #expect(echo.method == "PUT")
        #expect(echo.body == content)
    }

    @Test func headStaysHeadOnA303() async throws {
        let response = try await client.head(faults.url("/redirect?status=303&to=/set-cookie")).validate().get()
        #expect(response.redirectCount == 1)
        #expect(response.url == faults.url("/set-cookie"))
        #expect(response.body.isEmpty)
    }

    @Test(arguments: [300, 304, 305, 306])
    func otherRedirectStatusesAreReturnedAsTheyAre(_ status: Int) async throws {
        let response = try await client.get(faults.url("/redirect?status=\(status)&to=/echo")).get()
        #expect(response.status.code == status)
        #expect(response.redirectCount == 0)
        #expect(response.headerFields[.location] == "/echo")
    }

    @Test func aChainOfRedirectsKeepsTheRulesOfEachHop() async throws {
        // POST —307→ POST —302→ GET: the body goes along once, then is dropped.
        let inner = "/redirect?status=302%26to=/echo"
        let request = CurlRequest(.post, faults.url("/redirect?status=307&to=\(inner)"), body: .text("payload"))
        let response = try await client.execute(request).validate().get()
        #expect(response.redirectCount == 2)
        let echo = try response.decode(RawEcho.self)
        #expect(echo.method == "GET")
        #expect(echo.body == "")
        #expect(echo.lines(named: "Content-Type").isEmpty)
    }
}

extension RedirectMethodTests {
    @Test func credentialsInTheURLGoToTheFirstOriginOnly() async throws {
        let port = faults.ports["http"]!
        // Same origin: libcurl sends the URL's user and password as Basic credentials.
        let same = try await client.get("http://user:secret@127.0.0.1:\(port)/redirect?status=302&to=/echo").validate().decode(RawEcho.self).get()
        #expect(same.lines(named: "Authorization") == ["Authorization: Basic dXNlcjpzZWNyZXQ="])
        // Another host name: neither the URL's credentials nor the Authorization and Cookie fields.
        var request = CurlRequest(
            .get, "http://user:secret@127.0.0.1:\(port)/redirect", headers: ["Authorization": "Bearer token", "Cookie": "a=1", "Host": "127.0.0.1:\(port)"])
        request.appendQuery([("status", "307"), ("to", "http://localhost:\(port)/echo")])
        let response = try await client.execute(request).validate().get()
        #expect(response.url == "http://localhost:\(port)/echo")
        let other = try response.decode(RawEcho.self)
        #expect(other.lines(named: "Authorization").isEmpty, "\(other.lines)")
        #expect(other.lines(named: "Cookie").isEmpty, "\(other.lines)")
        #expect(other.lines(named: "Host") == ["Host: localhost:\(port)"], "the request's own Host stays with its origin")
        // Another port on the same host is another origin too.
        var toPort = CurlRequest(.get, faults.url("/redirect"), headers: ["Authorization": "Bearer token"])
        toPort.appendQuery([("to", TestServer.httpbin.url("/headers"))])
        let echo = try await client.execute(toPort).validate().decode(Echo.self).get()
        #expect(echo.headers?["Authorization"] == nil)
    }

    @Test func aDownloadStoresTheBodyTheRedirectLeadsTo() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let response = try await client.download(CurlRequest(.get, faults.url("/redirect?status=302&to=/set-cookie")), to: directory + "/saved").get()
        #expect(response.redirectCount == 1)
        #expect(try String(contentsOfFile: directory + "/saved", encoding: .utf8) == "ok")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["saved"])
    }

    @Test func theTotalTimeoutCoversTheWholeChain() async throws {
        var request = CurlRequest(.get, faults.url("/redirect?status=302&to=/never"))
        request.timeout = .milliseconds(300)
        let start = ContinuousClock.now
        let promise = client.execute(request)
        let settled = SettleTime(of: promise)
        let error = await #expect(throws: CurlError.self) { try await promise.get() }
        #expect(error?.code == .operationTimedOut, "\(String(describing: error))")
        expectTimeLimit(settled.since(start), under: .seconds(10), "the redirected request with a 300 ms total timeout settling")
    }
}

extension RedirectMethodTests {
    /// A redirect whose `Content-Length` is over the request's body limit is still followed:
    /// its body is dropped, and the limit is the final response's.
    @Test func aRedirectWhoseBodyIsOverTheLimitIsFollowed() async throws {
        var request = CurlRequest(.get, faults.url("/redirect?status=301&body=2000&to=/set-cookie"))
        request.maxResponseBodySize = 1000
        let response = try await client.execute(request).validate().get()
        #expect(response.text == "ok")
        var tooLarge = CurlRequest(.get, faults.url("/redirect?status=301&body=10&to=/redirect%3Fstatus%3D200%26body%3D2000"))
        tooLarge.maxResponseBodySize = 1000
        let error = await #expect(throws: CurlError.self) { try await client.execute(tooLarge).get() }
        #expect(error?.code == .responseTooLarge, "\(String(describing: error))")
        #expect(error?.message.contains("Content-Length says so") == true, "\(String(describing: error))")
    }

    @Test func theBodyOfAFollowedRedirectIsDroppedUpTo1MiB() async throws {
        let small = try await client.get(faults.url("/redirect?status=302&body=100000&to=/set-cookie")).validate().get()
        #expect(small.text == "ok", "only the target's body")
        let error = await #expect(throws: CurlError.self) { try await client.get(faults.url("/redirect?status=302&body=\(2 << 20)&to=/echo")).get() }
        #expect(error?.code == .responseTooLarge, "\(String(describing: error))")
        #expect(error?.message.contains("302 redirect") == true, "\(String(describing: error))")
    }
}
