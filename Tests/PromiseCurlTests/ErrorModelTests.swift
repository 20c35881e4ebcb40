import PromiseCore
@testable import PromiseCurl
import PromiseTestSupport
import Testing

/// `CurlError` has the shape every product's error has (`PromiseLibraryError`).
@Suite struct CurlErrorModelTests {
    @Test func curlErrorFollowsTheModel() {
        expectTheErrorModel {
            CurlError(.couldNotConnect, message: "connection refused by 127.0.0.1:9", method: "GET", url: "http://127.0.0.1:9/", underlying: $0)
        }
        let error = CurlError(.couldNotConnect, message: "refused", method: "GET", url: "http://127.0.0.1:9/")
        #expect(error != CurlError(.couldNotConnect, message: "refused", method: "POST", url: "http://127.0.0.1:9/"), "the method counts")
        // A bad argument and a request libcurl cannot make are two conditions, each printed by
        // its own name.
        #expect(CurlError.Code.invalidArgument != .invalidRequest && !(CurlError.Code.invalidArgument ~= CurlError(.invalidRequest, message: "bad URL")))
        #expect(CurlError.Code.invalidArgument.name == "invalidArgument" && CurlError.Code.invalidArgument.curlCode == nil)
    }
}

/// The adapters' deinit policy: an owner dropped without `shutdown()` is cleaned up on its own
/// thread, and reported only when that loses something (here, requests in flight).
@Suite struct CurlDeinitPolicyTests {
    @Test func aClientDroppedWithRequestsInFlightIsReportedAnIdleOneIsNot() async throws {
        NotShutDownRecorder.install
        var idle = CurlConfiguration()
        idle.threadName = "curl-idle-\(UInt32.random(in: 0...UInt32.max))"
        do { _ = try CurlClient(configuration: idle) }
        #expect(NotShutDownRecorder.reports(mentioning: idle.threadName).isEmpty, "an idle client loses nothing")

        var busy = CurlConfiguration()
        busy.threadName = "curl-busy-\(UInt32.random(in: 0...UInt32.max))"
        let request: Promise<CurlResponse>
        do {
            let client = try CurlClient(configuration: busy)
            request = client.get(TestServer.httpbin.url("/delay/10"))
        }
        let failure = await #expect(throws: CurlError.self) { try await request.get() }
        #expect(failure?.code == .shutdown, "the request in flight is failed, not left pending")
        #expect(NotShutDownRecorder.reports(mentioning: busy.threadName).count == 1)
    }
}

/// A client that could not start (what `CurlClient.shared` becomes when libcurl or its thread
/// cannot be set up) rejects every request with the reason instead of stopping the process.
@Suite struct CurlClientThatCouldNotStartTests {
    @Test func everyRequestRejectsWithTheReason() async throws {
        let client = CurlClient(refusingWith: CurlError(.internalError, message: "curl_global_init failed"), isShared: false)
        let url = TestServer.httpbin.url("/get")
        let failure = await #expect(throws: CurlError.self) { try await client.get(url).get() }
        #expect(failure?.code == .internalError && failure?.message == "curl_global_init failed", "\(String(describing: failure))")
        #expect(failure?.method == "GET" && failure?.url == url)
        try await client.shutdown().get()
        #expect(client.pendingRequests == 0)
    }

    @Test func aShutDownClientSaysSo() async throws {
        let client = try CurlClient()
        try await client.shutdown().get()
        let failure = await #expect(throws: CurlError.self) { try await client.get(TestServer.httpbin.url("/get")).get() }
        #expect(failure?.code == .shutdown && failure?.message == "the client was shut down; make a new CurlClient")
    }
}
