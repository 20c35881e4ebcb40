internal import CCurl
internal import PromiseSystem

/// How a download stores its body (see ``CurlClient/download(_:to:options:)-(CurlRequest,_,_)``).
struct DownloadTarget: Sendable {
    let path: String
    let options: CurlDownloadOptions
}

/// One request from submission to delivery: the libcurl binding of a transfer. Its phase and
/// the decisions between phases (follow a redirect or finish, drop a body, stop at a limit) are
/// ``TransferStateMachine``'s; this class holds the handle and the buffers, feeds the machine
/// what libcurl reports, and performs what it returns. Created on the caller's thread; from
/// the moment it is handed to the driver, every field below `// Driver thread only` is
/// touched by the driver thread alone (it creates the easy handle, runs the callbacks, reads
/// the result and cleans up), so no C handle is shared between threads.
///
/// `@unchecked Sendable`: the immutable fields are set before submission; the mutable ones
/// belong to the driver thread as said above.
final class Transfer: @unchecked Sendable {
    let request: CurlRequest
    let parts: URLParts
    let promise: Promise<CurlResponse>
    let download: DownloadTarget?
    /// Where a streamed response's body goes, for ``CurlClient/stream(_:bufferLimit:)``.
    let stream: ResponseStream?
    /// A request body produced while it is sent, for ``CurlBody/stream(length:contentType:_:)``.
    let upload: UploadStream?

    // Driver thread only. One thread and no overlapping accesses, so no run-time exclusivity
    // checks either: the header and write callbacks reach these once per line and chunk.
    /// The easy handle while the transfer runs (new, or a finished transfer's, reset).
    @exclusivity(unchecked) private(set) var handle: EasyHandle?
    var easy: UnsafeMutableRawPointer? { handle?.pointer }
    @exclusivity(unchecked) var uploadFile: UploadFile?
    @exclusivity(unchecked) var sink: DownloadSink?
    @exclusivity(unchecked) var head: ResponseHeadParser
    @exclusivity(unchecked) var body = [UInt8]()
    /// The transfer's phase and the decisions between phases; this class performs them.
    @exclusivity(unchecked) var machine: TransferStateMachine
    /// `CURLOPT_LOW_SPEED_TIME`, or 0 when there is no stall limit, for a failure's message.
    @exclusivity(unchecked) var stallSeconds = 0
    /// The proxy the current hop goes through, for a failure's message.
    private var proxy: CurlProxySetting = .direct
    @exclusivity(unchecked) var progress = ProgressThrottle()
    /// Where progress reports wait until libcurl returns: the driver's.
    let progressOutbox: ProgressOutbox
    /// The client's cookie store, if it keeps cookies.
    let cookies: CookieStore?
    @exclusivity(unchecked) private var retainedForC: Unmanaged<Transfer>?
    #if Tracing || Metrics
        /// The request's span and clock, when the client records them: set before submission.
        var telemetry: TelemetryOperation?
        /// libcurl's timings and byte counts of the last hop, read before the handle is reused.
        var measures = TransferMeasures()
    #endif

    init(
        request: CurlRequest, parts: URLParts, download: DownloadTarget?, stream: ResponseStream? = nil, upload: UploadStream? = nil,
        headLimit: Int,
        driverID: ObjectIdentifier, progressOutbox: ProgressOutbox, cookies: CookieStore?
    ) {
        self.stream = stream
        self.upload = upload
        self.request = request
        self.progressOutbox = progressOutbox
        self.cookies = cookies
        self.parts = parts
        self.download = download
        // Resolved on the driver thread: a blocking wait for it there is a deadlock.
        self.promise = Promise<CurlResponse>.pending(resolvedOn: driverID)
        self.head = ResponseHeadParser(limit: headLimit)
        self.machine = TransferStateMachine(hop: Hop(url: request.url, parts: parts, method: request.method, sendsBody: request.body != nil))
    }

    /// The current request of the redirect chain.
    var hop: Hop { machine.hop }

    var methodName: String { request.method.rawValue }

    /// An error of this transfer. Its method and URL are attached where the promise settles
    /// (`Driver.settle`), once for every error.
    func error(_ code: CurlError.Code, _ message: String, response: CurlResponse? = nil) -> CurlError {
        CurlError(code, message: message, response: response)
    }

    // MARK: Starting

