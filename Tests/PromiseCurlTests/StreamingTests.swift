import Foundation
import PromiseCore
import PromiseTestSupport
import Testing

@testable import PromiseCurl

/// The bytes of the fault server's `/stream?bytes=N`: byte i is i % 251.
private func streamPattern(_ count: Int) -> [UInt8] {
    (0..<count).map { UInt8($0 % 251) }
}

/// Reads a whole body, chunk by chunk.
private func readAll(_ body: CurlBodyStream) async throws -> [UInt8] {
    var bytes: [UInt8] = []
    for try await chunk in body { bytes += chunk }
    return bytes
}

@Suite struct StreamingTests {
    let client: CurlClient
    let faults = TestServer.faults

    init() throws { client = try CurlClient() }

    @Test func aBodyStreamsWholeAndInOrder() async throws {
        let streamed = try await client.stream(CurlRequest(.get, faults.url("/stream?bytes=3000000"))).get().validate()
        #expect(streamed.status == .ok)
        #expect(streamed.response.body.isEmpty)
        #expect(try await readAll(streamed.body) == streamPattern(3_000_000))
        #expect(client.pendingRequests == 0)
    }

    @Test func aCompressedBodyStreamsDecoded() async throws {
        let nginx = TestServer.nginx
        let streamed = try await client.stream(CurlRequest(.get, nginx.url("/text.txt"))).get()
        #expect(streamed.headerFields[.contentEncoding] == "gzip")
        let text = String(decoding: try await readAll(streamed.body), as: UTF8.self)
        #expect(text == (0..<20000).map { "line \($0) of a compressible text\n" }.joined())
    }

    @Test func theHeadArrivesBeforeAnyBody() async throws {
        // The server sends its head, then nothing: the head must not wait for the body.
        let streamed = try await client.stream(CurlRequest(.get, faults.url("/silence"))).get()
        #expect(streamed.status == .ok)
        #expect(streamed.headerFields[.contentLength] == "100")
        #expect(streamed.body.statistics.mostBufferedBytes == 0)
        streamed.body.cancel()
        await #expect(throws: CancellationError.self) { try await readAll(streamed.body) }
        #expect(try await eventually { client.pendingRequests == 0 })
    }

    @Test func aRedirectIsFollowedAndOnlyTheFinalBodyStreams() async throws {
        let target = "/stream%3Fbytes%3D5000"
        let streamed = try await client.stream(CurlRequest(.get, faults.url("/redirect?to=\(target)&body=70000"))).get()
        #expect(streamed.response.redirectCount == 1)
        #expect(streamed.response.url.hasSuffix("/stream?bytes=5000"))
        #expect(try await readAll(streamed.body) == streamPattern(5000))
    }

    @Test func anEmptyBodyEndsAtOnce() async throws {
        let streamed = try await client.stream(CurlRequest(.head, faults.url("/stream?bytes=10"))).get()
        var iterator = streamed.body.makeAsyncIterator()
        #expect(try await iterator.next() == nil)
        #expect(try await iterator.next() == nil, "the end stays the end")
    }
}

// MARK: Backpressure

extension StreamingTests {
    /// A consumer that stops reading: the buffer stays within its limit however long it waits,
    /// the transfer pauses, and the body is whole once it reads again.
    @Test(arguments: [16 << 10, 100_000])
    func aConsumerThatFallsBehindPausesTheTransfer(_ limit: Int) async throws {
        let total = 8 << 20
        let streamed = try await client.stream(CurlRequest(.get, faults.url("/stream?bytes=\(total)")), bufferLimit: limit).get()
        var iterator = streamed.body.makeAsyncIterator()
        var received = try await iterator.next() ?? []
        // Read nothing for a while: the server could send all 8 MiB in that time.
        #expect(try await eventually { streamed.body.statistics.pauses >= 1 })
        try await Task.sleep(for: .milliseconds(300))
        let held = streamed.body.statistics
        #expect(held.mostBufferedBytes <= max(limit, 16 << 10), "\(held)")
        #expect(held.limit == limit)
        while let chunk = try await iterator.next() { received += chunk }
        #expect(received == streamPattern(total))
        let after = streamed.body.statistics
        #expect(after.mostBufferedBytes <= max(limit, 16 << 10), "\(after)")
    }

