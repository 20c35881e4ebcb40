import Foundation
import PromiseCore
import PromiseTestSupport
import Testing

@testable import PromiseCurl

/// Request bodies produced while they are sent, against the fault server's `/echo` (which
/// reports the raw header lines and the decoded body) and `/no-read` (which never reads).
@Suite struct StreamedRequestBodyTests {
    let client: CurlClient
    let faults = TestServer.faults

    init() throws { client = try CurlClient() }

    @Test func aBodyOfUnknownLengthGoesOutChunkedAsItIsWritten() async throws {
        let body = CurlBody.stream(contentType: "text/plain") { writer in
            for line in ["one", "two", "three"] {
                try await writer.write(Array("\(line)\n".utf8))
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        #expect(body.count == nil)
        let echo = try await client.post(faults.url("/echo"), body: body).validate().decode(RawEcho.self).get()
        #expect(echo.body == "one\ntwo\nthree\n")
        #expect(echo.lines(named: "Transfer-Encoding") == ["Transfer-Encoding: chunked"])
        #expect(echo.lines(named: "Content-Length").isEmpty)
        #expect(echo.lines(named: "Content-Type") == ["Content-Type: text/plain"])
    }

    @Test func aBodyOfDeclaredLengthGoesOutWithContentLength() async throws {
        let total = 3_000_000
        let body = CurlBody.stream(length: total) { writer in
            var sent = 0
            while sent < total {
                let count = min(65_536, total - sent)
                try await writer.write((sent..<sent + count).map { UInt8(ascii: "a") + UInt8($0 % 26) })
                sent += count
            }
        }
        #expect(body.count == total)
        let echo = try await client.post(faults.url("/echo"), body: body).validate().decode(RawEcho.self).get()
        #expect(echo.lines(named: "Content-Length") == ["Content-Length: \(total)"])
        #expect(echo.body == String(decoding: (0..<total).map { UInt8(ascii: "a") + UInt8($0 % 26) }, as: UTF8.self))
    }

    @Test func aSequenceOfChunksIsSent() async throws {
        let (chunks, continuation) = AsyncStream<[UInt8]>.makeStream()
        offPoolTask {
            for word in ["alpha ", "beta ", "gamma"] {
                continuation.yield(Array(word.utf8))
                try await Task.sleep(for: .milliseconds(10))
            }
            continuation.finish()
        }
        let echo = try await client.put(faults.url("/echo"), body: .stream(chunks)).validate().decode(RawEcho.self).get()
        #expect(echo.method == "PUT")
        #expect(echo.body == "alpha beta gamma")
    }

    @Test func aProducerThatThrowsFailsTheRequestWithItsError() async throws {
        struct SourceGone: Error {}
        let body = CurlBody.stream { writer in
            try await writer.write(Array("partial".utf8))
            throw SourceGone()
        }
        let error = await #expect(throws: CurlError.self) { try await client.post(faults.url("/echo"), body: body).get() }
        #expect(error?.code == .readError, "\(String(describing: error))")
        #expect(error?.underlying is SourceGone, "\(String(describing: error))")
        #expect(error?.message.contains("producer failed") == true)
    }

    @Test func writingMoreThanTheDeclaredLengthFails() async throws {
        let body = CurlBody.stream(length: 5) { writer in try await writer.write(Array("123456".utf8)) }
        let error = await #expect(throws: CurlError.self) { try await client.post(faults.url("/echo"), body: body).get() }
        #expect(error?.code == .invalidArgument, "\(String(describing: error))")
        #expect(error?.message.contains("more than the declared length of 5") == true)
    }

    @Test(arguments: [-1, -2, Int.min])
    func aNegativeDeclaredLengthIsRefusedBeforeTheProducerRuns(length: Int) async throws {
        let ran = Lock(false)
        let body = CurlBody.stream(length: length) { _ in ran.withLock { $0 = true } }
        let error = await #expect(throws: CurlError.self) { try await client.post(faults.url("/echo"), body: body).get() }
        #expect(error?.code == .invalidArgument, "\(String(describing: error))")
        #expect(error?.message.contains("declared length \(length) is negative") == true, "\(String(describing: error))")
        #expect(!ran.withLock { $0 })
    }

    /// A writer kept after its closure returned: its write throws, and the request it belonged
    /// to was sent whole.
    @Test func aWriterKeptPastItsClosureFailsItsWrite() async throws {
        let kept = Lock<CurlBodyWriter?>(nil)
        let body = CurlBody.stream { writer in
            try await writer.write(Array("whole".utf8))
            kept.withLock { $0 = writer }
        }
        let response = try await client.post(faults.url("/echo"), body: body).get()
        #expect(String(decoding: response.body, as: UTF8.self).contains("whole"))
        let writer = try #require(kept.withLock { $0 })
        let error = await #expect(throws: CurlError.self) { try await writer.write(Array("late".utf8)) }
        #expect(error != nil)
    }

    @Test func writingLessThanTheDeclaredLengthFails() async throws {
        let body = CurlBody.stream(length: 50) { writer in try await writer.write(Array("short".utf8)) }
        let error = await #expect(throws: CurlError.self) { try await client.post(faults.url("/echo"), body: body).get() }
        #expect(error?.code == .invalidArgument, "\(String(describing: error))")
        #expect(error?.message.contains("after 5 of the declared 50 bytes") == true)
    }

    @Test(arguments: [307, 308])
    func aRedirectThatWouldSendTheBodyAgainFails(status: Int) async throws {
        let body = CurlBody.stream { writer in try await writer.write(Array("once".utf8)) }
        let error = await #expect(throws: CurlError.self) {
            try await client.post(faults.url("/redirect?status=\(status)&to=/echo"), body: body).get()
        }
        #expect(error?.code == .invalidRequest, "\(String(describing: error))")
        #expect(error?.message.contains("cannot be sent twice") == true)
    }

    @Test func aRedirectThatDropsTheBodyIsFollowed() async throws {
        let body = CurlBody.stream { writer in try await writer.write(Array("once".utf8)) }
        let echo = try await client.post(faults.url("/redirect?status=303&to=/echo"), body: body).validate().decode(RawEcho.self).get()
        #expect(echo.method == "GET")
        #expect(echo.body == "")
    }

    /// A server that reads nothing: the producer is held back once the buffers are full, and
    /// cancelling the request ends it.
    @Test func aServerThatDoesNotReadHoldsTheProducerBack() async throws {
        var configuration = CurlConfiguration()
        // Nothing moves once the buffers are full: with a stall timeout, a test resumed late
        // on a busy machine would find the transfer failed instead of held.
        configuration.stallTimeout = nil
        let client = try CurlClient(configuration: configuration)
        let written = Lock(0)
        let stopped = Lock<String?>(nil)
        let body = CurlBody.stream { writer in
            do {
                while true {
                    try await writer.write([UInt8](repeating: 0x78, count: 65_536))
                    written.withLock { $0 += 65_536 }
                }
            } catch {
                stopped.withLock { $0 = "\(error)" }
                throw error
            }
        }
        let request = client.post(faults.url("/no-read"), body: body)
        // Past the writer's 256 KiB queue, a write returns only once bytes left for the
        // socket, whose buffers take some hundreds of KiB to a few MiB; then the writes wait.
        // Unheld, the producer writes hundreds of MiB a second.
        #expect(try await eventually { written.withLock { $0 } > 256 << 10 })
        try await Task.sleep(for: .seconds(1))
        let held = written.withLock { $0 }
        #expect(held < 48 << 20, "\(held) bytes written to a server that reads nothing")
        #expect(stopped.withLock { $0 } == nil, "the producer waits; it was not stopped")
        request.cancel()
        await #expect(throws: CancellationError.self) { try await request.get() }
        #expect(try await eventually { stopped.withLock { $0 } != nil })
        #expect(try await eventually { client.pendingRequests == 0 })
        try await client.shutdown().get()
    }

    @Test func cancellingBeforeTheFirstWriteEndsTheProducer() async throws {
        let ended = Lock(0)
        let body = CurlBody.stream { writer in
            defer { ended.withLock { $0 += 1 } }
            try await Task.sleep(for: .seconds(600))
            try await writer.write([1])
        }
        let request = client.post(faults.url("/echo"), body: body)
        request.cancel()
        await #expect(throws: CancellationError.self) { try await request.get() }
        #expect(try await eventually { ended.withLock { $0 } == 1 }, "the producer's task is cancelled")
    }
}

extension StreamedRequestBodyTests {
    /// Every thread of the cooperative pool is held, as a busy program (or this test run) can
    /// hold it for tens of seconds: the producer runs anyway, so the upload does not wait for
    /// the pool and then fail on libcurl's stall limit.
    @Test func aBodyIsProducedWhileTheCooperativePoolIsBusy() async throws {
        let settled = DispatchSemaphore(value: 0)
        let outcome = Lock<String?>(nil)
        let blockersWaited = Lock<[String]>([])
        let width = ProcessInfo.processInfo.activeProcessorCount
        for _ in 0..<width {
            Task.detached { @Sendable in
                // Holds a pool thread until the request settles (or 10 s), then passes on.
                let result = settled.wait(timeout: .now() + 10) == .success ? "settled" : "timed out"
                blockersWaited.withLock { $0.append(result) }
                settled.signal()
            }
        }
        let queue = DispatchQueue(label: "produced-body-outcome")
        let body = CurlBody.stream { writer in try await writer.write(Array("made off the pool".utf8)) }
        client.post(faults.url("/echo"), body: body).validate().decode(RawEcho.self)
            .then(on: queue) { echo in
                outcome.withLock { $0 = echo.body }
                settled.signal()
            }
            .catch(on: queue) { error in
                outcome.withLock { $0 = "\(error)" }
                settled.signal()
            }
        #expect(try await eventually { blockersWaited.withLock { $0.count } == width })
        #expect(outcome.withLock { $0 } == "made off the pool")
        #expect(blockersWaited.withLock { $0 }.allSatisfy { $0 == "settled" }, "the request settled while the pool was held")
    }
}
