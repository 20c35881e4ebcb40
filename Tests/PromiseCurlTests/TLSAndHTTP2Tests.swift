import PromiseTestSupport
import Testing

@testable import PromiseCurl

@Suite struct TLSAndHTTP2Tests {
    let nginx = TestServer.nginx

    @Test func aSelfSignedCertificateIsRefusedByDefault() async throws {
        let client = try CurlClient()
        let error = await #expect(throws: CurlError.self) {
            try await client.get(nginx.url("/hello", port: "https", scheme: "https")).get()
        }
        #expect(error?.code == .peerFailedVerification, "\(String(describing: error))")
        try await client.shutdown().get()
    }

    @Test func theCertificateGivenAsCAIsAcceptedOverHTTP2() async throws {
        var configuration = CurlConfiguration()
        configuration.tls.caFile = nginx.caFile
        let client = try CurlClient(configuration: configuration)
        let response = try await client.get(nginx.url("/hello", port: "https", scheme: "https")).validate().get()
        #expect(response.text == "hello\n")
        #expect(response.httpVersion == "2", "ALPN picked HTTP/2")
        // The certificate names 127.0.0.1 and localhost; verification of the name is on.
        let byName = try await client.get(nginx.url("/hello", port: "https", scheme: "https", host: "localhost")).validate().get()
        #expect(byName.status == .ok)
        try await client.shutdown().get()
    }

    @Test func manyRequestsMultiplexOverHTTP2() async throws {
        var configuration = CurlConfiguration()
        configuration.tls.caFile = nginx.caFile
        configuration.maxConnectionsPerHost = 1
        let client = try CurlClient(configuration: configuration)
        let url = nginx.url("/small.txt", port: "https", scheme: "https")
        let responses = try await all((0..<200).map { _ in client.get(url).validate() }).get()
        #expect(responses.count == 200)
        #expect(responses.allSatisfy { $0.httpVersion == "2" && $0.text == "hello from nginx\n" })
        try await client.shutdown().get()
    }

    @Test func h2cWithPriorKnowledge() async throws {
        var configuration = CurlConfiguration()
        configuration.httpVersion = .http2PriorKnowledge
        let client = try CurlClient(configuration: configuration)
        let response = try await client.get(nginx.url("/hello", port: "h2c")).validate().get()
        #expect(response.httpVersion == "2")
        #expect(response.text == "hello\n")
        try await client.shutdown().get()
    }

    @Test func http1OnlyStaysOnHTTP1() async throws {
        var configuration = CurlConfiguration()
        configuration.tls.caFile = nginx.caFile
        configuration.httpVersion = .http1_1
        let client = try CurlClient(configuration: configuration)
        let response = try await client.get(nginx.url("/hello", port: "https", scheme: "https")).validate().get()
        #expect(response.httpVersion == "1.1")
        try await client.shutdown().get()
    }
}
