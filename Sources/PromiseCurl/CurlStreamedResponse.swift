public import PromiseCore

/// A response whose head has arrived and whose body arrives as ``body``, a stream of chunks
/// read as they come (``CurlClient/stream(_:bufferLimit:)``).
public struct CurlStreamedResponse: Sendable {
    /// The head of the final response (status, fields, URL after redirects, version), with an
    /// empty ``CurlResponse/body``.
    public let response: CurlResponse
    /// The body, read once, as an `AsyncSequence` of chunks or with ``CurlBodyStream/forEach(on:_:)``.
    public let body: CurlBodyStream

    /// The status of the final response.
    public var status: HTTPResponse.Status { response.status }
    /// The header fields of the final response.
    public var headerFields: HTTPFields { response.headerFields }

    /// Returns the response if its status is 2xx; otherwise stops the transfer (the body is
    /// not read) and throws ``CurlError/Code/badStatus`` carrying the head.
    ///
    /// - Returns: The response.
    /// - Throws: ``CurlError`` with ``CurlError/Code/badStatus``.
    public func validate() throws(CurlError) -> CurlStreamedResponse {
        do {
            _ = try response.validate()
        } catch {
            body.cancel()
            throw error
        }
        return self
    }
}

/// The body of a ``CurlStreamedResponse``: the chunks libcurl delivers (decoded from any
/// `Content-Encoding`), in order, read by one consumer.
///
/// ## Backpressure
///
/// The client buffers what the consumer has not read, up to the `bufferLimit` bytes given to
/// ``CurlClient/stream(_:bufferLimit:)`` (or one chunk, when a single chunk is larger). A chunk
/// that would go past it pauses the transfer (`CURL_WRITEFUNC_PAUSE`): the client stops
/// reading the connection, and the server's sending blocks once the socket buffers fill. The
/// transfer resumes when the consumer has taken the buffer down to half the limit. The bound
/// holds on HTTP/2 as on HTTP/1.1; on HTTP/2, libcurl itself keeps receiving a paused stream
/// into its own buffer up to the stream's flow-control window, which is libcurl's and not
/// counted here.
///
/// ## Ending
///
/// Iteration ends (`nil`) when the whole body has arrived, and throws the transfer's
/// ``CurlError`` when it fails (a reset connection, a stall, a timeout, ``CurlError/Code/shutdown``).
/// A cut body never ends as if complete: a cancelled one throws `CancellationError`.
///
/// ## Cancellation
///
/// The transfer stops when the task reading the body is cancelled, when ``cancel()`` is called,
/// when the promise of ``forEach(on:_:)`` is cancelled, and when every copy of the body and
/// of its iterator is gone before the body ended.
///
/// ```swift
/// let streamed = try await client.stream(CurlRequest(.get, url)).get().validate()
/// var received = 0
/// for try await chunk in streamed.body {
///     received += chunk.count
/// }
/// ```
public struct CurlBodyStream: AsyncSequence, Sendable {
    public typealias Element = [UInt8]
    public typealias Failure = any Error

    let owner: Owner

    /// Keeps the transfer for as long as a copy of the body or an iterator exists; stops it
    /// when the last one goes before the body ended.
    final class Owner: Sendable {
        let stream: ResponseStream

        init(_ stream: ResponseStream) { self.stream = stream }

        deinit { stream.cancel() }
    }

    init(_ stream: ResponseStream) {
        owner = Owner(stream)
    }

    /// Reads the body chunk by chunk.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let owner: Owner
        private var claimed = Claim.notYet

        private enum Claim {
            case notYet
            case held
        }

        init(_ owner: Owner) { self.owner = owner }

