/// An HTTP client on libcurl's multi interface: one thread drives every transfer of the
/// client, so connections (and HTTP/2 streams) are reused across requests.
///
/// ## Threading
///
/// The client owns one libcurl multi handle on one driver thread (`curl_multi_poll`). Calls
/// from any thread queue the request and wake that thread; every libcurl call happens there.
/// Promises are resolved there too, after libcurl is done with the transfer and outside every
/// libcurl callback, and their callbacks run where each `then(on:)` says (the default context
/// when it says nothing). Only a callback given `InlineContext()` runs on the driver thread
/// itself: keep such callbacks short.
///
/// ## Cancellation
///
/// `cancel()` on a request's promise, or the core's `timeout` cancelling it, stops the transfer
/// in any state: still queued, connecting, or transferring. The easy handle is removed on the
/// driver thread and the connection is closed or returned to the pool by libcurl.
///
/// ## Lifetime
///
/// ``shutdown()`` refuses new requests, fails the ones in flight with
/// ``CurlError/Code/shutdown`` and cleans libcurl up on the driver thread. A client that is
/// deallocated without `shutdown()` shuts down the same way, and its driver thread ends; if
/// requests were in flight, they are rejected with ``CurlError/Code/shutdown`` and a
/// `notShutDown` diagnostic says how many (see `Promises.diagnosticsHandler`). ``shared`` is
/// never shut down.
///
/// ```swift
/// let client = try CurlClient()
/// client.get("http://127.0.0.1:8080/json").validate().then { response in
///     print(response.status, response.text)
/// }
/// ```
public final class CurlClient: Sendable {
    let driver: Driver
    private let isShared: Bool

    /// The process-wide client with the default ``CurlConfiguration``. It is never shut down;
    /// its thread starts on first use. Should it fail to start (libcurl cannot be set up, no
    /// thread can be created), every request on it rejects with that reason.
    public static let shared: CurlClient = {
        do throws(CurlError) {
            return try CurlClient(configuration: CurlConfiguration(), isShared: true)
        } catch {
            return CurlClient(refusingWith: CurlError(error.code, message: "the shared CurlClient could not start: \(error.message)"), isShared: true)
        }
    }()

    /// Creates a client and starts its driver thread.
    ///
    /// - Parameter configuration: Limits, deadlines and TLS settings; the safe defaults when
    ///   not given.
    /// - Throws: ``CurlError`` with ``CurlError/Code/internalError`` if libcurl cannot be set up
    ///   or the thread cannot be started.
    public convenience init(configuration: CurlConfiguration = CurlConfiguration()) throws(CurlError) {
        try self.init(configuration: configuration, isShared: false)
    }

    private init(configuration: CurlConfiguration, isShared: Bool) throws(CurlError) {
        driver = try Driver(configuration: configuration)
        self.isShared = isShared
    }

    /// A client that could not start: every request rejects with `refusal`.
    init(refusingWith refusal: CurlError, isShared: Bool) {
        driver = Driver(refusing: refusal, configuration: CurlConfiguration())
        self.isShared = isShared
    }

    /// `DroppedOwner`'s policy: shuts down as ``shutdown()`` does (requests in flight are
    /// rejected with ``CurlError/Code/shutdown``, libcurl is cleaned up on the driver thread,
    /// which then ends), and reports the requests that lost.
    deinit {
        let inFlight = driver.pendingTransfers
        if driver.isAccepting, inFlight > 0 {
            let owner = DroppedOwner("CurlClient", named: "thread '\(driver.configuration.threadName)'", call: "shutdown()")
            owner.report(
                CurlError(.shutdown, message: owner.message(DroppedOwner.rejected(inFlight, "request in flight", "requests in flight", code: "shutdown"))))
        }
        _ = driver.shutdown()
    }

    /// The configuration the client was made with.
    public var configuration: CurlConfiguration { driver.configuration }

    /// Requests submitted and not yet completed (queued, connecting or transferring).
    public var pendingRequests: Int { driver.pendingTransfers }

    /// The libcurl version and the libraries it was built with, e.g.
    /// `libcurl/7.88.1 OpenSSL/3.0.17 zlib/1.2.13 brotli/1.0.9 nghttp2/1.52.0`.
    public static var libcurlVersion: String { curlVersion() }

