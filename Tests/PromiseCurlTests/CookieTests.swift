import Foundation
import PromiseTestSupport
import Testing

@testable import PromiseCurl

/// `CurlConfiguration.keepsCookies`: an in-memory store per client, against httpbin's cookie
/// endpoints, and next to the curl CLI's cookie engine (`-b ''`) given the same `Set-Cookie`.
@Suite struct CookieTests {
    let httpbin = TestServer.httpbin

    private struct Jar: Decodable { let cookies: [String: String] }

    private func client(keepsCookies: Bool = true) throws -> CurlClient {
        var configuration = CurlConfiguration()
        configuration.keepsCookies = keepsCookies
        return try CurlClient(configuration: configuration)
    }

    /// What httpbin's `/cookies` receives from `client`.
    private func cookies(_ client: CurlClient) async throws -> [String: String] {
        try await client.get(httpbin.url("/cookies")).validate().get().decode(Jar.self).cookies
    }

    /// `/response-headers` answering with one `Set-Cookie` field.
    private func setting(_ line: String) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+;")
        return httpbin.url("/response-headers?Set-Cookie=" + line.addingPercentEncoding(withAllowedCharacters: allowed)!)
    }

    @Test func noCookieIsKeptUnlessAsked() async throws {
        let plain = try client(keepsCookies: false)
        let afterSet = try await plain.get(httpbin.url("/cookies/set?a=1")).validate().get().decode(Jar.self)
        #expect(afterSet.cookies.isEmpty, "the redirect after Set-Cookie carried a cookie")
        #expect(try await cookies(plain).isEmpty)
        try await plain.shutdown().get()
    }

    @Test func cookiesAreKeptSentAndDeletedPerClient() async throws {
        let first = try client()
        // /cookies/set answers with Set-Cookie and a redirect to /cookies: the redirected
        // request already carries them.
        let afterSet = try await first.get(httpbin.url("/cookies/set?a=1&b=2")).validate().get().decode(Jar.self)
        #expect(afterSet.cookies == ["a": "1", "b": "2"])
        #expect(try await cookies(first) == ["a": "1", "b": "2"])

        let second = try client()
        #expect(try await cookies(second).isEmpty, "another client saw the first one's cookies")

        _ = try await first.get(httpbin.url("/cookies/delete?a")).validate().get()
        #expect(try await cookies(first) == ["b": "2"])
        _ = try await first.get(setting("b=gone; Max-Age=0")).validate().get()
        #expect(try await cookies(first).isEmpty)

        try await first.shutdown().get()
        try await second.shutdown().get()
    }

    @Test func aCookieGoesOnlyWhereItsPathSays() async throws {
        let scoped = try client()
        _ = try await scoped.get(setting("scoped=1; Path=/anything")).validate().get()
        #expect(try await cookies(scoped).isEmpty)
        let echo = try await scoped.get(httpbin.url("/anything/deeper")).validate().get().decode(Echo.self)
        #expect(echo.headers?["Cookie"] == "scoped=1")
        try await scoped.shutdown().get()
    }

    /// Hostile `Set-Cookie` lines are dropped exactly as the curl CLI drops them, and the
    /// client goes on working.
    @Test func hostileSetCookieLinesMatchTheCurlCLI() async throws {
        let lines = [
            "plain=1",
            "other=1; Domain=example.com",
            "secure=1; Secure",
            "past=1; Expires=Thu, 01 Jan 1970 00:00:00 GMT",
            "long=" + String(repeating: "x", count: 3_000),
            "empty=",
            "semicolons=1;;; Path=/",
            "__Host-prefixed=1; Path=/",
            "spaced = padded value ",
            "=nameless",
            "quoted=\"a b\"",
        ]
        for line in lines {
            let ours = try client()
            _ = try await ours.get(setting(line)).validate().get()
            let kept = try await cookies(ours)
            try await ours.shutdown().get()

            let cli = try await runCurlCLI(["-b", "", "-o", "/dev/null", setting(line), httpbin.url("/cookies")])
            #expect(cli.status == 0, "curl \(line.prefix(40)): \(cli.status)")
            let expected = try JSONDecoder().decode(Jar.self, from: Data(cli.output.utf8)).cookies
            #expect(kept == expected, "Set-Cookie: \(line.prefix(60)) — PromiseCurl kept \(kept), the curl CLI \(expected)")
        }
        // What the rules above mean, for the lines a test can name: only these were kept.
        let check = try client()
        for line in lines { _ = try await check.get(setting(line)).validate().get() }
        let all = try await cookies(check)
        #expect(all["plain"] == "1")
        #expect(all["other"] == nil && all["past"] == nil && all["__Host-prefixed"] == nil)
        // libcurl treats a loopback host as a secure origin: a `Secure` cookie from
        // http://127.0.0.1 is kept (the curl CLI keeps it too).
        #expect(all["secure"] == "1")
        #expect(all["long"]?.utf8.count == 3_000)
        try await check.shutdown().get()
    }

    @Test func aClientThatKeepsCookiesShutsDownWithTransfersInFlight() async throws {
        let busy = try client()
        _ = try await busy.get(httpbin.url("/cookies/set?k=1")).validate().get()
        let slow = (0..<4).map { _ in busy.get(httpbin.url("/delay/10")) }
        try await busy.shutdown().get()
        for request in slow {
            let error = await #expect(throws: CurlError.self) { try await request.get() }
            #expect(error?.code == .shutdown)
        }
    }
}
