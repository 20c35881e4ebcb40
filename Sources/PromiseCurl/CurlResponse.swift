public import FoundationEssentials

/// A complete response: status, header fields, the body collected in memory, and where the
/// request ended up after redirects.
public struct CurlResponse: Sendable {
    /// Status and header fields of the final response (after redirects).
    ///
    /// For a response the client received, the fields are parsed from the received head the
    /// first time they are read (here, or through ``headerFields``), once for the response and
    /// all its copies; ``status`` alone never parses them.
    public var head: HTTPResponse {
        get {
            switch storage.head {
            case .built(let head): head
            case .received(let status, let fields): HTTPResponse(status: status, headerFields: fields.fields)
            }
        }
        set { unique().head = .built(newValue) }
    }
    /// The body, decoded from any `Content-Encoding` (gzip, deflate). Empty for `HEAD`, and for
    /// ``CurlClient/download(_:to:options:)-(CurlRequest,_,_)``, which writes it to a file instead.
    public var body: [UInt8] {
        get { storage.body }
        set { unique().body = newValue }
        _modify { yield &unique().body }
    }
    /// The URL of the final response, after redirects.
    public var url: String {
        get { storage.url }
        set { unique().url = newValue }
    }
    /// How many redirects were followed.
    public var redirectCount: Int {
        get { storage.redirectCount }
        set { unique().redirectCount = newValue }
    }
    /// The HTTP version of the final response, e.g. `1.1` or `2`.
    public var httpVersion: String {
        get { storage.httpVersion }
        set { unique().httpVersion = newValue }
    }
    /// The method of the request that got this response (`GET`), after redirects (a `303`
    /// turns a `POST` into a `GET`); empty for a response made without a request.
    /// ``validate()`` names it, with ``url``, in its error.
    public var requestMethod: String {
        get { storage.requestMethod }
        set { unique().requestMethod = newValue }
    }

    /// Creates a response; the client makes these, and tests may too.
    ///
    /// - Parameters:
    ///   - head: Status and header fields.
    ///   - body: The body bytes.
    ///   - url: The final URL; user information in it is kept as `***@`.
    ///   - redirectCount: Redirects followed.
    ///   - httpVersion: The protocol version.
    ///   - requestMethod: The method of the request that got the response, or empty.
    public init(
        head: HTTPResponse, body: [UInt8] = [], url: String = "", redirectCount: Int = 0, httpVersion: String = "1.1",
        requestMethod: String = ""
    ) {
        self.init(
            storedHead: .built(head), body: body, url: url, redirectCount: redirectCount, httpVersion: httpVersion,
            requestMethod: requestMethod)
    }

    /// A received response, whose fields are parsed when first read.
    init(
        status: HTTPResponse.Status, fields: ReceivedFields, body: [UInt8], url: String, redirectCount: Int, httpVersion: String,
        requestMethod: String
    ) {
        self.init(
            storedHead: .received(status, fields), body: body, url: url, redirectCount: redirectCount, httpVersion: httpVersion,
            requestMethod: requestMethod)
    }

    private init(storedHead: StoredHead, body: [UInt8], url: String, redirectCount: Int, httpVersion: String, requestMethod: String) {
        storage = Storage(
            head: storedHead, body: body, url: redactingUserInfo(url), redirectCount: redirectCount, httpVersion: httpVersion,
            requestMethod: requestMethod)
    }

    /// The head as built by a caller, or as received, with its fields not parsed yet.
    private enum StoredHead: Sendable {
        case built(HTTPResponse)
        case received(HTTPResponse.Status, ReceivedFields)
    }

    /// The fields, in one object that copies of the response share until one of them is
    /// changed. A response passes through several promises and callbacks on its way to the
    /// caller, and each copy would otherwise retain and release every string and array in it.
    ///
    /// `@unchecked Sendable`: an instance is changed only through ``unique()``, by the one
    /// response that references it, so no instance another thread can see is ever changed.
    private final class Storage: @unchecked Sendable {
        var head: StoredHead
        var body: [UInt8]
        var url: String
        var redirectCount: Int
        var httpVersion: String
        var requestMethod: String