    /// A consumer that reads steadily but slowly (a chunk every 50 ms, where the server could
    /// send megabytes): the transfer pauses again and again, and the buffer never holds more
    /// than its limit.
    @Test func aSlowSteadyConsumerKeepsTheBufferWithinItsLimit() async throws {
        let limit = 40_000
        let streamed = try await client.stream(CurlRequest(.get, faults.url("/stream?bytes=8000000")), bufferLimit: limit).get()
        var iterator = streamed.body.makeAsyncIterator()
        var received = 0
        while received <= 3 * limit {
            guard let chunk = try await iterator.next() else { break }
            received += chunk.count
            #expect(streamed.body.statistics.mostBufferedBytes <= limit, "\(streamed.body.statistics)")
            try await Task.sleep(for: .milliseconds(50))
        }
        // More than the limit was read, so the transfer was resumed after a pause; unread now,
        // it pauses again.
        #expect(received > 3 * limit)
        #expect(try await eventually { streamed.body.statistics.pauses >= 2 }, "\(streamed.body.statistics)")
        #expect(streamed.body.statistics.mostBufferedBytes <= limit)
        streamed.body.cancel()
        #expect(try await eventually { client.pendingRequests == 0 })
    }

    @Test func theBoundHoldsOverHTTP2() async throws {
        let nginx = TestServer.nginx
        var configuration = CurlConfiguration()
        configuration.httpVersion = .http2PriorKnowledge
        configuration.decompressResponses = false
        let http2 = try CurlClient(configuration: configuration)
        defer { http2.shutdown() }
        let limit = 32 << 10
        let streamed = try await http2.stream(CurlRequest(.get, nginx.url("/text.txt", port: "h2c")), bufferLimit: limit).get()
        #expect(streamed.response.httpVersion == "2")
        var iterator = streamed.body.makeAsyncIterator()
        var received = try await iterator.next() ?? []
        #expect(try await eventually { streamed.body.statistics.pauses >= 1 })
        try await Task.sleep(for: .milliseconds(200))
        while let chunk = try await iterator.next() {
            received += chunk
            #expect(streamed.body.statistics.mostBufferedBytes <= limit + (16 << 10))
        }
        #expect(String(decoding: received, as: UTF8.self) == (0..<20000).map { "line \($0) of a compressible text\n" }.joined())
        #expect(streamed.body.statistics.mostBufferedBytes <= limit + (16 << 10), "\(streamed.body.statistics)")
    }

    @Test(arguments: [Int.min, -1, 0, 1])
    func aLimitBelowOneChunkStillMovesTheBody(_ limit: Int) async throws {
        let streamed = try await client.stream(CurlRequest(.get, faults.url("/stream?bytes=200000")), bufferLimit: limit).get()
        #expect(try await readAll(streamed.body) == streamPattern(200_000))
        let statistics = streamed.body.statistics
        #expect(statistics.limit == 1)
        #expect(statistics.mostBufferedBytes <= 16 << 10)
    }

    @Test func anUnboundedLimitNeverPauses() async throws {
        let streamed = try await client.stream(CurlRequest(.get, faults.url("/stream?bytes=2000000")), bufferLimit: .max).get()
        #expect(try await eventually { client.pendingRequests == 0 })
        #expect(streamed.body.statistics.pauses == 0)
        #expect(streamed.body.statistics.mostBufferedBytes == 2_000_000)
        #expect(try await readAll(streamed.body) == streamPattern(2_000_000))
    }
}

// MARK: Failures and misuse

extension StreamingTests {
    @Test func aConnectionCutMidBodyThrowsInsteadOfEnding() async throws {
        let streamed = try await client.stream(CurlRequest(.get, faults.url("/truncated"))).get()
        var received: [UInt8] = []
        let error = await #expect(throws: CurlError.self) {
            for try await chunk in streamed.body { received += chunk }
        }
        #expect(error?.code == .partialFile || error?.code == .receiveError, "\(String(describing: error))")
        #expect(error?.url.hasSuffix("/truncated") == true)
        #expect(received.count <= 10)
    }

    @Test func aBadStatusFailsValidationAndStopsTheTransfer() async throws {
        let streamed = try await client.stream(CurlRequest(.get, faults.url("/redirect?status=404&body=100000"))).get()
        let error = #expect(throws: CurlError.self) { try streamed.validate() }
        #expect(error?.code == .badStatus)
        #expect(error?.response?.status.code == 404)
        await #expect(throws: CancellationError.self) { try await readAll(streamed.body) }
    }

    @Test func theBodyHasOneReader() async throws {
        let streamed = try await client.stream(CurlRequest(.get, faults.url("/stream?bytes=1000"))).get()
        var first = streamed.body.makeAsyncIterator()
        var second = streamed.body.makeAsyncIterator()
        #expect(try await first.next() != nil)
        let error = await #expect(throws: CurlError.self) { try await second.next() }
        #expect(error?.code == .invalidArgument)
        let refused = await #expect(throws: CurlError.self) { try await streamed.body.forEach { _ in }.get() }
        #expect(refused?.code == .invalidArgument)
    }

    @Test func aFailureBeforeTheHeadRejectsThePromise() async throws {
        let error = await #expect(throws: CurlError.self) {
            try await client.stream(CurlRequest(.get, "http://127.0.0.1:\(refusedPort())/")).get()
        }
        #expect(error?.code == .couldNotConnect)
        let invalid = await #expect(throws: CurlError.self) { try await client.stream(CurlRequest(.get, "ftp://127.0.0.1/")).get() }
        #expect(invalid?.code == .invalidRequest || invalid?.code == .unsupportedProtocol, "\(String(describing: invalid))")
    }

    @Test func aShutdownMidBodyEndsTheStreamWithShutdown() async throws {
        let own = try CurlClient()
        let streamed = try await own.stream(CurlRequest(.get, faults.url("/trickle?bytes=100000"))).get()
        _ = try await own.shutdown().get()
        let error = await #expect(throws: CurlError.self) { try await readAll(streamed.body) }
        #expect(error?.code == .shutdown)
    }
}

