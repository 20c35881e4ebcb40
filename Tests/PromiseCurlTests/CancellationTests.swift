import Foundation
import PromiseTestSupport
import Testing

@testable import PromiseCurl

/// Cancellation and time-outs stop the transfer in every state.
@Suite struct CancellationTests {
    let faults = TestServer.faults

    /// A body trickled over 600 s: a test stops it mid-body however long the busy test runner
    /// takes to resume the test (the plain `/trickle` ends after 10 s).
    static let longTrickle = "/trickle?bytes=6000"

    @Test func cancelBeforeTheDriverStartsIt() async throws {
        let client = try CurlClient()
        let promise = client.get(faults.url("/never"))
        promise.cancel()
        await #expect(throws: CancellationError.self) { try await promise.get() }
        #expect(try await eventually { client.pendingRequests == 0 })
        try await client.shutdown().get()
    }

    @Test func cancelWhileQueuedForAConnection() async throws {
        var configuration = CurlConfiguration()
        configuration.stallTimeout = nil  // `/never` stays silent however late the test resumes
        configuration.maxConnections = 1
        configuration.maxConnectionsPerHost = 1
        let client = try CurlClient(configuration: configuration)
        let holder = client.get(faults.url("/never"))
        try await Task.sleep(for: .milliseconds(100))
        let queued = client.get(faults.url("/never"))
        try await Task.sleep(for: .milliseconds(100))
        #expect(queued.isPending)
        queued.cancel()
        await #expect(throws: CancellationError.self) { try await queued.get() }
        holder.cancel()
        #expect(try await eventually { client.pendingRequests == 0 })
        // The connection slot is free again.
        let after = try await client.get(TestServer.nginx.url("/hello")).validate().get()
        #expect(after.text == "hello\n")
        try await client.shutdown().get()
    }

    /// A connection limit of 0 or less is 1, not libcurl's "no limit": a second request waits
    /// while the first holds the one connection.
    @Test(arguments: [0, -5])
    func aConnectionLimitBelowOneIsOne(limit: Int) async throws {
        var configuration = CurlConfiguration()
        configuration.stallTimeout = nil  // `/never` stays silent however late the test resumes
        configuration.maxConnections = limit
        configuration.maxConnectionsPerHost = limit
        let client = try CurlClient(configuration: configuration)
        let holder = client.get(faults.url("/never"))
        try await Task.sleep(for: .milliseconds(300))
        let queued = client.get(TestServer.nginx.url("/hello"))
        try await Task.sleep(for: .milliseconds(300))
        #expect(queued.isPending, "a second connection was opened")
        holder.cancel()
        #expect(try await queued.validate().get().text == "hello\n")
        try await client.shutdown().get()
    }

    @Test func cancelWhileConnecting() async throws {
        // The fault server never speaks TLS, so the handshake hangs: the transfer is connecting.
        var configuration = CurlConfiguration()
        configuration.connectTimeout = .seconds(600)  // far longer than the test runner can stall
        let client = try CurlClient(configuration: configuration)
        let promise = client.get(faults.url("/", port: "http", scheme: "https"))
        try await Task.sleep(for: .milliseconds(200))
        #expect(promise.isPending)
        let settled = SettleTime(of: promise)
        let start = ContinuousClock.now
        promise.cancel()
        await #expect(throws: CancellationError.self) { try await promise.get() }
        #expect(try await eventually { client.pendingRequests == 0 })
        expectTimeLimit(settled.since(start), under: .seconds(10), "the cancelled connect settling (the connect timeout is 600 s)")
        try await client.shutdown().get()
    }

    @Test func connectTimeoutWhileConnecting() async throws {
        var configuration = CurlConfiguration()
        configuration.connectTimeout = .milliseconds(300)
        let client = try CurlClient(configuration: configuration)
        let error = await #expect(throws: CurlError.self) {
            try await client.get(faults.url("/", port: "http", scheme: "https")).get()
        }
        #expect(error?.code == .operationTimedOut)
        try await client.shutdown().get()
    }

    @Test func cancelWhileTransferring() async throws {
        let client = try CurlClient()
        let started = Lock(false)
        var request = CurlRequest(.get, faults.url(Self.longTrickle))
        request.onProgress = { progress in if progress.downloaded > 0 { started.withLock { $0 = true } } }
        let promise = client.execute(request)
        #expect(try await eventually { started.withLock { $0 } }, "the body started arriving")
        promise.cancel()
        await #expect(throws: CancellationError.self) { try await promise.get() }
        #expect(try await eventually { client.pendingRequests == 0 }, "the transfer was removed, not left running")
        try await client.shutdown().get()
    }

    @Test func coreTimeoutAbortsTheTransfer() async throws {
        let client = try CurlClient()
        let start = ContinuousClock.now
        let promise = client.get(faults.url(Self.longTrickle)).then { $0.text }.timeout(.milliseconds(300))
        let settled = SettleTime(of: promise)
        let error = await #expect(throws: PromiseError.self) { try await promise.get() }
        #expect(error?.code == .timedOut)
        #expect(try await eventually { client.pendingRequests == 0 }, "upward cancellation reached the transfer")
        expectTimeLimit(settled.since(start), under: .seconds(10), "the timed-out transfer settling (the trickle takes 600 s)")
        try await client.shutdown().get()
    }

    @Test func cancelledDownloadLeavesNoFile() async throws {
        let client = try CurlClient()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let started = Lock(false)
        var request = CurlRequest(.get, faults.url(Self.longTrickle))
        request.onProgress = { progress in if progress.downloaded > 0 { started.withLock { $0 = true } } }
        let promise = client.download(request, to: directory + "/out.bin")
        #expect(try await eventually { started.withLock { $0 } })
        promise.cancel()
        #expect(try await eventually { client.pendingRequests == 0 })
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
        try await client.shutdown().get()
    }

    @Test func aResponseThatNeverComesDoesNotHoldUpOtherRequestsToTheSameHost() async throws {
        // Regression: CURLOPT_PIPEWAIT on plain HTTP/1.1 made the second request wait for the
        // first connection to learn whether it multiplexes, which needs its response headers.
        var configuration = CurlConfiguration()
        configuration.stallTimeout = nil  // `/never` stays silent however late the test resumes
        let client = try CurlClient(configuration: configuration)
        let stuck = client.get(faults.url("/never"))
        try await Task.sleep(for: .milliseconds(100))
        var request = CurlRequest(.get, faults.url("/"))
        request.timeout = .seconds(10)
        let response = try await client.execute(request).get()
        #expect(response.text == "ok")
        #expect(stuck.isPending)
        stuck.cancel()
        try await client.shutdown().get()
    }

    @Test func onlyTransfersThatCanMultiplexWaitForAConnection() throws {
        func scheme(_ url: String) throws -> String { try URLParts.parse(url).get().scheme }
        #expect(Transfer.canMultiplex(scheme: try scheme("https://example.org/"), .automatic))
        #expect(Transfer.canMultiplex(scheme: try scheme("HTTPS://example.org/"), .automatic))
        #expect(!Transfer.canMultiplex(scheme: try scheme("https://example.org/"), .http1_1))
        #expect(!Transfer.canMultiplex(scheme: try scheme("http://example.org/"), .automatic))
        #expect(Transfer.canMultiplex(scheme: try scheme("http://example.org/"), .http2PriorKnowledge))
        #expect(!Transfer.canMultiplex(scheme: try scheme("httpsx://example.org/"), .automatic))
    }
}
