import Foundation
import PromiseCore
import PromiseTestSupport
import Testing

@testable import PromiseCurl

/// The `text/event-stream` reader and the line splitter alone, fed the same text in chunks of
/// every size, then both against the fault server's `/events`.
@Suite struct ServerSentEventParserTests {
    /// Feeds `text` in pieces of `size` bytes and collects the events.
    static func events(_ text: String, pieces size: Int, limit: Int = 1 << 20) throws -> (events: [ServerSentEvent], parser: ServerSentEventParser) {
        var parser = ServerSentEventParser(limit: limit)
        let bytes = Array(text.utf8)
        var events: [ServerSentEvent] = []
        var start = 0
        while start < bytes.count {
            events += try parser.feed(Array(bytes[start..<min(bytes.count, start + size)]))
            start += size
        }
        return (events, parser)
    }

    static let sizes = [1, 2, 3, 7, 1000]

    @Test(arguments: sizes)
    func everyLineEndIsOneLineEnd(size: Int) throws {
        let found = try Self.events("data: a\r\n\r\ndata: b\n\ndata: c\r\rdata: d\r\n\n", pieces: size).events
        #expect(found.map(\.data) == ["a", "b", "c", "d"])
    }

    @Test(arguments: sizes)
    func fieldsBuildTheEvent(size: Int) throws {
        let text = """
            : a comment, ignored
            retry: 250
            event: update
            id: 7
            data: first
            data:second
            data:  two spaces keep one
            data
            unknown: ignored

            data: plain


            """
        let (found, parser) = try Self.events(text, pieces: size)
        #expect(
            found == [
                ServerSentEvent(type: "update", data: "first\nsecond\n two spaces keep one\n", id: "7"),
                ServerSentEvent(type: "message", data: "plain", id: "7"),
            ])
        #expect(parser.retry == .milliseconds(250))
        #expect(parser.lastEventID == "7")
    }

    @Test func anEventWithoutDataIsNotDispatchedButItsIDCounts() throws {
        let (found, parser) = try Self.events("id: 3\nevent: ping\n\ndata: x\n\n", pieces: 1000)
        #expect(found == [ServerSentEvent(type: "message", data: "x", id: "3")])
        #expect(parser.lastEventID == "3")
    }

    @Test func anIDWithANulIsIgnoredAndAnEmptyOneClearsIt() throws {
        let found = try Self.events("id: 1\ndata: a\n\nid: 2\u{0}x\ndata: b\n\nid\ndata: c\n\n", pieces: 1000).events
        #expect(found.map(\.id) == ["1", "1", ""])
    }

    @Test(arguments: ["retry: 12a", "retry: -5", "retry:", "retry: 9999999999999999999999"])
    func aRetryThatIsNotDigitsIsIgnored(line: String) throws {
        let parser = try Self.events("retry: 40\n\(line)\n\n", pieces: 1000).parser
        #expect(parser.retry == .milliseconds(40))
    }

    @Test(arguments: sizes)
    func aByteOrderMarkIsDroppedOnlyAtTheStart(size: Int) throws {
        let found = try Self.events("\u{FEFF}data: a\n\n\u{FEFF}data: b\n\n", pieces: size).events
        #expect(found.map(\.data) == ["a"], "a mark later is part of the field name, so its line is ignored")
    }

    @Test func bytesThatOnlyBeginLikeAMarkStayInTheLine() throws {
        var parser = ServerSentEventParser(limit: 100)
        #expect(try parser.feed([0xEF]).isEmpty)
        let found = try parser.feed(Array("data: x\n\n".utf8))
        #expect(found.isEmpty, "the line's name is 0xEF + data, not data")
        #expect(try parser.feed(Array("data: y\n\n".utf8)).map(\.data) == ["y"])
    }

    @Test func anUnfinishedEventIsDroppedAtTheEnd() throws {
        var parser = ServerSentEventParser(limit: 100)
        #expect(try parser.feed(Array("data: done\n\ndata: cut".utf8)).map(\.data) == ["done"])
        parser.endOfStream()
        #expect(try parser.feed(Array("\n\n".utf8)).isEmpty)
    }

    /// An `id:` takes effect when its event is dispatched: one cut off by the end of the stream
    /// leaves the last event ID where it was, so a reconnect asks for that event again.
    @Test func anIDTakesEffectOnlyWhenItsEventIsDispatched() throws {
        var parser = ServerSentEventParser(limit: 100)
        #expect(try parser.feed(Array("id: 4\ndata: a\n\nid: 5\ndata: b\n".utf8)).map(\.id) == ["4"])
        #expect(parser.lastEventID == "4")
        parser.endOfStream()
        #expect(parser.lastEventID == "4", "event 5 never arrived whole")
        #expect(try parser.feed(Array("data: c\n\n".utf8)) == [ServerSentEvent(type: "message", data: "c", id: "4")])
        #expect(try parser.feed(Array("id: 6\n\n".utf8)).isEmpty)
        #expect(parser.lastEventID == "6", "a blank line dispatches the ID even without data")
    }

    @Test func anEventOverTheLimitThrows() throws {
        var parser = ServerSentEventParser(limit: 10)
        #expect(try parser.feed(Array("data: 1234\n".utf8)).isEmpty)
        let error = #expect(throws: CurlError.self) { try parser.feed(Array("data: 5678\n".utf8)) }
        #expect(error?.code == .responseTooLarge)
        #expect(error?.message.contains("10 bytes") == true)
    }

    @Test(arguments: sizes)
    func linesEndAtLFWithTheirCR(size: Int) throws {
        var splitter = LineSplitter(limit: 100)
        let bytes = Array("one\r\ntwo\n\nthree\rstill three\nlast".utf8)
        var lines: [String] = []
        var start = 0
        while start < bytes.count {
            lines += try splitter.feed(Array(bytes[start..<min(bytes.count, start + size)]))
            start += size
        }
        if let last = splitter.endOfBody() { lines.append(last) }
        #expect(lines == ["one", "two", "", "three\rstill three", "last"])
        #expect(splitter.endOfBody() == nil)
    }

    @Test func aLineOverTheLimitThrows() throws {
        var splitter = LineSplitter(limit: 5)
        #expect(try splitter.feed(Array("12345\r\n".utf8)) == ["12345"])
        let error = #expect(throws: CurlError.self) { try splitter.feed(Array("1234567".utf8)) }
        #expect(error?.code == .responseTooLarge)
    }

    /// The limit counts the line's own bytes, exactly: the CR of a CRLF is not one of them, and
    /// a CR that no LF follows is.
    @Test(arguments: ["123456\n", "123456", "12345\r6\n", "123456\r\n"])
    func aLineOneByteOverTheLimitThrows(text: String) throws {
        var splitter = LineSplitter(limit: 5)
        let error = #expect(throws: CurlError.self) { _ = try splitter.feed(Array(text.utf8)) }
        #expect(error?.code == .responseTooLarge)
    }

    @Test func theLargestLimitTakesLines() throws {
        var splitter = LineSplitter(limit: .max)
        #expect(try splitter.feed(Array("one\r\ntwo\nthr".utf8)) == ["one", "two"])
        #expect(splitter.endOfBody() == "thr")
    }
}