// MARK: Cancellation at every step

extension StreamingTests {
    @Test func cancellingBeforeTheHeadStopsTheTransfer() async throws {
        let promise = client.stream(CurlRequest(.get, faults.url("/never")))
        promise.cancel()
        await #expect(throws: CancellationError.self) { try await promise.get() }
        #expect(try await eventually { client.pendingRequests == 0 })
    }

    @Test func cancellingTheReadingTaskStopsTheTransfer() async throws {
        let streamed = try await client.stream(CurlRequest(.get, faults.url("/trickle?bytes=100000"))).get()
        let reader = offPoolTask { try await readAll(streamed.body) }
        #expect(try await eventually { streamed.body.statistics.mostBufferedBytes > 0 })
        reader.cancel()
        await #expect(throws: CancellationError.self) { try await reader.value }
        #expect(try await eventually { client.pendingRequests == 0 })
    }

    @Test func cancellingWhilePausedStopsTheTransfer() async throws {
        let streamed = try await client.stream(CurlRequest(.get, faults.url("/stream?bytes=100000000")), bufferLimit: 1000).get()
        #expect(try await eventually { streamed.body.statistics.pauses >= 1 })
        streamed.body.cancel()
        #expect(try await eventually { client.pendingRequests == 0 })
        var iterator = streamed.body.makeAsyncIterator()
        await #expect(throws: CancellationError.self) { try await iterator.next() }
        #expect(try await iterator.next() == nil)
    }

    @Test func droppingTheBodyUnreadStopsTheTransfer() async throws {
        do {
            let streamed = try await client.stream(CurlRequest(.get, faults.url("/trickle?bytes=100000"))).get()
            #expect(streamed.status == .ok)
        }
        #expect(try await eventually { client.pendingRequests == 0 })
    }

    @Test func cancellingForEachStopsTheTransfer() async throws {
        let streamed = try await client.stream(CurlRequest(.get, faults.url("/trickle?bytes=100000"))).get()
        let seen = Lock(0)
        let done = streamed.body.forEach { chunk in seen.withLock { $0 += chunk.count } }
        #expect(try await eventually { seen.withLock { $0 } > 0 })
        done.cancel()
        await #expect(throws: CancellationError.self) { try await done.get() }
        #expect(try await eventually { client.pendingRequests == 0 })
    }
}

// MARK: Callbacks on a context

extension StreamingTests {
    @Test func forEachHandsEveryChunkOverOnItsQueueInOrder() async throws {
        let queue = DispatchQueue(label: "stream-consumer")
        let streamed = try await client.stream(CurlRequest(.get, faults.url("/stream?bytes=1000000")), bufferLimit: 50_000).get()
        let received = Lock([UInt8]())
        try await streamed.body.forEach(on: queue) { chunk in
            dispatchPrecondition(condition: .onQueue(queue))
            received.withLock { $0 += chunk }
        }.get()
        #expect(received.withLock { $0 } == streamPattern(1_000_000))
    }

    /// On the inline context the consumer runs on the client's thread once libcurl has
    /// returned (and on the caller's thread for what was buffered when `forEach` began).
    @Test func forEachOnTheInlineContextNeverRunsInsideLibcurl() async throws {
        var configuration = CurlConfiguration()
        configuration.threadName = "curl-inline"
        let own = try CurlClient(configuration: configuration)
        defer { own.shutdown() }
        let streamed = try await own.stream(CurlRequest(.get, faults.url("/stream?bytes=3000000")), bufferLimit: 20_000).get()
        let outbox = own.driver.progressOutbox
        struct Seen: Sendable {
            var onDriver = 0
            var insideLibcurl = 0
            var bytes = 0
        }
        let seen = Lock(Seen())
        try await streamed.body.forEach(on: InlineContext()) { chunk in
            // `insideLibcurl` belongs to the driver thread: read only there.
            let onDriver = currentThreadName() == "curl-inline"
            let inside = onDriver && outbox.insideLibcurl
            seen.withLock {
                $0.bytes += chunk.count
                if onDriver { $0.onDriver += 1 }
                if inside { $0.insideLibcurl += 1 }
            }
        }.get()
        let result = seen.withLock { $0 }
        #expect(result.bytes == 3_000_000)
        #expect(result.onDriver > 0, "the consumer ran on the client's thread")
        #expect(result.insideLibcurl == 0)
    }

