/// One event of a `text/event-stream` body (server-sent events).
public struct ServerSentEvent: Sendable, Equatable {
    /// The `event:` field; `message` when the event names none.
    public var type: String
    /// The `data:` lines, joined with LF.
    public var data: String
    /// The last event ID the stream set (`id:`) as of this event, or `nil` if it set none:
    /// what a reconnect sends back as `Last-Event-ID`.
    public var id: String?

    /// Creates an event.
    ///
    /// - Parameters:
    ///   - type: The event type.
    ///   - data: The data.
    ///   - id: The last event ID.
    public init(type: String = "message", data: String, id: String? = nil) {
        self.type = type
        self.data = data
        self.id = id
    }
}

extension CurlBodyStream {
    /// The body as lines of UTF-8 text: each ends at LF (a CR before it is dropped too), and
    /// the text after the last LF is the last line.
    ///
    /// - Parameter maxLength: The longest line, in bytes; a longer one throws
    ///   ``CurlError/Code/responseTooLarge`` (a server that never sends a line end cannot fill
    ///   memory). Default 1 MiB.
    /// - Returns: The lines, read as the body arrives; they take the body's one reader.
    public func lines(maxLength: Int = 1 << 20) -> CurlBodyLines {
        CurlBodyLines(body: self, maxLength: maxLength)
    }

    /// The body read as a `text/event-stream`: the events it carries, as they arrive. The
    /// stream is not reconnected when it ends; ``CurlClient/events(_:lastEventID:maxEventSize:maxConsecutiveFailures:)``
    /// reconnects.
    ///
    /// - Parameter maxEventSize: The largest event (its data and the line being read), in bytes;
    ///   a larger one throws ``CurlError/Code/responseTooLarge``. Default 1 MiB.
    /// - Returns: The events; they take the body's one reader.
    public func serverSentEvents(maxEventSize: Int = 1 << 20) -> CurlBodyEvents {
        CurlBodyEvents(body: self, maxEventSize: maxEventSize)
    }
}

/// A streamed body's lines (``CurlBodyStream/lines(maxLength:)``).
public struct CurlBodyLines: AsyncSequence, Sendable {
    public typealias Element = String
    public typealias Failure = any Error

    let body: CurlBodyStream
    let maxLength: Int

    /// Reads the lines.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var chunks: CurlBodyStream.AsyncIterator
        var splitter: LineSplitter
        var ready = Parsed<String>()
        var ended = Ended.no

        enum Ended {
            case no
            case yes
        }

        /// The next line, or `nil` after the last.
        ///
        /// - Throws: What reading the body throws, or ``CurlError/Code/responseTooLarge`` for a
        ///   line over the limit.
        public mutating func next() async throws -> String? {
            while true {
                if let line = ready.next() { return line }
                guard case .no = ended else { return nil }
                if let chunk = try await chunks.next() {
                    ready = Parsed(try splitter.feed(chunk))
                } else {
                    ended = .yes
                    ready = Parsed(splitter.endOfBody().map { [$0] } ?? [])
                }
            }
        }
    }

    /// An iterator over the lines.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(chunks: body.makeAsyncIterator(), splitter: LineSplitter(limit: maxLength))
    }
}

/// A streamed body's server-sent events (``CurlBodyStream/serverSentEvents(maxEventSize:)``).
public struct CurlBodyEvents: AsyncSequence, Sendable {
    public typealias Element = ServerSentEvent
    public typealias Failure = any Error

    let body: CurlBodyStream
    let maxEventSize: Int

    /// Reads the events.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var chunks: CurlBodyStream.AsyncIterator
        var parser: ServerSentEventParser
        var ready = Parsed<ServerSentEvent>()

        /// The next event, or `nil` once the body ended (an event not ended by a blank line
        /// is dropped, as the format says).
        ///
        /// - Throws: What reading the body throws, or ``CurlError/Code/responseTooLarge`` for
        ///   an event over the limit.
        public mutating func next() async throws -> ServerSentEvent? {
            while true {
                if let event = ready.next() { return event }
                guard let chunk = try await chunks.next() else {
                    parser.endOfStream()
                    return nil
                }
                ready = Parsed(try parser.feed(chunk))
            }
        }
    }

    /// An iterator over the events.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(chunks: body.makeAsyncIterator(), parser: ServerSentEventParser(limit: maxEventSize))
    }
}

extension CurlClient {
    /// Subscribes to a server-sent event stream and keeps it going: the request is sent with
    /// `Accept: text/event-stream`, its events are read as they arrive, and when the stream
    /// ends or the connection fails it is sent again after the reconnection time the server
    /// asked for with `retry:` (1 second until it asks), with `Last-Event-ID` set to the last
    /// `id:` the stream sent, so the server can go on where it stopped.
    ///
    /// The sequence ends (`nil`) when the server answers `204 No Content`, the standard's way
    /// to say "stop reconnecting". It throws ``CurlError/Code/badStatus`` for any other status
    /// but 200, ``CurlError/Code/invalidArgument`` for a response that is not
    /// `text/event-stream`, and the last error after `maxConsecutiveFailures` attempts in a row
    /// that delivered no event. Cancelling the reading task stops the transfer and the waits.
    ///
    /// ```swift
    /// for try await event in client.events(CurlRequest(.get, url)) {
    ///     print(event.type, event.data)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - request: The request; its `Last-Event-ID` field is replaced on each reconnect.
    ///   - lastEventID: The ID to start after, as if a stream had sent it, or `nil`.
    ///   - maxEventSize: The largest event, in bytes; a larger one throws
    ///     ``CurlError/Code/responseTooLarge``. Default 1 MiB.
    ///   - maxConsecutiveFailures: Attempts in a row that may fail to deliver an event (the
    ///     connection failed, or the stream ended without one) before the sequence throws.
    ///     Default 5; values below 1 count as 1.
    /// - Returns: The events of every connection, in order.
    public func events(
        _ request: CurlRequest, lastEventID: String? = nil, maxEventSize: Int = 1 << 20, maxConsecutiveFailures: Int = 5
    ) -> CurlEventSource {
        CurlEventSource(client: self, request: request, lastEventID: lastEventID, maxEventSize: maxEventSize, maxFailures: max(1, maxConsecutiveFailures))
    }
}