@Suite struct ServerSentEventStreamTests {
    let client: CurlClient
    let faults = TestServer.faults

    init() throws { client = try CurlClient() }

    @Test func aStreamedBodyReadsAsEvents() async throws {
        let streamed = try await client.stream(CurlRequest(.get, faults.url("/events?count=3"))).get()
        var events: [ServerSentEvent] = []
        for try await event in streamed.body.serverSentEvents() { events.append(event) }
        #expect(events == (1...3).map { ServerSentEvent(type: "tick", data: "event \($0)\nsecond line", id: "\($0)") })
    }

    @Test func aStreamedBodyReadsAsLines() async throws {
        let streamed = try await client.stream(CurlRequest(.get, faults.url("/events?count=1"))).get()
        var lines: [String] = []
        for try await line in streamed.body.lines() { lines.append(line) }
        #expect(lines == [": a comment", "retry: 50", "", "id: 1", "event: tick", "data: event 1", "data: second line", ""])
    }

    @Test func aBodyWithoutLineEndsStopsAtTheLimit() async throws {
        let url = faults.url("/huge-length?length=300000&bytes=300000")  // 'a' after 'a', no line end
        let lines = try await client.stream(CurlRequest(.get, url)).get().body.lines(maxLength: 100_000)
        let error = await #expect(throws: CurlError.self) { for try await _ in lines {} }
        #expect(error?.code == .responseTooLarge)
        let events = try await client.stream(CurlRequest(.get, url)).get().body.serverSentEvents(maxEventSize: 100_000)
        let eventError = await #expect(throws: CurlError.self) { for try await _ in events {} }
        #expect(eventError?.code == .responseTooLarge)
        #expect(try await eventually { client.pendingRequests == 0 })
    }