    /// Creates and configures the easy handle and adds it to `multi`.
    ///
    /// - Returns: Why it could not start, or `nil` once it is running.
    ///
    /// - Parameters:
    ///   - multi: The driver's multi handle.
    ///   - configuration: The client's settings.
    ///   - spare: An easy handle from an earlier transfer, reset for reuse, or `nil` for a new one.
    func start(multi: UnsafeMutableRawPointer, configuration: CurlConfiguration, spare: EasyHandle?) -> CurlError? {
        guard let handle = spare ?? EasyHandle() else { return error(.internalError, "curl_easy_init failed (out of memory?)") }
        self.handle = handle
        let easy = handle.pointer
        retainedForC = Unmanaged.passRetained(self)
        machine.started(
            TransferStateMachine.Limits(
                maxRedirects: max(0, request.maxRedirects ?? configuration.maxRedirects),
                deadline: (request.timeout ?? configuration.timeout).map { ContinuousClock.now.advanced(saturatingBy: $0) },
                body: bodyDestination(configuration)))
        do throws(CurlError) {
            if let download {
                switch DownloadSink.create(target: download.path, durable: download.options.durable) {
                case .success(let sink): self.sink = sink
                case .failure(let failure): throw failure
                }
            }
            try configure(easy, configuration)
            try curlMultiCheck(curl_multi_add_handle(multi, easy), "curl_multi_add_handle")
            return nil
        } catch {
            cleanUp()
            return error
        }
    }

    private func bodyDestination(_ configuration: CurlConfiguration) -> TransferStateMachine.BodyDestination {
        if download != nil { return .file }
        if stream != nil { return .stream }
        return .memory(limit: max(0, request.maxResponseBodySize ?? configuration.maxResponseBodySize))
    }

    /// Sets the options for the current ``hop``: on a handle that already holds the same
    /// ``KeptOptions`` only the per-transfer ones, otherwise every option, on a new or reset
    /// handle.
    func configure(_ easy: UnsafeMutableRawPointer, _ configuration: CurlConfiguration) throws(CurlError) {
        let values = optionValues(configuration)
        let keeps = keepsOptions
        let handle = handle!
        stallSeconds = values.stallSeconds
        proxy = values.proxy
        if keeps, handle.kept == values {
            handle.prepareForKeptReuse()
            try setPerTransferOptions(easy)
            return
        }
        // The handle holds a different request's options: back to libcurl's defaults first.
        if handle.kept != nil { handle.resetForReuse() }
        try setAllOptions(easy, configuration, values)
        handle.kept = keeps ? values : nil
    }

