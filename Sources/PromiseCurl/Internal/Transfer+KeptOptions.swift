/// The options a plain request sets on an easy handle beyond those that name the transfer:
/// a `GET` without body, header fields, progress handler or download, on its first hop.
/// Everything else such a request sets comes from the client's ``CurlConfiguration``, which
/// is the same for every handle of a client.
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
    /// `CURLOPT_MAXFILESIZE_LARGE`, and the limit the write callback enforces.
    var maxBody: Int
    /// Whether `CURLOPT_TIMEOUT_MS` is set (its value is set again for each transfer).
    var hasDeadline: Bool
    /// `CURLOPT_PIPEWAIT`.
    var waitsForMultiplexing: Bool
}

extension Transfer {
    /// The current hop's options as ``KeptOptions``, or `nil` when the hop needs more than a
    /// plain request does: another method, a body, header fields, a progress handler, a
    /// download, or a redirect to follow.
    func keptOptions(_ configuration: CurlConfiguration) -> KeptOptions? {
        guard hop.count == 0, download == nil, request.body == nil, request.onProgress == nil,
            request.headerFields.isEmpty, hop.method == .get
        else { return nil }
        return KeptOptions(
            schemes: schemesOption, connectTimeout: connectTimeoutOption(configuration),
            stallSeconds: stallSecondsOption(configuration), maxBody: maxBodyOption(configuration),
            hasDeadline: deadline != nil, waitsForMultiplexing: waitsForMultiplexing(configuration))
    }

    /// The schemes the request may use: `http,https` unless it lists others.
    var schemesOption: String {
        request.allowedSchemes.map { $0.sorted().joined(separator: ",") } ?? "http,https"
    }

    /// The connect timeout in milliseconds: the request's, else the client's.
    func connectTimeoutOption(_ configuration: CurlConfiguration) -> Int {
        milliseconds(request.connectTimeout ?? configuration.connectTimeout)
    }

    /// Whole seconds below 1 byte per second that abort the transfer (rounded up, at least 1),
    /// or 0 when neither the request nor the client sets a stall timeout.
    func stallSecondsOption(_ configuration: CurlConfiguration) -> Int {
        guard let stall = request.stallTimeout ?? configuration.stallTimeout else { return 0 }
        return Int(max(1, stall.secondsRoundedUp(cappedAt: Int64(Int32.max))))
    }

    /// The largest body collected in memory: the request's limit, else the client's.
    func maxBodyOption(_ configuration: CurlConfiguration) -> Int {
        max(0, request.maxResponseBodySize ?? configuration.maxResponseBodySize)
    }

    /// Whether the request waits for a connection it can multiplex on (`CURLOPT_PIPEWAIT`).
    func waitsForMultiplexing(_ configuration: CurlConfiguration) -> Bool {
        configuration.waitForMultiplexing && Self.canMultiplex(scheme: parts.scheme, configuration.httpVersion)
    }

    /// Whole milliseconds, rounded up, at least 1: libcurl reads 0 as "no timeout".
    func milliseconds(_ duration: Duration) -> Int {
        Int(max(1, duration.millisecondsRoundedUp(cappedAt: Int64(Int32.max))))
    }
}
