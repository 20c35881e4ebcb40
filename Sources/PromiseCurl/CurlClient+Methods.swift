extension CurlClient {
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
