public import FoundationEssentials

/// A request body: bytes, text, JSON, a URL-encoded form, or a file streamed from disk.
///
/// Each body knows its content type; it is sent as `Content-Type` unless the request sets that
/// field itself.
public struct CurlBody: Sendable {
    enum Storage: Sendable {
        case bytes([UInt8])
        /// Streamed with a read callback, never loaded whole.
        case file(String)
        /// Produced while it is sent, by a closure run once per request; `length` is declared
        /// up front, or `nil` for a chunked body.
        case produced(length: Int?, produce: @Sendable (CurlBodyWriter) async throws -> Void)
    }

    let storage: Storage
    /// The `Content-Type` sent when the request has none, or `nil` to send none.
    public let contentType: String?

    /// The byte count, or `nil` for a file (its size is read when the request starts) and for
    /// a produced body of unknown length.
    public var count: Int? {
        switch storage {
        case .bytes(let bytes): bytes.count
        case .file: nil
        case .produced(let length, _): length
        }
    }

    /// Raw bytes.
    ///
    /// - Parameters:
    ///   - bytes: The body.
    ///   - contentType: Sent as `Content-Type`; `application/octet-stream` by default.
    /// - Returns: The body.
    public static func bytes(_ bytes: [UInt8], contentType: String? = "application/octet-stream") -> CurlBody {
        CurlBody(storage: .bytes(bytes), contentType: contentType)
    }

    /// The bytes of `data`.
    ///
    /// - Parameters:
    ///   - data: The body.
    ///   - contentType: Sent as `Content-Type`; `application/octet-stream` by default.
    /// - Returns: The body.
    public static func data(_ data: Data, contentType: String? = "application/octet-stream") -> CurlBody {
        CurlBody(storage: .bytes([UInt8](data)), contentType: contentType)
    }

    /// UTF-8 text.
    ///
    /// - Parameters:
    ///   - text: The body.
    ///   - contentType: Sent as `Content-Type`; `text/plain; charset=utf-8` by default.
    /// - Returns: The body.
    public static func text(_ text: String, contentType: String = "text/plain; charset=utf-8") -> CurlBody {
        CurlBody(storage: .bytes(Array(text.utf8)), contentType: contentType)
    }

    /// A value encoded as JSON, sent as `application/json`.
    ///
    /// - Parameters:
    ///   - value: What to encode.
    ///   - encoder: The encoder; a default `JSONEncoder` when not given.
    /// - Returns: The body.
    /// - Throws: The encoder's error when `value` cannot be encoded.
    public static func json<T: Encodable>(_ value: T, encoder: JSONEncoder = JSONEncoder()) throws -> CurlBody {
        CurlBody(storage: .bytes([UInt8](try encoder.encode(value))), contentType: "application/json")
    }

    /// An `application/x-www-form-urlencoded` form: `name=value` pairs joined with `&`, each
    /// side percent-encoded and spaces sent as `+`.
    ///
    /// - Parameter fields: Name–value pairs, in order (names may repeat).
    /// - Returns: The body.
    public static func form(_ fields: [(String, String)]) -> CurlBody {
        let text = fields.map { "\(PercentEncoding.form($0.0))=\(PercentEncoding.form($0.1))" }.joined(separator: "&")
        return CurlBody(storage: .bytes(Array(text.utf8)), contentType: "application/x-www-form-urlencoded")
    }

    /// The contents of a file, streamed from disk while the request is sent (never loaded
    /// whole). The file is opened when the request starts; if it cannot be, the request
    /// rejects with ``CurlError/Code/invalidRequest`` naming the path and the reason.
    ///
    /// - Parameters:
    ///   - path: The file's path.
    ///   - contentType: Sent as `Content-Type`; `application/octet-stream` by default.
    /// - Returns: The body.
    public static func file(_ path: String, contentType: String? = "application/octet-stream") -> CurlBody {
        CurlBody(storage: .file(path), contentType: contentType)
    }

    /// A body produced while the request is sent: `produce` runs once for each request that
    /// sends the body, in a task of its own, and writes the bytes through the writer as they
    /// are made. The task prefers Dispatch's global queue over Swift's cooperative pool (and
    /// resumes there after each `await`), so a program that keeps the pool busy does not stall
    /// its uploads. A write waits while 256 KiB are waiting to be sent, so a producer never runs
    /// far ahead of the connection. With a `length`, it goes out as `Content-Length` and the
    /// producer must write exactly that many bytes; without one, HTTP/1.1 sends the body
    /// chunked (`Transfer-Encoding: chunked`) and HTTP/2 as it comes.
    ///
    /// The request fails with ``CurlError/Code/readError`` carrying the error when `produce`
    /// throws, and with ``CurlError/Code/invalidArgument`` when it writes more or fewer bytes
    /// than `length`. When the request ends first (cancelled, failed, or answered before the
    /// body was sent), the producer's task is cancelled and its next write throws. A request
    /// refused before it starts (by a client that was shut down) never runs `produce`. A produced
    /// body cannot be sent twice: a 307 or 308 redirect that would send it again fails the
    /// request with ``CurlError/Code/invalidRequest``.
    ///
    /// ```swift
    /// let body = CurlBody.stream { writer in
    ///     for line in ["one", "two", "three"] {
    ///         try await writer.write(Array("\(line)\n".utf8))
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - length: The body's length in bytes, or `nil` when it is not known up front. A
    ///     negative length fails the request with ``CurlError/Code/invalidArgument``.
    ///   - contentType: Sent as `Content-Type`; `application/octet-stream` by default.
    ///   - produce: Writes the body; it returns when the body is complete.
    /// - Returns: The body.
    public static func stream(
        length: Int? = nil, contentType: String? = "application/octet-stream",
        _ produce: @escaping @Sendable (CurlBodyWriter) async throws -> Void
    ) -> CurlBody {
        CurlBody(storage: .produced(length: length, produce: produce), contentType: contentType)
    }

    /// A body read from an `AsyncSequence` of chunks while the request is sent, as
    /// ``stream(length:contentType:_:)`` sends what its closure writes. Each request that sends
    /// the body iterates `chunks` once.
    ///
    /// - Parameters:
    ///   - chunks: The body's bytes, in chunks.
    ///   - length: The body's length in bytes, or `nil` when it is not known up front. A
    ///     negative length fails the request with ``CurlError/Code/invalidArgument``.
    ///   - contentType: Sent as `Content-Type`; `application/octet-stream` by default.
    /// - Returns: The body.
    public static func stream<Chunks: AsyncSequence & Sendable>(
        _ chunks: Chunks, length: Int? = nil, contentType: String? = "application/octet-stream"
    ) -> CurlBody where Chunks.Element == [UInt8] {
        stream(length: length, contentType: contentType) { writer in
            for try await chunk in chunks { try await writer.write(chunk) }
        }
    }
}

/// Where a ``CurlBody/stream(length:contentType:_:)`` producer writes the body.
public struct CurlBodyWriter: Sendable {
    let upload: UploadStream

    /// Queues `bytes` to be sent, waiting first while 256 KiB are waiting to be sent.
    ///
    /// - Parameter bytes: The next bytes of the body.
    /// - Throws: ``CurlError`` when the request ended before the body was sent, or the body
    ///   went past its declared length; ``CurlError/Code/invalidArgument`` for a write made
    ///   while another write waits (write from one task at a time) or after the producer's
    ///   closure returned.
    public func write(_ bytes: [UInt8]) async throws(CurlError) {
        guard !bytes.isEmpty else { return }
        try await upload.write(bytes)
    }
}
