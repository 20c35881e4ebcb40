import PromiseTestSupport
import Foundation
import Testing

@testable import PromiseCurl

@Suite struct LoadAndShutdownTests {
    @Test func tenThousandConcurrentRequestsOnOneClient() async throws {
        let client = try CurlClient()
        let url = TestServer.nginx.url("/hello")
        let promises = (0..<10_000).map { _ in client.get(url).validate() }
        let responses = try await all(promises).get()
        #expect(responses.count == 10_000)
        #expect(responses.allSatisfy { $0.text == "hello\n" })
        #expect(client.pendingRequests == 0)
        try await client.shutdown().get()
    }

    /// A client whose requests never stall out: `/never` stays in flight however late a busy
    /// test runner resumes the test (the default stall timeout is 60 s).
    private func patientClient() throws -> CurlClient {
        var configuration = CurlConfiguration()
        configuration.stallTimeout = nil
        return try CurlClient(configuration: configuration)
    }

    @Test func shutdownFailsInFlightRequestsAndRefusesNewOnes() async throws {
        let client = try patientClient()
        let inFlight = client.get(TestServer.faults.url("/never"))
        try await Task.sleep(for: .milliseconds(100))
        try await client.shutdown().get()
        let error = await #expect(throws: CurlError.self) { try await inFlight.get() }
        #expect(error?.code == .shutdown)
        let late = client.get(TestServer.nginx.url("/hello"))
        #expect(late.isRejected)
        #expect(late.error.map { CurlError.Code.shutdown ~= $0 } == true)
        // A second shutdown is fulfilled too.
        try await client.shutdown().get()
        #expect(client.pendingRequests == 0)
    }

    @Test func sharedClientWorksAndIsNeverShutDown() async throws {
        let response = try await CurlClient.shared.get(TestServer.nginx.url("/hello")).validate().get()
        #expect(response.text == "hello\n")
        let error = await #expect(throws: CurlError.self) { try await CurlClient.shared.shutdown().get() }
        #expect(error?.code == .invalidRequest)
    }

    @Test func aReleasedClientShutsItselfDown() async throws {
        weak var weakClient: CurlClient?
        var promise: Promise<CurlResponse>?
        do {
            let client = try patientClient()
            weakClient = client
            promise = client.get(TestServer.faults.url("/never"))
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(weakClient == nil)
        let error = await #expect(throws: CurlError.self) { try await promise!.get() }
        #expect(error?.code == .shutdown)
    }

    @Test func libcurlVersionIsDebians() {
        #expect(CurlClient.libcurlVersion.hasPrefix("libcurl/7.88"))
    }
}
