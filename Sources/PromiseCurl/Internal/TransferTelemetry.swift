#if Tracing || Metrics
    internal import CCurl
    internal import PromiseSystem
    #if Tracing
        internal import Tracing
    #endif

    extension CurlConfiguration: TelemetrySettings {}

    /// What a request's span and metrics record beyond its outcome: libcurl's timings and byte
    /// counts of the last hop, read on the driver thread before the handle is reused.
    struct TransferMeasures: Sendable {
        /// `CURLINFO_*_TIME_T` in microseconds, by attribute name.
        var timings: [(String, Int64)] = []
        var bytesSent: Int64 = 0
        var bytesReceived: Int64 = 0

        static let timingInfos: [(String, CURLINFO)] = [
            ("curl.time.namelookup_us", CURLINFO_NAMELOOKUP_TIME_T),
            ("curl.time.connect_us", CURLINFO_CONNECT_TIME_T),
            ("curl.time.appconnect_us", CURLINFO_APPCONNECT_TIME_T),
            ("curl.time.pretransfer_us", CURLINFO_PRETRANSFER_TIME_T),
            ("curl.time.starttransfer_us", CURLINFO_STARTTRANSFER_TIME_T),
            ("curl.time.total_us", CURLINFO_TOTAL_TIME_T),
        ]

        /// Reads the measures of the transfer on `easy` (driver thread).
        init(easy: UnsafeMutableRawPointer) {
            for (name, info) in Self.timingInfos {
                var value: curl_off_t = 0
                if ccurl_easy_getinfo_off_t(easy, info, &value) == CURLE_OK { timings.append((name, Int64(value))) }
            }
            var sent: curl_off_t = 0
            var received: curl_off_t = 0
            _ = ccurl_easy_getinfo_off_t(easy, CURLINFO_SIZE_UPLOAD_T, &sent)
            _ = ccurl_easy_getinfo_off_t(easy, CURLINFO_SIZE_DOWNLOAD_T, &received)
            bytesSent = Int64(sent)
            bytesReceived = Int64(received)
        }

        init() {}
    }

    /// A request's span and metrics, following OpenTelemetry's semantic conventions for HTTP
    /// clients: the span is named after the method, of kind client, with `http.request.method`,
    /// `url.full` (credentials and signed query values redacted), `url.scheme`, `server.address`
    /// and `server.port` from the start; `http.response.status_code`, `network.protocol.version`,
    /// the body sizes and libcurl's timings at the end; one `http.redirect` event per redirect
    /// followed. A status of 400 or more, or a failure, sets `error.type`.
    ///
    /// Metrics: the `http.client.request.duration` timer and the `http.client.requests` counter
    /// by method and status (or `error.type`), `http.client.errors` by `error.type`, and the bytes
    /// in `http.client.request.body.bytes` and `http.client.response.body.bytes`.
    enum RequestTelemetry {
        /// Starts the span of `request` (caller's thread) and puts its trace context into the
        /// request's header fields, as the tracer writes it (`traceparent` for W3C tracers).
        static func start(_ telemetry: Telemetry, _ request: inout CurlRequest, parts: URLParts?) -> TelemetryOperation {
            let method = request.method.rawValue
            let operation = telemetry.start(method, kind: .client)
            #if Tracing
                if let span = operation.span, let tracer = telemetry.tracer {
                    span.updateAttributes { attributes in
                        attributes["http.request.method"] = method
                        attributes["url.full"] = redactedForTelemetry(request.url)
                        if let parts {
                            attributes["url.scheme"] = parts.scheme
                            attributes["server.address"] = parts.host
                            if let port = port(of: parts) { attributes["server.port"] = port }
                        }
                    }
                    if let attempt = AdapterSupport.retryAttempt, attempt > 1 {
                        // A retry's attempt: OpenTelemetry's resend count, and an event that says so.
                        span.attributes["http.request.resend_count"] = attempt - 1
                        span.addEvent(SpanEvent(name: "http.retry", attributes: ["promise.retry.attempt": .int64(Int64(attempt))]))
                    }
                    tracer.inject(span.context, into: &request.headerFields, using: HTTPFieldsInjector())
                }
            #endif
            return operation
        }

        /// Records a redirect followed from a response of `status` to `target` (driver thread).
        static func redirected(_ operation: TelemetryOperation?, status: Int, to target: String) {
            #if Tracing
                operation?.span?.addEvent(
                    SpanEvent(
                        name: "http.redirect",
                        attributes: ["http.response.status_code": .int64(Int64(status)), "url.full": .string(redactedForTelemetry(target))]))
            #endif
        }

        /// Ends the request's span and records its metrics (driver thread, or the caller's for a
        /// request refused before it was sent).
        static func end(_ operation: TelemetryOperation, method: String, _ result: Result<CurlResponse, any Error>, measures: TransferMeasures) {
            let status: Int? =
                switch result {
                case .success(let response): response.status.code
                case .failure(let error): (error as? CurlError)?.response?.status.code
                }
            let errorType: String? =
                switch result {
                case .success(let response): response.status.code >= 400 ? String(response.status.code) : nil
                case .failure(let error as CurlError): error.code.name
                case .failure(is CancellationError): "cancelled"
                case .failure(let error): String(describing: type(of: error))
                }
            #if Tracing
                operation.attribute { attributes in
                    if let status { attributes["http.response.status_code"] = status }
                    if case .success(let response) = result {
                        attributes["network.protocol.version"] = response.httpVersion
                        attributes["promise_curl.redirect_count"] = response.redirectCount
                    }
                    attributes["http.request.body.size"] = measures.bytesSent
                    attributes["http.response.body.size"] = measures.bytesReceived
                    for (name, microseconds) in measures.timings { attributes[name] = microseconds }
                }
            #endif
            switch result {
            case .failure(let error): operation.end(failure: (error, errorType ?? "error"))
            case .success(let response) where errorType != nil:
                operation.end(failure: (CurlError(.badStatus, message: "status \(response.status.code)"), errorType ?? "error"))
            case .success: operation.end()
            }
            #if Metrics
                let telemetry = operation.telemetry
                var dimensions = [("http.request.method", method)]
                if let status { dimensions.append(("http.response.status_code", String(status))) }
                if let errorType { dimensions.append(("error.type", errorType)) }
                telemetry.time("http.client.request.duration", dimensions, nanoseconds: operation.elapsedNanoseconds)
                telemetry.count("http.client.requests", dimensions)
                if let errorType { telemetry.count("http.client.errors", [("error.type", errorType)]) }
                telemetry.count("http.client.request.body.bytes", by: Int(measures.bytesSent))
                telemetry.count("http.client.response.body.bytes", by: Int(measures.bytesReceived))
            #endif
        }

        /// The port of `parts`, explicit or the scheme's.
        private static func port(of parts: URLParts) -> Int? {
            let hostAndPort = parts.hostAndPort
            if hostAndPort.count > parts.host.count, let port = Int(hostAndPort.dropFirst(parts.host.count + 1)) { return port }
            return parts.scheme == "https" ? 443 : parts.scheme == "http" ? 80 : nil
        }
    }

    /// Query parameters whose values are secrets (signatures, tokens, keys): OpenTelemetry's list
    /// for `url.full` and the usual names of credentials. Compared lowercased.
    private let secretQueryNames: Set<String> = [
        "awsaccesskeyid", "signature", "sig", "x-goog-signature", "x-amz-signature", "x-amz-credential", "x-amz-security-token",
        "access_token", "refresh_token", "id_token", "token", "api_key", "apikey", "key", "password", "secret", "client_secret",
    ]

    /// `url` as a span shows it: user information replaced by `REDACTED:REDACTED` and the values of
    /// secret query parameters by `REDACTED`, as OpenTelemetry's HTTP conventions ask.
    func redactedForTelemetry(_ url: String) -> String {
        var text = url
        if let fragment = text.firstIndex(of: "#") { text = String(text[..<fragment]) }
        if let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://") {
            let authorityStart = text.index(colon, offsetBy: 3)
            let authorityEnd = text[authorityStart...].firstIndex { $0 == "/" || $0 == "?" } ?? text.endIndex
            if let at = text[authorityStart..<authorityEnd].lastIndex(of: "@") {
                text.replaceSubrange(authorityStart..<at, with: "REDACTED:REDACTED")
            }
        }
        guard let question = text.firstIndex(of: "?") else { return text }
        let query = text[text.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "="), secretQueryNames.contains(pair[..<equals].lowercased()) else { return String(pair) }
            return pair[..<equals] + "=REDACTED"
        }
        return text[...question] + query.joined(separator: "&")
    }

    #if Tracing
        /// Writes a trace context into a request's header fields.
        struct HTTPFieldsInjector: Injector {
            func inject(_ value: String, forKey key: String, into fields: inout HTTPFields) {
                guard let name = HTTPField.Name(key) else { return }
                fields[name] = value
            }
        }
    #endif
#endif