        init(head: StoredHead, body: [UInt8], url: String, redirectCount: Int, httpVersion: String, requestMethod: String) {
            self.head = head
            self.body = body
            self.url = url
            self.redirectCount = redirectCount
            self.httpVersion = httpVersion
            self.requestMethod = requestMethod
        }
    }

    private var storage: Storage

    /// The storage, copied first if another response shares it.
    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) {
            storage = Storage(
                head: storage.head, body: storage.body, url: storage.url, redirectCount: storage.redirectCount,
                httpVersion: storage.httpVersion, requestMethod: storage.requestMethod)
        }
        return storage
    }

    /// The status, e.g. `.ok`; `status.code` is the number.
    public var status: HTTPResponse.Status {
        switch storage.head {
        case .built(let head): head.status
        case .received(let status, _): status
        }
    }

    /// The header fields; `headerFields[.contentType]` reads one.
    public var headerFields: HTTPFields {
        switch storage.head {
        case .built(let head): head.headerFields
        case .received(_, let fields): fields.fields
        }
    }

    /// The body as UTF-8 text; invalid bytes become U+FFFD.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as `Data`.
    public var data: Data { Data(body) }

    /// Decodes the body as JSON.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - decoder: The decoder; a default `JSONDecoder` when not given.
    /// - Returns: The decoded value.
    /// - Throws: The decoder's `DecodingError` when the body does not match `type`.
    public func decode<T: Decodable>(_ type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        try decoder.decode(type, from: Data(body))
    }

    /// Returns this response if its status is 2xx, and throws otherwise.
    ///
    /// - Returns: This response.
    /// - Throws: ``CurlError`` with ``CurlError/Code/badStatus``, carrying this response, its
    ///   ``requestMethod`` and its ``url``: `… — GET http://…`, like every PromiseCurl error.
    public func validate() throws(CurlError) -> CurlResponse {
        let status = status
        guard status.kind == .successful else {
            let reason = status.reasonPhrase.isEmpty ? "" : " \(status.reasonPhrase)"
            throw CurlError(
                .badStatus, message: "status \(status.code)\(reason), expected 2xx", method: requestMethod, url: url, response: self)
        }
        return self
    }
}

extension Promise where Value == CurlResponse {
    /// Rejects with ``CurlError/Code/badStatus`` (carrying the response) unless the status is
    /// 2xx; otherwise passes the response on.
    ///
    /// - Parameter context: Where the check runs; `nil` means the default context.
    /// - Returns: A promise of the same response, or the rejection.
    public func validate(on context: (any ExecutionContext)? = nil) -> Promise<CurlResponse> {
        then(on: context) { (response: CurlResponse) throws -> CurlResponse in try response.validate() }
    }

    /// Decodes the body as JSON once the response arrives.
    ///
    /// ```swift
    /// client.get(url).validate().decode(on: loop, User.self).then(on: loop) { user in … }
    /// ```
    ///
    /// - Parameters:
    ///   - context: Where decoding runs; `nil` means the default context.
    ///   - type: The type to decode.
    /// - Returns: A promise of the decoded value.
    public func decode<T: Decodable & Sendable>(on context: (any ExecutionContext)? = nil, _ type: T.Type) -> Promise<T> {
        then(on: context) { (response: CurlResponse) throws -> T in try response.decode(type) }
    }

    /// Decodes the body as JSON once the response arrives, on `context`.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - context: Where decoding runs; `nil` means the default context.
    /// - Returns: A promise of the decoded value.
    @available(*, deprecated, renamed: "decode(on:_:)", message: "the context comes first, as in then(on:_:)")
    public func decode<T: Decodable & Sendable>(_ type: T.Type, on context: (any ExecutionContext)?) -> Promise<T> {
        decode(on: context, type)
    }
}
