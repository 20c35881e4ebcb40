internal import CCurl

/// Where one request of a redirect chain goes and what it sends. The first hop is the
/// request as given; each redirect PromiseCurl follows makes the next one.
struct Hop {
    /// The URL, as given to `CURLOPT_URL`.
    var url: String
    /// The URL's parts.
    var parts: URLParts
    /// The method sent.
    var method: HTTPRequest.Method
    /// Whether the request's body (and its content fields) is sent.
    var sendsBody: Bool
    /// Whether `Authorization`, `Cookie`, `Proxy-Authorization` and a `Host` set on the
    /// request are sent: only to the origin (scheme, host, port) of the request as given.
    var sendsCredentials = true
    /// Redirects followed to get here.
    var count = 0

    /// The statuses whose `Location` is followed.
    static let followed: Set<Int> = [301, 302, 303, 307, 308]

    /// The hop a redirect with `status` to `target` leads to (RFC 9110 §15.4): 303 makes any
    /// method but HEAD a GET; 301 and 302 make a POST a GET (as browsers and curl do) and
    /// keep other methods; 307 and 308 keep the method. Whenever the method becomes GET the
    /// body and its content fields are left out; otherwise a body is sent again.
    func next(status: Int, to target: URLParts, origin: String) -> Hop {
        let becomesGet =
            switch status {
            case 303: method != .get && method != .head
            case 301, 302: method == .post
            default: false
            }
        var hop = Hop(url: target.string, parts: target, method: becomesGet ? .get : method, sendsBody: sendsBody && !becomesGet, count: count + 1)
        hop.sendsCredentials = Self.origin(of: target) == origin
        if !hop.sendsCredentials { hop.dropUserInfo() }
        return hop
    }

    /// `scheme://host:port`, the host lowercased and the port explicit.
    static func origin(of parts: URLParts) -> String {
        let host = parts.host
        let hostAndPort = parts.hostAndPort
        var port = hostAndPort.count > host.count ? String(hostAndPort.dropFirst(host.count + 1)) : ""
        if port.isEmpty { port = parts.scheme == "https" ? "443" : "80" }
        return "\(parts.scheme)://\(host.lowercased()):\(port)"
    }

    /// Removes `user:password@` from the URL: credentials in a URL are for its own origin.
    private mutating func dropUserInfo() {
        guard parts.authority != parts.hostAndPort else { return }
        parts.authority = parts.hostAndPort
        url = parts.string
    }

    /// Whether a field goes out on this hop: content fields only with the body, credentials
    /// and a `Host` of the request's own only to the first origin.
    func sends(_ name: HTTPField.Name, requestHasBody: Bool) -> Bool {
        let lowered = name.canonicalName
        if requestHasBody, !sendsBody, lowered.hasPrefix("content-") || Self.contentFields.contains(lowered) { return false }
        if !sendsCredentials, Self.credentialFields.contains(lowered) { return false }
        return true
    }

    private static let contentFields: Set<String> = ["transfer-encoding", "digest", "last-modified", "expect"]
    private static let credentialFields: Set<String> = ["authorization", "cookie", "proxy-authorization", "host"]
}

/// What happens once a transfer's response is in.
enum AfterResponse {
    /// The response is the last: build the outcome.
    case finish
    /// The handle was set up for the redirect target and added back to the multi handle.
    case followed
    /// The redirect cannot be followed.
    case failed(CurlError)
}

extension Transfer {
    /// After a transfer on `easy` ended with `code` and was removed from `multi`: follows a
    /// redirect by setting the handle up for the target and adding it back, when the state
    /// machine says so.
    func afterResponse(_ code: CURLcode, multi: UnsafeMutableRawPointer, configuration: CurlConfiguration) -> AfterResponse {
        switch machine.responseEnded(succeeded: code == CURLE_OK, status: head.status, hasLocation: head.fields[.location] != nil) {
        case .finish:
            return .finish
        case .fail(let failure):
            return .failed(failure)
        case .followRedirect:
            guard let easy else { return .failed(error(.internalError, "a redirect was to be followed without a handle")) }
            switch machine.redirectTarget(redirectTarget(easy), now: .now, origin: Hop.origin(of: parts)) {
            case .fail(let failure):
                return .failed(failure)
            case .follow:
                #if Tracing || Metrics
                    RequestTelemetry.redirected(telemetry, status: head.status, to: hop.url)
                #endif
                resetForNextHop()
                do throws(CurlError) {
                    try configure(easy, configuration)
                    try curlMultiCheck(curl_multi_add_handle(multi, easy), "curl_multi_add_handle")
                    return .followed
                } catch {
                    return .failed(error)
                }
            }
        }
    }

    /// The absolute URL the response's `Location` points to (`CURLINFO_REDIRECT_URL`).
    private func redirectTarget(_ easy: UnsafeMutableRawPointer) -> String? {
        var target: UnsafeMutablePointer<CChar>?
        guard ccurl_easy_getinfo_string(easy, CURLINFO_REDIRECT_URL, &target) == CURLE_OK, let target else { return nil }
        return String(cString: target)
    }
}