/// A server-sent event stream that reconnects (``CurlClient/events(_:lastEventID:maxEventSize:maxConsecutiveFailures:)``).
public struct CurlEventSource: AsyncSequence, Sendable {
    public typealias Element = ServerSentEvent
    public typealias Failure = any Error

    let client: CurlClient
    let request: CurlRequest
    let lastEventID: String?
    let maxEventSize: Int
    let maxFailures: Int

    /// The reconnection time until the server sets one.
    static let defaultRetry = Duration.seconds(1)

    /// Reads the events, connecting again as needed.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let source: CurlEventSource
        var parser: ServerSentEventParser
        var current: CurlBodyStream.AsyncIterator?
        var ready = Parsed<ServerSentEvent>()
        var failures = 0
        var connections = 0
        /// Events the current connection delivered.
        var delivered = 0
        var stopped = Stopped.no

        enum Stopped {
            case no
            case yes
        }

        /// The next event, or `nil` once the server answered 204.
        ///
        /// - Throws: See ``CurlClient/events(_:lastEventID:maxEventSize:maxConsecutiveFailures:)``.
        public mutating func next() async throws -> ServerSentEvent? {
            while true {
                if let event = ready.next() { return event }
                guard case .no = stopped else { return nil }
                if current == nil {
                    guard try await connect() else {
                        stopped = .yes
                        return nil
                    }
                }
                let chunk: [UInt8]?
                do {
                    chunk = try await current!.next()
                } catch let error as CurlError where error.code != .shutdown {
                    disconnected()
                    failures += 1
                    if failures >= source.maxFailures { throw error }
                    continue
                }
                guard let chunk else {
                    disconnected()
                    if delivered == 0 {
                        failures += 1
                        if failures >= source.maxFailures {
                            throw CurlError(
                                .gotNothing, message: "the event stream ended \(failures) times in a row without an event",
                                method: source.request.method.rawValue, url: source.request.url)
                        }
                    }
                    continue
                }
                let events = try parser.feed(chunk)
                if !events.isEmpty { failures = 0 }
                delivered += events.count
                ready = Parsed(events)
            }
        }

        private mutating func disconnected() {
            current = nil
            parser.endOfStream()
        }

        /// Sends the request (after the reconnection time, but for the first); `false` on 204.
        private mutating func connect() async throws -> Bool {
            while true {
                if connections > 0 { try await Task.sleep(for: parser.retry ?? CurlEventSource.defaultRetry) }
                connections += 1
                var request = source.request
                request.setHeader("Accept", "text/event-stream")
                request.setHeader("Cache-Control", "no-cache")
                // An empty ID sends no header, as the standard says.
                request.headerFields[HTTPField.Name("Last-Event-ID")!] = parser.lastEventID.flatMap { $0.isEmpty ? nil : $0 }
                let streamed: CurlStreamedResponse
                do {
                    streamed = try await source.client.stream(request).get()
                } catch let error as CurlError where error.code != .invalidRequest && error.code != .shutdown {
                    failures += 1
                    if failures >= source.maxFailures { throw error }
                    continue
                }
                if streamed.status.code == 204 {
                    streamed.body.cancel()
                    return false
                }
                _ = try streamed.validate()
                guard streamed.status.code == 200 else {
                    streamed.body.cancel()
                    throw CurlError(
                        .badStatus, message: "status \(streamed.status.code), expected 200 for an event stream", method: request.method.rawValue,
                        url: request.url, response: streamed.response)
                }
                let type = streamed.headerFields[.contentType] ?? ""
                guard type.lowercased().hasPrefix("text/event-stream") else {
                    streamed.body.cancel()
                    throw CurlError(
                        .invalidArgument, message: "the response is '\(type)', not text/event-stream", method: request.method.rawValue,
                        url: request.url, response: streamed.response)
                }
                current = streamed.body.makeAsyncIterator()
                delivered = 0
                return true
            }
        }
    }

    /// An iterator over the events.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(source: self, parser: ServerSentEventParser(limit: maxEventSize, lastEventID: lastEventID))
    }
}

/// What one chunk of a body parsed into, handed out one at a time.
struct Parsed<Element> {
    private var items: [Element]
    private var index = 0

    init(_ items: [Element] = []) { self.items = items }

    /// The next item, or `nil` when all were handed out.
    mutating func next() -> Element? {
        guard index < items.count else { return nil }
        defer { index += 1 }
        return items[index]
    }
}