    /// The options that name this transfer (its URL and the pointer the callbacks get) or
    /// depend on the moment it starts (the deadline).
    private func setPerTransferOptions(_ easy: UnsafeMutableRawPointer) throws(CurlError) {
        let context = retainedForC!.toOpaque()
        try setString(easy, CURLOPT_URL, hop.url, "CURLOPT_URL")
        try curlCheck(ccurl_easy_setopt_pointer(easy, CURLOPT_PRIVATE, context), "CURLOPT_PRIVATE")
        try curlCheck(ccurl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context), "CURLOPT_HEADERDATA")
        try curlCheck(ccurl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context), "CURLOPT_WRITEDATA")
        if let deadline = machine.limits.deadline {
            try setLong(easy, CURLOPT_TIMEOUT_MS, milliseconds(deadline - .now), "CURLOPT_TIMEOUT_MS")
        }
    }

    /// Every option for the current ``hop``, on a new or reset handle.
    private func setAllOptions(_ easy: UnsafeMutableRawPointer, _ configuration: CurlConfiguration, _ values: KeptOptions) throws(CurlError) {
        let context = retainedForC!.toOpaque()
        try setPerTransferOptions(easy)
        try curlCheck(ccurl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, handle!.errorBuffer), "CURLOPT_ERRORBUFFER")
        try setLong(easy, CURLOPT_NOSIGNAL, 1, "CURLOPT_NOSIGNAL")

        // Security defaults, pinned on every handle (libcurl 7.88's own are unsafe).
        try setString(easy, CURLOPT_PROTOCOLS_STR, values.schemes, "CURLOPT_PROTOCOLS_STR")
        try setString(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https", "CURLOPT_REDIR_PROTOCOLS_STR")
        // Redirects are followed by `afterResponse` (Transfer+Redirect.swift): libcurl keeps a
        // custom method on a 303 and sends the content fields of a body it dropped.
        try setLong(easy, CURLOPT_FOLLOWLOCATION, 0, "CURLOPT_FOLLOWLOCATION")
        try setLong(easy, CURLOPT_UNRESTRICTED_AUTH, 0, "CURLOPT_UNRESTRICTED_AUTH")
        try setLong(easy, CURLOPT_CONNECTTIMEOUT_MS, values.connectTimeout, "CURLOPT_CONNECTTIMEOUT_MS")
        if let socket = values.unixSocketPath { try setString(easy, CURLOPT_UNIX_SOCKET_PATH, socket, "CURLOPT_UNIX_SOCKET_PATH") }
        try setProxy(easy, values.proxy, configuration)
        if stallSeconds > 0 {
            // Below 1 byte per second for that many seconds.
            try setLong(easy, CURLOPT_LOW_SPEED_LIMIT, 1, "CURLOPT_LOW_SPEED_LIMIT")
            try setLong(easy, CURLOPT_LOW_SPEED_TIME, stallSeconds, "CURLOPT_LOW_SPEED_TIME")
        }
        try setLong(easy, CURLOPT_SSL_VERIFYPEER, configuration.tls.verifyPeer ? 1 : 0, "CURLOPT_SSL_VERIFYPEER")
        try setLong(easy, CURLOPT_SSL_VERIFYHOST, configuration.tls.verifyHost ? 2 : 0, "CURLOPT_SSL_VERIFYHOST")
        if let caFile = configuration.tls.caFile { try setString(easy, CURLOPT_CAINFO, caFile, "CURLOPT_CAINFO") }
        try setLong(easy, CURLOPT_HTTP_VERSION, configuration.httpVersion.curlValue, "CURLOPT_HTTP_VERSION")
        // Only where multiplexing can happen: HTTP/2 over TLS (ALPN) or h2c by prior knowledge.
        // On plain HTTP/1.1, PIPEWAIT made a request wait for a same-host connection whose
        // response headers had not arrived yet (a slow page held up every later request).
        if values.waitsForMultiplexing {
            try setLong(easy, CURLOPT_PIPEWAIT, 1, "CURLOPT_PIPEWAIT")
        }
        if configuration.decompressResponses { try setString(easy, CURLOPT_ACCEPT_ENCODING, "", "CURLOPT_ACCEPT_ENCODING") }
        try cookies?.attach(easy)

        // Where the response goes.
        try curlCheck(ccurl_easy_setopt_write_function(easy, CURLOPT_HEADERFUNCTION, headerTrampoline), "CURLOPT_HEADERFUNCTION")
        try curlCheck(ccurl_easy_setopt_write_function(easy, CURLOPT_WRITEFUNCTION, writeTrampoline), "CURLOPT_WRITEFUNCTION")
        if request.onProgress != nil {
            try setLong(easy, CURLOPT_NOPROGRESS, 0, "CURLOPT_NOPROGRESS")
            try curlCheck(ccurl_easy_setopt_xferinfo_function(easy, progressTrampoline), "CURLOPT_XFERINFOFUNCTION")
            try curlCheck(ccurl_easy_setopt_pointer(easy, CURLOPT_XFERINFODATA, context), "CURLOPT_XFERINFODATA")
        }

        try configureMethodAndBody(easy)
        try configureHeaders(easy, configuration)
    }

    /// The proxy options. libcurl reads the environment's proxy variables unless
    /// `CURLOPT_PROXY` is set, so a direct connection sets it to "". Through a proxy, the
    /// head of a `CONNECT` tunnel's reply is not passed to the header function: it is the
    /// proxy's, and a streamed response would take it for the server's.
    private func setProxy(_ easy: UnsafeMutableRawPointer, _ setting: CurlProxySetting, _ configuration: CurlConfiguration) throws(CurlError) {
        switch setting {
        case .direct:
            try setString(easy, CURLOPT_PROXY, "", "CURLOPT_PROXY")
        case .fromEnvironment:
            try setLong(easy, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1, "CURLOPT_SUPPRESS_CONNECT_HEADERS")
        case .through(let proxy):
            try setLong(easy, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1, "CURLOPT_SUPPRESS_CONNECT_HEADERS")
            try setString(easy, CURLOPT_PROXY, proxy.curlURL, "CURLOPT_PROXY")
            if let username = proxy.username { try setString(easy, CURLOPT_PROXYUSERNAME, username, "CURLOPT_PROXYUSERNAME") }
            if let password = proxy.password { try setString(easy, CURLOPT_PROXYPASSWORD, password, "CURLOPT_PROXYPASSWORD") }
            if !proxy.bypass.isEmpty { try setString(easy, CURLOPT_NOPROXY, proxy.bypass.joined(separator: ","), "CURLOPT_NOPROXY") }
            if proxy.kind == .https {
                try setLong(easy, CURLOPT_PROXY_SSL_VERIFYPEER, configuration.tls.verifyPeer ? 1 : 0, "CURLOPT_PROXY_SSL_VERIFYPEER")
                try setLong(easy, CURLOPT_PROXY_SSL_VERIFYHOST, configuration.tls.verifyHost ? 2 : 0, "CURLOPT_PROXY_SSL_VERIFYHOST")
                if let caFile = configuration.tls.caFile { try setString(easy, CURLOPT_PROXY_CAINFO, caFile, "CURLOPT_PROXY_CAINFO") }
            }
        }
    }

    private func configureMethodAndBody(_ easy: UnsafeMutableRawPointer) throws(CurlError) {
        let method = hop.method
        guard let body = request.body, hop.sendsBody else {
            switch method {
            case .get: break  // a new or reset handle makes a GET
            case .head: try setLong(easy, CURLOPT_NOBODY, 1, "CURLOPT_NOBODY")
            case .post:
                try setLong(easy, CURLOPT_POST, 1, "CURLOPT_POST")
                try curlCheck(ccurl_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, 0), "CURLOPT_POSTFIELDSIZE_LARGE")
                try setString(easy, CURLOPT_COPYPOSTFIELDS, "", "CURLOPT_COPYPOSTFIELDS")
            default: try setString(easy, CURLOPT_CUSTOMREQUEST, method.rawValue, "CURLOPT_CUSTOMREQUEST")
            }
            return
        }
        // A body is sent as a POST body; any other method name replaces POST in the request
        // line (libcurl's documented way to send PUT, PATCH, DELETE … with a body).
        try setLong(easy, CURLOPT_POST, 1, "CURLOPT_POST")
        if method != .post { try setString(easy, CURLOPT_CUSTOMREQUEST, method.rawValue, "CURLOPT_CUSTOMREQUEST") }
        switch body.storage {
        case .bytes(let bytes):
            // Copied once into memory libcurl may keep pointing at until the transfer ends
            // (and sent again from there after a redirect that keeps the body).
            let buffer = handle!.uploadCopy(of: bytes)
            try curlCheck(ccurl_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count)), "CURLOPT_POSTFIELDSIZE_LARGE")
            try curlCheck(ccurl_easy_setopt_pointer(easy, CURLOPT_POSTFIELDS, buffer.baseAddress), "CURLOPT_POSTFIELDS")
        case .produced(let length, _):
            guard hop.count == 0 else {
                throw error(
                    .invalidRequest,
                    "a 307 or 308 redirect asks for the body again, and a body produced while it is sent cannot be sent twice; send the request to \(redactingUserInfo(hop.url)), or give the body as bytes or a file"
                )
            }
            let context = retainedForC!.toOpaque()
            try curlCheck(ccurl_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(length ?? -1)), "CURLOPT_POSTFIELDSIZE_LARGE")
            try curlCheck(ccurl_easy_setopt_read_function(easy, uploadReadTrampoline), "CURLOPT_READFUNCTION")
            try curlCheck(ccurl_easy_setopt_pointer(easy, CURLOPT_READDATA, context), "CURLOPT_READDATA")
        case .file(let path):
            if let uploadFile {
                // Sent again after a redirect that keeps the body.
                guard uploadFile.seek(to: 0) else {
                    throw error(.readError, "rewinding the request body file to send it again after a redirect failed")
                }
            } else {
                switch UploadFile.open(path) {
                case .success(let file): uploadFile = file
                case .failure(let failure): throw failure
                }
            }
            let context = retainedForC!.toOpaque()
            try curlCheck(ccurl_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(uploadFile!.size)), "CURLOPT_POSTFIELDSIZE_LARGE")
            try curlCheck(ccurl_easy_setopt_read_function(easy, readTrampoline), "CURLOPT_READFUNCTION")
            try curlCheck(ccurl_easy_setopt_pointer(easy, CURLOPT_READDATA, context), "CURLOPT_READDATA")
            try curlCheck(ccurl_easy_setopt_seek_function(easy, seekTrampoline), "CURLOPT_SEEKFUNCTION")
            try curlCheck(ccurl_easy_setopt_pointer(easy, CURLOPT_SEEKDATA, context), "CURLOPT_SEEKDATA")
        }
    }

    private func configureHeaders(_ easy: UnsafeMutableRawPointer, _ configuration: CurlConfiguration) throws(CurlError) {
        var fields = request.headerFields
        let hasBody = request.body != nil
        if hop.count > 0 {
            fields = HTTPFields(fields.filter { hop.sends($0.name, requestHasBody: hasBody) })
        }
        if hop.sendsBody, let body = request.body, let type = body.contentType, fields[.contentType] == nil {
            fields[.contentType] = type
        }
        if hop.sendsBody, hasBody, fields[.expect] == nil {
            // No `Expect: 100-continue` round trip (a second's wait with servers that ignore it).
            appendHeaderLine("Expect:")
        }
        if fields[.userAgent] == nil, let agent = configuration.userAgent {
            try setString(easy, CURLOPT_USERAGENT, agent, "CURLOPT_USERAGENT")
        }
        // HTTPFields keeps each `name=value` pair of a Cookie field as a field of its own (the
        // HTTP/2 "crumbs"); HTTP/1.1 allows one Cookie line (RFC 6265 §5.4), so they are
        // joined back into it, at the place of the first.
        let cookie = fields[.cookie]
        var cookieWritten = false
        for field in fields {
            if field.name == .cookie {
                guard !cookieWritten, let cookie else { continue }
                cookieWritten = true
                appendHeaderLine(cookie.isEmpty ? "Cookie;" : "Cookie: \(cookie)")
                continue
            }
            // "Name;" is libcurl's way to send a field with an empty value ("Name:" removes it).
            let value = field.value
            appendHeaderLine(value.isEmpty ? "\(field.name.rawName);" : "\(field.name.rawName): \(value)")
        }
        if let headerList = handle!.headerList {
            try curlCheck(ccurl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList), "CURLOPT_HTTPHEADER")
        }
    }

    private func appendHeaderLine(_ line: String) {
        handle!.appendHeaderLine(line)
    }

    private func setLong(_ easy: UnsafeMutableRawPointer, _ option: CURLoption, _ value: Int, _ name: String) throws(CurlError) {
        try curlCheck(ccurl_easy_setopt_long(easy, option, value), name)
    }

    private func setString(_ easy: UnsafeMutableRawPointer, _ option: CURLoption, _ value: String, _ name: String) throws(CurlError) {
        try curlCheck(ccurl_easy_setopt_string(easy, option, value), name)
    }

    // MARK: Finishing

    /// Builds the outcome once libcurl says the transfer is done and ``afterResponse(_:multi:configuration:)``
    /// said to finish.
    func finish(_ code: CURLcode) -> Result<CurlResponse, CurlError> {
        guard let easy else { return .failure(error(.internalError, "transfer finished without a handle")) }
        guard code == CURLE_OK else { return .failure(curlFailure(code, easy)) }
        let response = responseSoFar(easy, body: body)
        let responseStatus = response.status
        let status = responseStatus.code
        if let sink {
            let accepted = !(download?.options.requireSuccess ?? true) || responseStatus.kind == .successful
            self.sink = nil
            guard accepted else {
                sink.discard()
                return .failure(
                    error(.badStatus, "status \(status) \(head.reason), not saved to '\(sink.target)' (the file was left as it was)", response: response))
            }
            if let failure = sink.commit() {
                return .failure(failure.attaching(method: "", url: "", response: response))
            }
        }
        return .success(response)
    }

    /// The response of the current hop as it stands: its head (the fields are taken from the
    /// parser) and `body`.
    func responseSoFar(_ easy: UnsafeMutableRawPointer, body: [UInt8]) -> CurlResponse {
        var status = 0
        _ = ccurl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        var version = 0
        _ = ccurl_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version)
        var effective: UnsafeMutablePointer<CChar>?
        _ = ccurl_easy_getinfo_string(easy, CURLINFO_EFFECTIVE_URL, &effective)
        let finalURL = effective.map { String(cString: $0) } ?? request.url
        if status == 0 { status = head.status }
        let responseStatus = HTTPResponse.Status(code: max(0, min(status, 999)), reasonPhrase: head.reason)
        return CurlResponse(
            status: responseStatus, fields: ReceivedFields(lines: head.takeFieldLines()),
            body: body, url: finalURL, redirectCount: hop.count, httpVersion: Self.versionName(version),
            requestMethod: hop.method.rawValue)
    }

    private func curlFailure(_ code: CURLcode, _ easy: UnsafeMutableRawPointer) -> CurlError {
        let buffered = handle?.errorMessage ?? ""
        var message = buffered.isEmpty ? String(cString: curl_easy_strerror(code)) : buffered
        if code == CURLE_COULDNT_CONNECT {
            var osErrno = 0
            _ = ccurl_easy_getinfo_long(easy, CURLINFO_OS_ERRNO, &osErrno)
            if let socket = request.unixSocketPath {
                message = "\(UnixSocketProbe.describeFailedConnect(to: socket, errno: Int32(osErrno))) (\(message))"
            } else if let proxy = proxyInUse {
                message = "could not connect to the proxy \(proxy) (\(message))"
            } else if osErrno == 111 {  // ECONNREFUSED
                message = "connection refused by \(parts.hostAndPort) (\(message))"
            }
        } else if code == CURLE_OPERATION_TIMEDOUT, stallSeconds > 0, buffered.hasPrefix("Operation too slow") {
            return error(.operationTimedOut, "the transfer stalled: no byte moved for \(stallSeconds) s (stallTimeout)")
        } else if code == CURLE_OUT_OF_MEMORY, !machine.bodyStarted {
            // libcurl refuses a head line over CURL_MAX_HTTP_HEADER (100 KiB) with this code;
            // before the body it is that, not a failed allocation.
            return error(
                .headersTooLarge, "a response header line is longer than libcurl accepts (100 KiB per line; the whole head may have \(head.limit) bytes)")
        } else if code == CURLE_UNSUPPORTED_PROTOCOL, buffered.hasPrefix("Received HTTP/0.9") {
            message = "the \(proxyInUse.map { "proxy \($0)" } ?? "server") answered with something that is not HTTP (\(message))"
        } else if code == CURLE_UNSUPPORTED_PROTOCOL {
            message += "; only http and https are allowed unless the request lists more in allowedSchemes"
        } else if let proxy = proxyInUse, [CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_WEIRD_SERVER_REPLY, CURLE_SEND_ERROR, CURLE_PROXY].contains(code) {
            message = "through the proxy \(proxy): \(message)"
        }
        return error(CurlError.Code(curlCode: Int32(bitPattern: code.rawValue)), message)
    }

    /// The proxy the current hop went through: `nil` when it connected directly, over a Unix
    /// socket, or through a proxy the environment names (libcurl alone knows which).
    private var proxyInUse: CurlProxy? {
        guard request.unixSocketPath == nil, case .through(let proxy) = proxy, !proxy.bypasses(host: parts.host) else { return nil }
        return proxy
    }

    /// Whether a transfer over `scheme` (lowercase, as ``URLParts`` has it) could share a
    /// connection with others (HTTP/2): over TLS unless HTTP/1.1 is forced, or over plain HTTP
    /// with prior knowledge.
    static func canMultiplex(scheme: String, _ version: CurlHTTPVersion) -> Bool {
        if version == .http2PriorKnowledge { return true }
        guard version != .http1_1 else { return false }
        return scheme == "https"
    }

    private static func versionName(_ value: Int) -> String {
        switch value {
        case 1: "1.0"
        case 2: "1.1"
        case 3: "2"
        case 30: "3"
        default: "1.1"
        }
    }

    /// Resets the handle and forgets the response of the last hop before the handle is set up
    /// for the next one.
    func resetForNextHop() {
        handle?.resetForNextHop()
        head = ResponseHeadParser(limit: head.limit)
        body = []
        stallSeconds = 0
    }

    /// Closes the easy handle and lets the files go. Call after `curl_multi_remove_handle`, on
    /// the driver thread. A download not committed is discarded.
    func cleanUp() {
        detachHandle()?.close()
    }

    /// ``cleanUp()`` except for the easy handle, which is returned for the driver to reset and
    /// reuse (a new handle costs about as much as configuring one).
    func detachHandle() -> EasyHandle? {
        let detached = handle
        handle = nil
        defer { retainedForC?.release(); retainedForC = nil }
        uploadFile = nil
        sink?.discard()
        sink = nil
        return detached
    }
}
