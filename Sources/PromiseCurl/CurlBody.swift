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
    }

    let storage: Storage
    /// The `Content-Type` sent when the request has none, or `nil` to send none.
    public let contentType: String?

    /// The byte count, or `nil` for a file (its size is read when the request starts).
    public var count: Int? {
        if case .bytes(let bytes) = storage { return bytes.count }
        return nil
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
}