    /// The response and its body are let go as soon as `forEach` is called; the consumer
    /// keeps the body until it has handed all of it over.
    @Test func forEachKeepsTheBodyItReads() async throws {
        let count = Lock(0)
        let done = client.stream(CurlRequest(.get, faults.url("/stream?bytes=400000")), bufferLimit: 20_000).then { streamed in
            streamed.body.forEach { chunk in count.withLock { $0 += chunk.count } }
        }
        try await done.get()
        #expect(count.withLock { $0 } == 400_000)
    }

    @Test func aThrowingForEachStopsTheTransferWithItsError() async throws {
        struct Enough: Error {}
        let streamed = try await client.stream(CurlRequest(.get, faults.url("/stream?bytes=50000000")), bufferLimit: 10_000).get()
        await #expect(throws: Enough.self) { try await streamed.body.forEach { _ in throw Enough() }.get() }
        #expect(try await eventually { client.pendingRequests == 0 })
    }
}

// MARK: Timeouts while paused

extension StreamingTests {
    /// libcurl does not check the stall limit of a paused transfer: a consumer that reads
    /// nothing for longer than the stall timeout is not a stall.
    @Test func aPausedTransferIsNotAStall() async throws {
        var request = CurlRequest(.get, faults.url("/stream?bytes=4000000"))
        request.stallTimeout = .seconds(1)
        let streamed = try await client.stream(request, bufferLimit: 16 << 10).get()
        var iterator = streamed.body.makeAsyncIterator()
        var received = try await iterator.next() ?? []
        try await Task.sleep(for: .milliseconds(2500))
        while let chunk = try await iterator.next() { received += chunk }
        #expect(received.count == 4_000_000)
    }
}

extension StreamingTests {
    @Test func aServerThatStopsSendingStillStalls() async throws {
        var request = CurlRequest(.get, faults.url("/silence"))
        request.stallTimeout = .seconds(1)
        let streamed = try await client.stream(request).get()
        let error = await #expect(throws: CurlError.self) { try await readAll(streamed.body) }
        #expect(error?.code == .operationTimedOut, "\(String(describing: error))")
        #expect(error?.message.contains("stalled") == true, "\(String(describing: error))")
    }
}

extension StreamingTests {
    /// A client that was shut down refuses the request, the stream is not left behind holding
    /// the transfer, and the produced body's producer never runs.
    @Test func aShutDownClientRefusesAndKeepsNothing() async throws {
        let own = try CurlClient()
        _ = try await own.shutdown().get()
        weak var leftBehind: ResponseStream?
        do {
            let stream = ResponseStream(limit: 10, driver: own.driver)
            leftBehind = stream
            let promise = own.submit(CurlRequest(.get, faults.url("/stream?bytes=10")), download: nil, stream: stream)
            let error = await #expect(throws: CurlError.self) { try await promise.get() }
            #expect(error?.code == .shutdown)
        }
        #expect(leftBehind == nil, "the stream and its transfer were released")
        let produced = Lock(0)
        let body = CurlBody.stream { writer in
            produced.withLock { $0 += 1 }
            try await writer.write([1])
        }
        let error = await #expect(throws: CurlError.self) { try await own.post(faults.url("/echo"), body: body).get() }
        #expect(error?.code == .shutdown)
        // A producer started for the refused request would have run by now: its task goes to
        // Dispatch's global queue at once.
        try await Task.sleep(for: .milliseconds(100))
        #expect(produced.withLock { $0 } == 0, "the producer of a refused request ran")
    }
}

extension StreamingTests {
    /// The client is the body's owner's owner: released mid-body, it shuts down, and the body
    /// ends with `shutdown` instead of waiting for ever.
    @Test func aReleasedClientEndsItsStreamsWithShutdown() async throws {
        weak var released: CurlClient?
        let streamed: CurlStreamedResponse
        do {
            var configuration = CurlConfiguration()
            configuration.threadName = "curl-released"
            let own = try CurlClient(configuration: configuration)
            released = own
            streamed = try await own.stream(CurlRequest(.get, faults.url("/trickle?bytes=100000"))).get()
        }
        #expect(released == nil)
        let error = await #expect(throws: CurlError.self) { try await readAll(streamed.body) }
        #expect(error?.code == .shutdown, "\(String(describing: error))")
    }
}