        /// The next chunk, or `nil` once the whole body has arrived.
        ///
        /// - Throws: The transfer's ``CurlError`` when it failed; `CancellationError` when the
        ///   task was cancelled or the body was cancelled; ``CurlError/Code/invalidArgument``
        ///   when another iterator or ``CurlBodyStream/forEach(on:_:)`` reads the body.
        public mutating func next() async throws -> [UInt8]? {
            let stream = owner.stream
            if case .notYet = claimed {
                guard stream.claim() else {
                    throw CurlError(.invalidArgument, message: "a streamed response body can be read once, by one iterator or forEach")
                }
                claimed = .held
            }
            if let ready = stream.next(orWait: nil) { return try ready.get() }
            return try await withTaskCancellationHandler {
                try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<[UInt8]?, any Error>) in
                    if let ready = stream.next(orWait: .task(continuation)) { continuation.resume(with: ready) }
                }
            } onCancel: {
                stream.cancel()
            }
        }
    }

    /// An iterator over the chunks. The body has one reader: a second iterator's first
    /// `next()` throws ``CurlError/Code/invalidArgument``.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(owner)
    }

    /// Hands each chunk to `body` on `context`, one at a time and in order; the next is not
    /// handed over before `body` returns, so a slow `body` pauses the transfer as a slow
    /// iterator does. `body` never runs inside a libcurl callback, even on `InlineContext`.
    ///
    /// - Parameters:
    ///   - context: Where `body` runs; `nil` means `Promises.defaultContext`.
    ///   - body: Takes one chunk; throwing stops the transfer and rejects the promise.
    /// - Returns: A promise fulfilled when the whole body has been handed over, rejected with
    ///   the transfer's error or what `body` threw. Cancelling it stops the transfer.
    public func forEach(on context: (any ExecutionContext)? = nil, _ body: @escaping @Sendable ([UInt8]) throws -> Void) -> Promise<Void> {
        let stream = owner.stream
        guard stream.claim() else {
            return Promise(CurlError(.invalidArgument, message: "a streamed response body can be read once, by one iterator or forEach"))
        }
        let consumer = CallbackConsumer(owner: owner, context: context ?? Promises.defaultContext, body: body)
        consumer.context.execute { consumer.run() }
        return consumer.done
    }

    /// Stops the transfer and drops what is buffered; a read that waits, and the next read,
    /// throw `CancellationError`. After the whole body was read, it does nothing.
    public func cancel() {
        owner.stream.cancel()
    }

    /// How the consumer kept up, so far.
    public var statistics: Statistics { owner.stream.statistics }

    /// How a streamed body's consumer kept up.
    public struct Statistics: Sendable, Equatable {
        /// How often the transfer paused because the buffer was full.
        public var pauses: Int
        /// The most bytes the buffer held at any moment.
        public var mostBufferedBytes: Int
        /// The buffer's limit, as the stream applies it (at least 1).
        public var limit: Int
    }
}

extension CurlClient {
    /// Sends a request and fulfils the promise with the head of the final response as soon as
    /// it arrives, before the body: the body is then read from
    /// ``CurlStreamedResponse/body`` as it arrives, with backpressure (see ``CurlBodyStream``).
    ///
    /// Redirects are followed as by ``execute(_:)``; ``CurlRequest/maxResponseBodySize`` does
    /// not apply (a stream may be endless). The request's total ``CurlRequest/timeout`` covers
    /// the whole body, time paused included: give an endless stream none, or a generous one.
    /// ``CurlRequest/stallTimeout`` does not count while the transfer is paused for a consumer
    /// that is behind (libcurl does not apply it to a paused transfer).
    /// The promise rejects as ``execute(_:)``'s does for what happens before the head;
    /// cancelling it before then stops the transfer.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - bufferLimit: The most body bytes kept for the consumer before the transfer pauses
    ///     (one chunk, up to 16 KiB on HTTP/1.1, when it is smaller). Default 1 MiB; values
    ///     below 1 count as 1.
    /// - Returns: A promise of the streamed response.
    public func stream(_ request: CurlRequest, bufferLimit: Int = 1 << 20) -> Promise<CurlStreamedResponse> {
        let stream = ResponseStream(limit: bufferLimit, driver: driver)
        return submit(request, download: nil, stream: stream).then(on: InlineContext()) { response in
            CurlStreamedResponse(response: response, body: CurlBodyStream(stream))
        }
    }
}
