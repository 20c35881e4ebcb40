import PromiseTestSupport
import Testing

@testable import PromiseCurl

/// A password in a request URL never reaches an error message, a description or
/// `CurlResponse.url`: the user information reads `***@` wherever a URL is shown.
@Suite struct SecretRedactionTests {
    let client: CurlClient
    let httpbin = TestServer.httpbin

    init() throws { client = try CurlClient() }

    /// `url` with `user:secret@` put after its `://`.
    func withPassword(_ url: String) -> String {
        url.replacing("://", with: "://user:secret@")
    }

    @Test func redactionKeepsEverythingButTheUserInformation() {
        #expect(redactingUserInfo("http://user:secret@127.0.0.1:8080/a?b=c") == "http://***@127.0.0.1:8080/a?b=c")
        #expect(redactingUserInfo("https://token@example.test/") == "https://***@example.test/")
        #expect(redactingUserInfo("http://a@b:c@host/") == "http://***@host/", "up to the last @ of the authority")
        #expect(redactingUserInfo("http://host/path@not-userinfo?q=@x#@y") == "http://host/path@not-userinfo?q=@x#@y")
        #expect(redactingUserInfo("http://host:80") == "http://host:80")
        #expect(redactingUserInfo("user:secret@host") == "user:secret@host", "no scheme, no authority to redact")
        #expect(redactingUserInfo("") == "")
    }

    @Test func aRefusedConnectionDoesNotShowThePassword() async throws {
        let url = withPassword("http://127.0.0.1:\(refusedPort())/")
        let error = await #expect(throws: CurlError.self) { try await client.get(url).get() }
        #expect(error?.code == .couldNotConnect)
        let text = "\(error?.description ?? "") \(error?.message ?? "") \(error?.url ?? "")"
        #expect(!text.contains("secret"), "\(text)")
        #expect(error?.url.hasPrefix("http://***@127.0.0.1:") == true, "\(text)")
    }

    @Test func anInvalidURLDoesNotShowThePassword() async throws {
        let error = await #expect(throws: CurlError.self) { try await client.get("http://user:secret@bad host/").get() }
        #expect(error?.code == .invalidRequest)
        let text = "\(error?.description ?? "") \(error?.message ?? "")"
        #expect(!text.contains("secret"), "\(text)")
        #expect(text.contains("***@bad host"), "\(text)")
    }

    @Test func aResponseAndItsBadStatusDoNotShowThePassword() async throws {
        let response = try await client.get(withPassword(httpbin.url("/status/404"))).get()
        #expect(response.status.code == 404)
        #expect(!response.url.contains("secret") && response.url.contains("***@"), "\(response.url)")
        let error = #expect(throws: CurlError.self) { try response.validate() }
        #expect(error?.code == .badStatus)
        #expect(error?.description.contains("secret") == false, "\(String(describing: error))")
    }
}