    /// Sends a request and collects the whole response in memory.
    ///
    /// The promise rejects with ``CurlError``: ``CurlError/Code/invalidRequest`` before
    /// anything is sent (bad URL, header injection, a scheme the request does not allow),
    /// libcurl's code when the transfer fails, ``CurlError/Code/responseTooLarge`` past the
    /// body limit, ``CurlError/Code/shutdown`` when the client shuts down. A response of any
    /// status fulfils it; chain `validate()` to refuse non-2xx.
    ///
    /// - Parameter request: The request.
    /// - Returns: A promise of the response; cancelling it aborts the transfer.
    public func execute(_ request: CurlRequest) -> Promise<CurlResponse> {
        submit(request, download: nil)
    }

    /// Sends a request and streams the response body into a file.
    ///
    /// The body goes to a temporary file in the same directory, which replaces `path` only
    /// when the transfer succeeds (and, by default, the status is 2xx). A failure, a refused
    /// status or a cancellation leaves `path` as it was and no temporary file behind. A path
    /// holding a NUL byte rejects with ``CurlError/Code/invalidArgument`` before anything is sent
    /// (C calls would cut it short and write elsewhere). ``CurlRequest/maxResponseBodySize``
    /// does not apply; the fulfilled response has an empty ``CurlResponse/body``.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - path: Where the body is stored.
    ///   - options: Durability and status rules; see ``CurlDownloadOptions``.
    /// - Returns: A promise of the response (without body).
    public func download(_ request: CurlRequest, to path: String, options: CurlDownloadOptions = CurlDownloadOptions()) -> Promise<CurlResponse> {
        submit(request, download: DownloadTarget(path: path, options: options))
    }

    /// Refuses new requests, fails the ones in flight with ``CurlError/Code/shutdown``, and
    /// cleans libcurl up on the driver thread.
    ///
    /// - Returns: A promise fulfilled once libcurl is cleaned up and the thread has ended
    ///   (every call gets one). For ``shared``, a promise rejected with
    ///   ``CurlError/Code/invalidRequest``: the shared client is never shut down.
    @discardableResult
    public func shutdown() -> Promise<Void> {
        guard !isShared else {
            return Promise(CurlError(.invalidRequest, message: "CurlClient.shared is never shut down; make a CurlClient of your own to shut down"))
        }
        return driver.shutdown()
    }

    func submit(_ request: CurlRequest, download: DownloadTarget?, stream: ResponseStream? = nil) -> Promise<CurlResponse> {
        let method = request.method.rawValue
        let parts: URLParts
        switch request.validated(downloadPath: download?.path) {
        case .success(let valid): parts = valid
        case .failure(let failure):
            let error = failure.attaching(method: method, url: request.url)
            #if Tracing || Metrics
                if let telemetry = driver.telemetry {
                    var refused = request
                    RequestTelemetry.end(RequestTelemetry.start(telemetry, &refused, parts: nil), method: method, .failure(error), measures: TransferMeasures())
                }
            #endif
            return Promise(error)
        }
        #if Tracing || Metrics
            var request = request
            let telemetry = driver.telemetry.map { RequestTelemetry.start($0, &request, parts: parts) }
        #endif
        var producer: (length: Int?, produce: @Sendable (CurlBodyWriter) async throws -> Void)?
        if case .produced(let length, let produce) = request.body?.storage { producer = (length, produce) }
        let upload = producer.map { UploadStream(length: $0.length, driver: driver) }
        let transfer = Transfer(
            request: request, parts: parts, download: download, stream: stream, upload: upload, headLimit: configuration.maxResponseHeaderSize,
            driverID: driver.contextID, progressOutbox: driver.progressOutbox, cookies: driver.cookies
        )
        #if Tracing || Metrics
            transfer.telemetry = telemetry
        #endif
        let promise = transfer.promise
        stream?.attach(transfer)
        upload?.link(transfer)
        guard driver.submit(transfer) else {
            let error = driver.refusal.attaching(method: method, url: request.url)
            upload?.transferEnded()
            stream?.transferEnded(.failure(error))
            #if Tracing || Metrics
                if let telemetry { RequestTelemetry.end(telemetry, method: method, .failure(error), measures: TransferMeasures()) }
            #endif
            return Promise(error)
        }
        if let upload, let producer { upload.startProducer(producer.produce) }
        // Strong references, with no side table to allocate for weak ones: the promise drops
        // its cancel handlers when it settles, and the driver settles every transfer it took.
        promise.onCancelFromLibrary { [driver] in driver.cancel(transfer) }
        return promise
    }
}
