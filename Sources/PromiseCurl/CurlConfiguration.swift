#if Tracing
    public import Tracing
#endif
#if Metrics
    public import CoreMetrics
#endif

/// Settings of one ``CurlClient``: connection limits, deadlines, size limits, TLS and the
/// HTTP version. The defaults are the safe ones; see "HTTP security defaults" in the docs.
public struct CurlConfiguration: Sendable {
    /// Open connections across all hosts at most (`CURLMOPT_MAX_TOTAL_CONNECTIONS`); requests
    /// beyond it wait in libcurl's queue. Default 256; 0 or less means 1 (libcurl would take 0
    /// as no limit).
    public var maxConnections = 256
    /// Open connections to one host at most (`CURLMOPT_MAX_HOST_CONNECTIONS`). Default 64; 0
    /// or less means 1.
    public var maxConnectionsPerHost = 64
    /// How long connecting (TCP and TLS) may take. Default 10 seconds (libcurl's own is 300).
    public var connectTimeout: Duration = .seconds(10)
    /// The total time a request may take, or `nil` for no limit. A request's own
    /// ``CurlRequest/timeout`` takes precedence.
    public var timeout: Duration?
    /// How long a transfer may go without moving a byte either way before it fails with
    /// ``CurlError/Code/operationTimedOut``, or `nil` for no limit. Default 60 seconds
    /// (libcurl has none: a server that sends its head and then nothing holds the request
    /// forever). It counts from the request being sent too, so a server that thinks longer
    /// than this before answering fails as well: raise it for long polls. Whole seconds,
    /// rounded up (`CURLOPT_LOW_SPEED_TIME` with `CURLOPT_LOW_SPEED_LIMIT` 1 byte per second).
    /// A request's own ``CurlRequest/stallTimeout`` takes precedence.
    public var stallTimeout: Duration? = .seconds(60)
    /// The most redirects followed, only to `http`/`https`. Default 10; `0` follows none.
    /// Statuses 301, 302, 303, 307 and 308 are followed; what the next request sends is in
    /// "Redirects" of the "HTTP security defaults" article.
    public var maxRedirects = 10
    /// The largest response body collected in memory, in bytes. Default 64 MiB. Enforced while
    /// receiving, after content decoding, so a compressed bomb stops at the limit too.
    public var maxResponseBodySize = 64 << 20
    /// The largest response head (status line and fields, all responses of a redirect chain
    /// each counted alone), in bytes. Default 256 KiB.
    public var maxResponseHeaderSize = 256 << 10
    /// Which HTTP version to speak. Default ``CurlHTTPVersion/automatic``.
    public var httpVersion: CurlHTTPVersion = .automatic
    /// For a burst of requests to a new HTTP/2 origin, wait for the first connection to learn
    /// whether it multiplexes instead of opening one connection each (`CURLOPT_PIPEWAIT`).
    /// Default `true`. It applies only to requests that can multiplex: `https` URLs (unless
    /// ``httpVersion`` is ``CurlHTTPVersion/http1_1``) and any URL with
    /// ``CurlHTTPVersion/http2PriorKnowledge``. A plain `http` request never waits, so a
    /// slow response cannot hold up other requests to the same host.
    public var waitForMultiplexing = true
    /// Ask for compressed responses and decode them (`Accept-Encoding` with every encoding
    /// libcurl supports). Default `true`.
    public var decompressResponses = true
    /// TLS settings.
    public var tls = CurlTLSConfiguration()
    /// The `User-Agent` sent when a request sets none; `nil` sends none.
    public var userAgent: String? = "swift-promise PromiseCurl"
    /// Keep the cookies that responses set and send them with this client's later requests, as
    /// a browser does. Default `false`: no cookie is kept or sent unless a request sets a
    /// `Cookie` field itself.
    ///
    /// What the store keeps, and for how long:
    /// - Only in memory, per client: nothing is read from or written to disk, and other
    ///   clients never see it. It ends with ``CurlClient/shutdown()``.
    /// - libcurl's RFC 6265 rules decide what is stored and sent: a cookie goes back only to
    ///   the host (or, with `Domain`, the domain) and path it was set for; a `Secure` one only
    ///   over `https` or to a loopback address, which is also the only `http` origin that can
    ///   set one; names starting `__Secure-` and `__Host-` need the attributes RFC 6265bis
    ///   asks for; one that names another domain is dropped.
    /// - A cookie with `Max-Age` or `Expires` is kept until then (`Max-Age=0` or a past date
    ///   deletes it); one without is kept as long as the client.
    /// - Redirects get the cookies the previous response of the chain set.
    public var keepsCookies = false
    /// Whether requests go through a proxy. Default ``CurlProxySetting/direct``: no proxy,
    /// whatever `http_proxy` and the other variables say; ``CurlProxySetting/fromEnvironment``
    /// reads them as the curl CLI does. A request's ``CurlRequest/proxy`` overrides it.
    public var proxy: CurlProxySetting = .direct
    /// The name of the client's driver thread (in `top -H`, gdb, `/proc`).
    public var threadName = "promise-curl"
    #if Tracing
        /// The tracer of the client's request spans, or `nil` (the default) for the tracer the
        /// process bootstrapped (`InstrumentationSystem.tracer`), read when the client is made.
        /// With the Tracing trait only; see "Tracing and metrics" in the docs.
        public var tracer: (any Tracer)?
    #endif
    #if Metrics
        /// The factory of the client's counters and timers, or `nil` (the default) for the one
        /// the process bootstrapped (`MetricsSystem.factory`), read when the client is made.
        /// With the Metrics trait only; see "Tracing and metrics" in the docs.
        public var metricsFactory: (any MetricsFactory)?
    #endif

    /// The defaults.
    public init() {}
}
