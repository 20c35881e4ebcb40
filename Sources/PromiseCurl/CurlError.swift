/// The error every PromiseCurl promise rejects with (besides `CancellationError` and
/// `PromiseError` from the core's combinators).
///
/// It holds a ``Code`` (libcurl's `CURLcode`, or one of PromiseCurl's own checks), the message
/// libcurl wrote into the transfer's error buffer (or PromiseCurl's own), the request's method
/// and URL, and the response when there was one (``CurlError/Code/badStatus`` from
/// ``CurlResponse/validate()``).
///
/// ```swift
/// client.get("http://127.0.0.1:8080/users/7").validate().catch { error in
///     switch error {
///     case CurlError.Code.couldNotConnect: print("the server is down")
///     case CurlError.Code.badStatus: print("status", (error as! CurlError).response!.status)
///     default: print(error)
///     }
/// }
/// ```
public struct CurlError: PromiseLibraryError {
    /// What went wrong, as a code that can grow; match it with `~=` in a `catch` or `case`.
    public let code: Code
    /// libcurl's own message for this transfer (its error buffer), or PromiseCurl's message for
    /// the checks it makes itself.
    public let message: String
    /// The request method (`GET`), or empty when the error is not about one request.
    public let method: String
    /// The URL the request was made to (before redirects), or empty. User information in it
    /// (`user:password@`) reads `***@`, so the error can be logged.
    public let url: String
    /// The response, when the failure came after one arrived (a status ``CurlResponse/validate()`` refused).
    public let response: CurlResponse?
    /// The error that caused this one, if any.
    public var underlying: (any Error)? { cause.error }
    private let cause: UnderlyingCause

    /// Creates an error; PromiseCurl makes these, and tests may too.
    ///
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - message: A sentence a person can act on.
    ///   - method: The request method, if any.
    ///   - url: The request URL, if any; user information in it is kept as `***@`.
    ///   - response: The response that came back, if any.
    ///   - underlying: The error that caused this one, if any.
    public init(
        _ code: Code, message: String, method: String = "", url: String = "", response: CurlResponse? = nil, underlying: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.method = method
        self.url = redactingUserInfo(url)
        self.response = response
        self.cause = UnderlyingCause(underlying)
    }

    /// Equal code, message, request, response status and underlying error (by its type and
    /// description).
    public static func == (lhs: CurlError, rhs: CurlError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message && lhs.method == rhs.method && lhs.url == rhs.url
            && lhs.response?.status.code == rhs.response?.status.code && lhs.cause == rhs.cause
    }

    /// Hashes the fields `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
        hasher.combine(method)
        hasher.combine(url)
        hasher.combine(response?.status.code)
        hasher.combine(cause)
    }

    /// One line in the format every product's error shares, e.g.
    /// `CurlError.couldNotConnect (curl 7): Failed to connect to 127.0.0.1 port 9 — GET http://127.0.0.1:9/`.
    public var description: String {
        libraryErrorDescription(
            cCode: code.curlCode.map { "curl \($0)" }, context: url.isEmpty ? nil : (method.isEmpty ? url : "\(method) \(url)"))
    }
}

extension CurlError {
    /// This error with the request's method and URL (and a response, if it has none yet):
    /// the one place a request is attached to its error, when its promise is settled.
    func attaching(method: String, url: String, response: CurlResponse? = nil) -> CurlError {
        CurlError(
            code, message: message, method: self.method.isEmpty ? method : self.method,
            url: self.url.isEmpty ? url : self.url, response: self.response ?? response, underlying: underlying)
    }
}
