internal import PromiseSystem

/// One HTTP request: method, URL, header fields, an optional body, and per-request limits.
///
/// Building a request never throws. A problem found while building it (a URL with a space, a
/// header value with a line feed) is kept and reported when the request is executed: the
/// returned promise rejects with ``CurlError/Code/invalidRequest`` and nothing is sent.
///
/// ```swift
/// var request = CurlRequest(.post, "http://127.0.0.1:8080/orders")
/// request.appendQuery([("dry-run", "true")])
/// request.setHeader("X-Request-ID", "a7f3")
/// request.body = try .json(Order(item: "tea", count: 2))
/// request.timeout = .seconds(5)
/// client.execute(request).validate().then { response in print(response.text) }
/// ```
public struct CurlRequest: Sendable {
    /// The method; `HEAD` makes a request that expects no body.
    public var method: HTTPRequest.Method
    /// The absolute URL, query included, as sent (fragments are dropped).
    public private(set) var url: String
    /// The header fields sent with the request. libcurl adds `Host`, `Content-Length` and
    /// `Accept-Encoding` itself; a field set here replaces libcurl's own.
    public var headerFields: HTTPFields
    /// The body, or `nil` for none.
    public var body: CurlBody?

    /// The total time this request may take, redirects included; `nil` uses the client's
    /// ``CurlConfiguration/timeout``.
    public var timeout: Duration?
    /// How long connecting may take; `nil` uses ``CurlConfiguration/connectTimeout``.
    public var connectTimeout: Duration?
    /// How long this request may go without moving a byte before it fails with
    /// ``CurlError/Code/operationTimedOut``; `nil` uses ``CurlConfiguration/stallTimeout``.
    public var stallTimeout: Duration?
    /// The most redirects (301, 302, 303, 307, 308) followed; `0` follows none (a 3xx is
    /// returned as it is); `nil` uses
    /// ``CurlConfiguration/maxRedirects``.
    public var maxRedirects: Int?
    /// The largest body collected in memory, in bytes; `nil` uses
    /// ``CurlConfiguration/maxResponseBodySize``.
    public var maxResponseBodySize: Int?
    /// The complete list of URL schemes this request may use, lowercased. `nil` means `http`
    /// and `https` only; `["http", "https", "file"]` opts in to `file` as well. Redirects are
    /// always limited to `http` and `https`.
    public var allowedSchemes: Set<String>?
    /// The Unix-domain socket to send the request over, instead of a TCP connection to the
    /// URL's host: a daemon's HTTP API such as Docker's (`/var/run/docker.sock`). The URL still
    /// gives the scheme, the path and the `Host` field (`http://localhost/v1.43/info`); its
    /// port is not used. Redirects are followed over the same socket, as the curl CLI's
    /// `--unix-socket` does. `nil`, the default, connects over TCP.
    ///
    /// The path must fit a socket address (at most 107 bytes) and hold no NUL byte; a path
    /// where no server listens fails with ``CurlError/Code/couldNotConnect`` saying whether
    /// nothing is there, it is not a socket, or nothing accepts on it.
    public var unixSocketPath: String?
    /// Whether this request goes through a proxy; `nil`, the default, uses the client's
    /// ``CurlConfiguration/proxy``. A request over a ``unixSocketPath`` never goes through
    /// one.
    public var proxy: CurlProxySetting?
    /// Called with transfer progress, at most about ten times a second and once at the end
    /// (before the response's promise settles), on the context given to
    /// ``onProgress(on:_:)`` (the default context when none). It never runs inside a libcurl
    /// callback: reports are handed over once libcurl has returned. On `.inline` it runs on the
    /// client's thread, so keep it short.
    public var onProgress: (@Sendable (CurlProgress) -> Void)?
    /// Where the progress handler runs; `nil` means `Promises.defaultContext`.
    @available(*, deprecated, message: "use onProgress(on:_:), which sets the handler and its context together")
    public var progressContext: (any ExecutionContext)? {
        get { progressHandlerContext }
        set { progressHandlerContext = newValue }
    }
    /// Where the progress handler runs; `nil` means `Promises.defaultContext`.
    var progressHandlerContext: (any ExecutionContext)?