    @Test func theSourceReconnectsWithTheLastEventID() async throws {
        var events: [ServerSentEvent] = []
        for try await event in client.events(CurlRequest(.get, faults.url("/events?count=2"))) {
            events.append(event)
            if events.count == 5 { break }
        }
        #expect(events.map(\.id) == ["1", "2", "3", "4", "5"], "each connection starts after the last ID it sent back")
        #expect(events.allSatisfy { $0.type == "tick" })
        #expect(try await eventually { client.pendingRequests == 0 })
    }

    @Test func theSourceStartsAfterAGivenID() async throws {
        var iterator = client.events(CurlRequest(.get, faults.url("/events?count=1")), lastEventID: "41").makeAsyncIterator()
        #expect(try await iterator.next()?.id == "42")
    }

    @Test func noContentStopsTheSource() async throws {
        var iterator = client.events(CurlRequest(.get, faults.url("/redirect?status=204"))).makeAsyncIterator()
        #expect(try await iterator.next() == nil)
        #expect(try await iterator.next() == nil)
    }

    @Test func aResponseThatIsNotAnEventStreamIsRefused() async throws {
        var iterator = client.events(CurlRequest(.get, faults.url("/stream?bytes=100"))).makeAsyncIterator()
        let error = await #expect(throws: CurlError.self) { try await iterator.next() }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("application/octet-stream") == true, "\(String(describing: error))")
        let status = client.events(CurlRequest(.get, faults.url("/redirect?status=500")))
        let statusError = await #expect(throws: CurlError.self) { for try await _ in status {} }
        #expect(statusError?.code == .badStatus)
    }

    /// Only 200 opens an event stream (and 204 ends it): another 2xx is a bad status.
    @Test(arguments: [201, 202, 206])
    func aSuccessOtherThan200IsRefused(status: Int) async throws {
        let source = client.events(CurlRequest(.get, faults.url("/redirect?status=\(status)")))
        let error = await #expect(throws: CurlError.self) { for try await _ in source {} }
        #expect(error?.code == .badStatus, "\(String(describing: error))")
        #expect(error?.message.contains("expected 200") == true, "\(String(describing: error))")
    }

    /// An empty last event ID sends no `Last-Event-ID` header, as the standard says.
    @Test func anEmptyLastEventIDSendsNoHeader() async throws {
        var empty = client.events(CurlRequest(.get, faults.url("/events?count=1&echo=1")), lastEventID: "").makeAsyncIterator()
        #expect(try await empty.next() == ServerSentEvent(type: "request", data: "no Last-Event-ID", id: ""))
        var given = client.events(CurlRequest(.get, faults.url("/events?count=1&echo=1")), lastEventID: "9").makeAsyncIterator()
        #expect(try await given.next() == ServerSentEvent(type: "request", data: "Last-Event-ID '9'", id: "9"))
    }

    @Test func aServerThatIsDownFailsAfterTheAttemptsInARow() async throws {
        let source = client.events(CurlRequest(.get, "http://127.0.0.1:\(refusedPort())/events"), maxConsecutiveFailures: 2)
        let error = await #expect(throws: CurlError.self) { for try await _ in source {} }
        #expect(error?.code == .couldNotConnect)
    }

    @Test func aStreamThatNeverEndsStopsWhenTheReaderIsCancelled() async throws {
        let source = client.events(CurlRequest(.get, faults.url("/events?count=1&forever=1")))
        let first = Lock<ServerSentEvent?>(nil)
        let reader = offPoolTask {
            for try await event in source { first.withLock { $0 = event } }
        }
        #expect(try await eventually { first.withLock { $0 } != nil })
        reader.cancel()
        await #expect(throws: CancellationError.self) { try await reader.value }
        #expect(try await eventually { client.pendingRequests == 0 })
        #expect(first.withLock { $0 }?.id == "1")
    }
}

extension ServerSentEventStreamTests {
    @Test func aStreamThatEndsWithoutEventsGivesUpAfterTheAttemptsInARow() async throws {
        // An event stream with a comment and no event, ended at once, each time.
        let source = client.events(CurlRequest(.get, faults.url("/events?count=0")), maxConsecutiveFailures: 2)
        let error = await #expect(throws: CurlError.self) { for try await _ in source {} }
        #expect(error?.code == .gotNothing, "\(String(describing: error))")
        #expect(error?.message.contains("2 times in a row") == true, "\(String(describing: error))")
    }
}
