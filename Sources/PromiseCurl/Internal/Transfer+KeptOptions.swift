/// The option values a transfer sets on an easy handle that depend on the request, beyond
/// those that name the transfer (its URL, the callbacks' pointer). Everything else a plain
/// request (a `GET` without body, header fields, progress handler or download, on its first
/// hop) sets comes from the client's ``CurlConfiguration``, which is the same for every
/// handle of a client.
///
/// A handle keeps these options after its transfer (``EasyHandle/kept``). The next plain
/// request with equal ones reuses them as they are, the way a C program reuses an easy
/// handle: no `curl_easy_reset`, and four `curl_easy_setopt` calls instead of about twenty.
/// Any other request resets the handle first, so no option of one request reaches another.
struct KeptOptions: Equatable {
    /// `CURLOPT_PROTOCOLS_STR`.
    var schemes: String
    /// `CURLOPT_CONNECTTIMEOUT_MS`.
    var connectTimeout: Int
    /// `CURLOPT_LOW_SPEED_TIME`, or 0 when there is no stall limit.
    var stallSeconds: Int
    /// Whether `CURLOPT_TIMEOUT_MS` is set (its value is set again for each transfer).
    var hasDeadline: Bool
    /// `CURLOPT_PIPEWAIT`.
    var waitsForMultiplexing: Bool
    /// `CURLOPT_UNIX_SOCKET_PATH`, or `nil` for TCP.
    var unixSocketPath: String?
    /// The proxy options: the request's, or the client's.
    var proxy: CurlProxySetting
}

extension Transfer {
    /// The current hop's option values that depend on the request: what ``configure(_:_:)``
    /// sets, and what a handle keeps after a plain request (``keepsOptions``).
    func optionValues(_ configuration: CurlConfiguration) -> KeptOptions {
        let stallSeconds: Int
        if let stall = request.stallTimeout ?? configuration.stallTimeout {
            // Whole seconds, rounded up, at least 1.
            stallSeconds = Int(max(1, stall.secondsRoundedUp(cappedAt: Int64(Int32.max))))
        } else {
            stallSeconds = 0
        }
        return KeptOptions(
            schemes: request.allowedSchemes.map { $0.sorted().joined(separator: ",") } ?? "http,https",
            connectTimeout: milliseconds(request.connectTimeout ?? configuration.connectTimeout),
            stallSeconds: stallSeconds,
            hasDeadline: machine.limits.deadline != nil,
            waitsForMultiplexing: configuration.waitForMultiplexing && Self.canMultiplex(scheme: parts.scheme, configuration.httpVersion),
            unixSocketPath: request.unixSocketPath,
            proxy: request.proxy ?? configuration.proxy)
    }

    /// Whether the current hop is a plain request, whose options a handle may keep: not when
    /// it needs another method, a body, header fields, a progress handler, a download, or is a
    /// redirect being followed.
    var keepsOptions: Bool {
        hop.count == 0 && download == nil && request.body == nil && request.onProgress == nil
            && request.headerFields.isEmpty && hop.method == .get
    }

    /// Whole milliseconds, rounded up, at least 1: libcurl reads 0 as "no timeout".
    func milliseconds(_ duration: Duration) -> Int {
        Int(max(1, duration.millisecondsRoundedUp(cappedAt: Int64(Int32.max))))
    }
}
