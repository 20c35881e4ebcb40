/// The HTTP version a client speaks.
public struct CurlHTTPVersion: Hashable, Sendable {
    let curlValue: Int

    /// HTTP/2 over TLS when the server offers it (ALPN), HTTP/1.1 otherwise.
    public static let automatic = CurlHTTPVersion(curlValue: 4)  // CURL_HTTP_VERSION_2TLS
    /// HTTP/1.1 only.
    public static let http1_1 = CurlHTTPVersion(curlValue: 2)  // CURL_HTTP_VERSION_1_1
    /// HTTP/2 without asking first, also over plain TCP (h2c "prior knowledge"); only for
    /// servers known to speak it.
    public static let http2PriorKnowledge = CurlHTTPVersion(curlValue: 5)  // CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE
}
