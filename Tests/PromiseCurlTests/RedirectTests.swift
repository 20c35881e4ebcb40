import PromiseTestSupport
import Testing

@testable import PromiseCurl

@Suite struct RedirectTests {
    let client: CurlClient
    let server = TestServer.httpbin

    init() throws { client = try CurlClient() }

    @Test func redirectsAreFollowed() async throws {
        let response = try await client.get(server.url("/redirect/3")).validate().get()
        #expect(response.redirectCount == 3)
        #expect(response.url == server.url("/get"))
    }

    @Test func theRedirectLimitHolds() async throws {
        let error = await #expect(throws: CurlError.self) { try await client.get(server.url("/redirect/11")).get() }
        #expect(error?.code == .tooManyRedirects)
        var request = CurlRequest(.get, server.url("/redirect/2"))
        request.maxRedirects = 0
        let unfollowed = try await client.execute(request).get()
        #expect(unfollowed.status == .found)
        #expect(unfollowed.headerFields[.location] != nil)
    }

    @Test func credentialsAreNotSentToAnotherHost() async throws {
        let headers: KeyValuePairs<String, String> = ["Authorization": "Bearer secret", "Cookie": "session=secret"]
        // Same host: kept.
        let same = try await client.get(server.url("/redirect-to?url=/headers"), headers: headers).validate().decode(Echo.self).get()
        #expect(same.headers?["Authorization"] == "Bearer secret")
        // Another host name (localhost is not 127.0.0.1 to libcurl): dropped.
        let other = server.url("/headers", port: "http", host: "localhost")
        var request = CurlRequest(.get, server.url("/redirect-to"), headers: headers)
        request.appendQuery([("url", other)])
        let echo = try await client.execute(request).validate().decode(Echo.self).get()
        #expect(echo.headers?["Authorization"] == nil)
        #expect(echo.headers?["Cookie"] == nil)
    }

    @Test func redirectsToOtherSchemesAreRefused() async throws {
        var request = CurlRequest(.get, server.url("/redirect-to"))
        request.appendQuery([("url", "file:///etc/passwd")])
        let error = await #expect(throws: CurlError.self) { try await client.execute(request).get() }
        #expect(error?.code == .unsupportedProtocol)
    }
}
