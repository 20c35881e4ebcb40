/// What code that makes HTTP requests needs of a client: ``CurlClient`` conforms, and so can a
/// stand-in in tests (PromiseCurlTesting's `ScriptedCurlClient`, which answers from a script
/// without a server).
///
/// Write code that only sends requests against this protocol, and tests can hand it a stand-in:
///
/// ```swift
/// struct WeatherService {
///     let http: any CurlExecuting
///     func temperature(in city: String) -> Promise<Double> {
///         http.get("https://weather.example/now?city=\(city)").map { try $0.validate().decode(Reading.self).celsius }
///     }
/// }
/// ```
///
/// The convenience methods (``get(_:headers:)``, ``post(_:body:headers:)`` and the rest) are
/// written once, here, on top of the two requirements.
public protocol CurlExecuting: Sendable {
    /// Sends `request` and collects the response body in memory.
    ///
    /// - Parameter request: The request.
    /// - Returns: A promise of the response; cancelling it stops the transfer.
    func execute(_ request: CurlRequest) -> Promise<CurlResponse>

    /// Sends `request` and streams the response body into the file at `path`.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - path: Where the body goes.
    ///   - options: Durability and status rules.
    /// - Returns: A promise of the response (without body).
    func download(_ request: CurlRequest, to path: String, options: CurlDownloadOptions) -> Promise<CurlResponse>
}

extension CurlClient: CurlExecuting {}

extension CurlExecuting {
    /// Sends a `GET`.
    ///
    /// - Parameters:
    ///   - url: An absolute `http` or `https` URL.
    ///   - headers: Header fields; CR, LF or NUL in one rejects the request before sending.
    /// - Returns: A promise of the response.
    public func get(_ url: String, headers: KeyValuePairs<String, String> = [:]) -> Promise<CurlResponse> {
        execute(CurlRequest(.get, url, headers: headers))
    }

    /// Sends a `HEAD`: status and fields only.
    ///
    /// - Parameters:
    ///   - url: An absolute `http` or `https` URL.
    ///   - headers: Header fields.
    /// - Returns: A promise of the response, with an empty body.
    public func head(_ url: String, headers: KeyValuePairs<String, String> = [:]) -> Promise<CurlResponse> {
        execute(CurlRequest(.head, url, headers: headers))
    }

    /// Sends a `POST` with a body.
    ///
    /// - Parameters:
    ///   - url: An absolute `http` or `https` URL.
    ///   - body: The body: `.json(value)`, `.form(fields)`, `.bytes(bytes)`, `.file(path)` …
    ///   - headers: Header fields.
    /// - Returns: A promise of the response.
    public func post(_ url: String, body: CurlBody, headers: KeyValuePairs<String, String> = [:]) -> Promise<CurlResponse> {
        execute(CurlRequest(.post, url, headers: headers, body: body))
    }

    /// Sends a `PUT` with a body.
    ///
    /// - Parameters:
    ///   - url: An absolute `http` or `https` URL.
    ///   - body: The body.
    ///   - headers: Header fields.
    /// - Returns: A promise of the response.
    public func put(_ url: String, body: CurlBody, headers: KeyValuePairs<String, String> = [:]) -> Promise<CurlResponse> {
        execute(CurlRequest(.put, url, headers: headers, body: body))
    }

    /// Sends a `PATCH` with a body.
    ///
    /// - Parameters:
    ///   - url: An absolute `http` or `https` URL.
    ///   - body: The body.
    ///   - headers: Header fields.
    /// - Returns: A promise of the response.
    public func patch(_ url: String, body: CurlBody, headers: KeyValuePairs<String, String> = [:]) -> Promise<CurlResponse> {
        execute(CurlRequest(.patch, url, headers: headers, body: body))
    }

    /// Sends a `DELETE`.
    ///
    /// - Parameters:
    ///   - url: An absolute `http` or `https` URL.
    ///   - headers: Header fields.
    /// - Returns: A promise of the response.
    public func delete(_ url: String, headers: KeyValuePairs<String, String> = [:]) -> Promise<CurlResponse> {
        execute(CurlRequest(.delete, url, headers: headers))
    }

    /// Downloads a URL into a file with a `GET`; see ``download(_:to:options:)-(CurlRequest,_,_)``.
    ///
    /// - Parameters:
    ///   - url: An absolute `http` or `https` URL.
    ///   - path: Where the body is stored; replaced only when the download succeeds.
    ///   - options: Durability and status rules.
    /// - Returns: A promise of the response (without body).
    public func download(_ url: String, to path: String, options: CurlDownloadOptions = CurlDownloadOptions()) -> Promise<CurlResponse> {
        download(CurlRequest(.get, url), to: path, options: options)
    }
}