    /// Reports the transfer's progress to `handler` on `context`: at most about ten times a
    /// second and once at the end, before the response's promise settles. The handler never
    /// runs inside a libcurl callback.
    ///
    /// ```swift
    /// var request = CurlRequest(.get, "http://127.0.0.1:8080/big.iso")
    /// request.onProgress(on: loop) { progress in bar.update(progress.downloaded) }
    /// ```
    ///
    /// - Parameters:
    ///   - context: Where `handler` runs; `nil` means `Promises.defaultContext`. `.inline`
    ///     runs it on the client's thread, so keep it short there.
    ///   - handler: Receives each report.
    public mutating func onProgress(on context: (any ExecutionContext)? = nil, _ handler: @escaping @Sendable (CurlProgress) -> Void) {
        onProgress = handler
        progressHandlerContext = context
    }

    /// Problems found while building the request, reported when it is executed.
    private(set) var problems: [String] = []
    /// The URL's parts, when it parsed.
    private(set) var parts: URLParts?

    /// Creates a request.
    ///
    /// - Parameters:
    ///   - method: The method, `.get` by default.
    ///   - url: An absolute URL such as `http://127.0.0.1:8080/path?q=1`. Characters that
    ///     must be percent-encoded (space, control characters) make the request invalid.
    ///   - headers: Header fields as name–value strings. A name that is not an HTTP token, or
    ///     a value with CR, LF or NUL, makes the request invalid instead of being sent.
    ///   - body: The body, if any.
    public init(_ method: HTTPRequest.Method = .get, _ url: String, headers: KeyValuePairs<String, String> = [:], body: CurlBody? = nil) {
        self.method = method
        self.url = url
        self.headerFields = HTTPFields()
        self.body = body
        switch URLParts.parseNotingForm(url) {
        case .success(let parsed):
            parts = parsed.parts
            if !parsed.isNormal { self.url = parsed.parts.string }
        case .failure(let problem): problems.append(problem.message)
        }
        for (name, value) in headers { setHeader(name, value) }
    }

    /// Creates a request from a swift-http-types `HTTPRequest` (method, scheme, authority,
    /// path and header fields).
    ///
    /// - Parameters:
    ///   - request: The request head; its scheme and authority must be set.
    ///   - body: The body, if any.
    public init(_ request: HTTPRequest, body: CurlBody? = nil) {
        let url = "\(request.scheme ?? "")://\(request.authority ?? "")\(request.path ?? "/")"
        self.init(request.method, url, body: body)
        self.headerFields = request.headerFields
    }

    /// The request head as a swift-http-types `HTTPRequest`.
    public var head: HTTPRequest {
        HTTPRequest(method: method, scheme: parts?.scheme, authority: parts?.authority, path: parts?.pathAndQuery, headerFields: headerFields)
    }

    /// Sets a header field from strings, replacing fields of the same name.
    ///
    /// A name that is not an HTTP token, or a value containing CR, LF or NUL, is not set: the
    /// request becomes invalid and its promise will reject with
    /// ``CurlError/Code/invalidRequest`` naming the field, so header injection never reaches
    /// the wire.
    ///
    /// - Parameters:
    ///   - name: The field name, e.g. `Authorization`.
    ///   - value: The field value; leading and trailing spaces are trimmed.
    public mutating func setHeader(_ name: String, _ value: String) {
        guard let fieldName = HTTPField.Name(name) else {
            problems.append("header name \(quoted(name)) is not a valid HTTP token")
            return
        }
        if let bad = value.utf8.first(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) {
            problems.append(
                "header \(name) contains \(bad == 0 ? "NUL" : bad == 0x0D ? "CR" : "LF") (0x\(String(bad, radix: 16, uppercase: true).leftPadded(2))); header injection refused"
            )
            return
        }
        headerFields[fieldName] = value
    }

    /// Appends query items to the URL, percent-encoding names and values (RFC 3986
    /// unreserved characters stay as they are; a space becomes `%20`).
    ///
    /// - Parameter items: Name–value pairs, in order; a `nil` value appends the name alone.
    public mutating func appendQuery(_ items: [(String, String?)]) {
        guard var parts, !items.isEmpty else { return }
        let encoded = items.map { name, value in
            value.map { "\(PercentEncoding.query(name))=\(PercentEncoding.query($0))" } ?? PercentEncoding.query(name)
        }.joined(separator: "&")
        parts.query = parts.query.map { $0.isEmpty ? encoded : $0 + "&" + encoded } ?? encoded
        self.parts = parts
        url = parts.string
    }

    /// What building the request found wrong, or a header value with CR, LF or NUL: the
    /// first part of ``validated(downloadPath:)``.
    var invalidity: String? {
        if let first = problems.first { return first }
        for field in headerFields {
            let bad = field.withUnsafeBytesOfValue { $0.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 } }
            if bad { return "header \(field.name) contains CR, LF or NUL; header injection refused" }
        }
        return nil
    }

    /// Every check of a request that needs no I/O, in one place, made before it is submitted:
    /// what building it found, its header values, its URL's scheme, and the paths of a body
    /// file and a download. Opening those files happens on the client's thread later.
    ///
    /// - Parameter downloadPath: Where a download stores the body, if this is one.
    /// - Returns: The URL's parts, or why the request cannot be sent (without its method and
    ///   URL, which the caller attaches).
    func validated(downloadPath: String?) -> Result<URLParts, CurlError> {
        if let reason = invalidity { return .failure(CurlError(.invalidRequest, message: reason)) }
        guard let parts else { return .failure(CurlError(.invalidRequest, message: "the URL did not parse")) }
        let allowed = allowedSchemes.map { $0.contains { $0.lowercased() == parts.scheme } } ?? (parts.scheme == "http" || parts.scheme == "https")
        guard allowed else {
            let schemes = allowedSchemes.map { $0.map { $0.lowercased() } } ?? ["http", "https"]
            return .failure(
                CurlError(
                    .invalidRequest,
                    message:
                        "the URL scheme '\(parts.scheme)' is not allowed; only \(schemes.sorted().joined(separator: ", ")) are, unless the request lists it in allowedSchemes"
                ))
        }
        if let socket = unixSocketPath, let refusal = Self.unixSocketRefusal(socket) { return .failure(refusal) }
        if case .file(let path) = body?.storage, AdapterPaths.containsNUL(path) {
            return .failure(
                CurlError(.invalidArgument, message: AdapterPaths.nulRefusal("body file", path)))
        }
        if case .produced(let length?, _) = body?.storage, length < 0 {
            return .failure(
                CurlError(.invalidArgument, message: "the request body's declared length \(length) is negative; give nil when the length is not known"))
        }
        if let downloadPath {
            if AdapterPaths.containsNUL(downloadPath) {
                return .failure(CurlError(.invalidArgument, message: AdapterPaths.nulRefusal("download path", downloadPath)))
            }
            if downloadPath.utf8.last == UInt8(ascii: "/") || AdapterPaths.split(downloadPath.utf8).name.isEmpty {
                return .failure(CurlError(.fileError, message: "download path '\(downloadPath)' names no file"))
            }
        }
        return .success(parts)
    }
}

extension CurlRequest {
    /// The longest Unix socket path, in bytes: `sockaddr_un`'s 108-byte `sun_path` with its
    /// terminating NUL.
    static let maxUnixSocketPathBytes = 107

    /// Why `path` cannot be a ``unixSocketPath``, or `nil` when it can.
    static func unixSocketRefusal(_ path: String) -> CurlError? {
        if path.isEmpty { return CurlError(.invalidRequest, message: "the Unix socket path is empty") }
        if AdapterPaths.containsNUL(path) { return CurlError(.invalidArgument, message: AdapterPaths.nulRefusal("Unix socket path", path)) }
        let bytes = path.utf8.count
        guard bytes <= maxUnixSocketPathBytes else {
            return CurlError(
                .invalidRequest,
                message: "the Unix socket path '\(path)' is \(bytes) bytes; a socket address holds at most \(maxUnixSocketPathBytes)"
                    + " (connect through a shorter path, such as a symbolic link)")
        }
        return nil
    }
}

private func quoted(_ text: String) -> String {
    "'" + String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) }) + "'"
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
