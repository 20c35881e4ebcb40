extension CurlError {
    /// A libcurl `CURLcode` (below 1000) or one of PromiseCurl's own checks (from 1000 on).
    ///
    /// A struct, not an enum, so new codes can be added without breaking anyone's `switch`;
    /// compare with `==` or match with `~=`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The raw number: the `CURLcode` value, or 1000 and up for PromiseCurl's own codes.
        public let rawValue: Int

        /// Wraps a raw code.
        ///
        /// - Parameter rawValue: A `CURLcode` value or a PromiseCurl code.
        public init(rawValue: Int) { self.rawValue = rawValue }

        static let libraryBase = 1000

        // libcurl's codes (the ones a caller is likely to meet).

        /// The URL's scheme is not one libcurl was allowed to use (`CURLE_UNSUPPORTED_PROTOCOL`).
        public static let unsupportedProtocol = Code(rawValue: 1)
        /// libcurl could not parse the URL (`CURLE_URL_MALFORMAT`).
        public static let malformedURL = Code(rawValue: 3)
        /// The host name did not resolve (`CURLE_COULDNT_RESOLVE_HOST`).
        public static let couldNotResolveHost = Code(rawValue: 6)
        /// The connection was refused or could not be made (`CURLE_COULDNT_CONNECT`).
        public static let couldNotConnect = Code(rawValue: 7)
        /// The server sent something that is not HTTP (`CURLE_WEIRD_SERVER_REPLY`).
        public static let weirdServerReply = Code(rawValue: 8)
        /// An HTTP/2 framing or stream error (`CURLE_HTTP2`).
        public static let http2 = Code(rawValue: 16)
        /// The body ended before its announced length (`CURLE_PARTIAL_FILE`).
        public static let partialFile = Code(rawValue: 18)
        /// Writing the received data failed (`CURLE_WRITE_ERROR`).
        public static let writeError = Code(rawValue: 23)
        /// Reading the request body failed (`CURLE_READ_ERROR`).
        public static let readError = Code(rawValue: 26)
        /// The connect timeout or the request's total timeout ran out (`CURLE_OPERATION_TIMEDOUT`).
        public static let operationTimedOut = Code(rawValue: 28)
        /// A TLS handshake failed (`CURLE_SSL_CONNECT_ERROR`).
        public static let tlsConnectError = Code(rawValue: 35)
        /// Redirects went past the limit (`CURLE_TOO_MANY_REDIRECTS`).
        public static let tooManyRedirects = Code(rawValue: 47)
        /// The server closed the connection without sending anything (`CURLE_GOT_NOTHING`).
        public static let gotNothing = Code(rawValue: 52)
        /// Sending failed, e.g. the connection was reset (`CURLE_SEND_ERROR`).
        public static let sendError = Code(rawValue: 55)
        /// Receiving failed, e.g. the connection was reset mid-body (`CURLE_RECV_ERROR`).
        public static let receiveError = Code(rawValue: 56)
        /// The server's certificate or name could not be verified (`CURLE_PEER_FAILED_VERIFICATION`).
        public static let peerFailedVerification = Code(rawValue: 60)
        /// The content encoding (gzip, deflate) was broken (`CURLE_BAD_CONTENT_ENCODING`).
        public static let badContentEncoding = Code(rawValue: 61)
        /// The CA certificate file could not be read (`CURLE_SSL_CACERT_BADFILE`).
        public static let badCACertificateFile = Code(rawValue: 77)

        // PromiseCurl's own checks.

        /// The request was refused before anything was sent: a bad URL, a header with CR, LF
        /// or NUL, a scheme the request does not allow, a body file that cannot be read.
        public static let invalidRequest = Code(rawValue: 1000)
        /// ``CurlResponse/validate()`` refused a status outside 200–299; the error carries the
        /// response.
        public static let badStatus = Code(rawValue: 1001)
        /// The response body grew past the request's maximum body size.
        public static let responseTooLarge = Code(rawValue: 1002)
        /// The response headers grew past the maximum header size.
        public static let headersTooLarge = Code(rawValue: 1003)
        /// The client was shut down before or while the request ran.
        public static let shutdown = Code(rawValue: 1004)
        /// ``invalidRequest`` by the name every product uses for arguments it cannot work with
        /// (`PromiseError.Code.invalidArgument`, `SQLiteError.Code.invalidArgument`); equal to it.
        public static let invalidArgument = invalidRequest
        /// A download's file could not be created, written or moved into place.
        public static let fileError = Code(rawValue: 1005)
        /// libcurl itself failed (no memory, a handle that could not be made).
        public static let internalError = Code(rawValue: 1006)

        private static let names: [Int: String] = [
            1: "unsupportedProtocol", 3: "malformedURL", 6: "couldNotResolveHost", 7: "couldNotConnect",
            8: "weirdServerReply", 16: "http2", 18: "partialFile", 23: "writeError", 26: "readError",
            28: "operationTimedOut", 35: "tlsConnectError", 47: "tooManyRedirects", 52: "gotNothing",
            55: "sendError", 56: "receiveError", 60: "peerFailedVerification", 61: "badContentEncoding",
            77: "badCACertificateFile",
            1000: "invalidRequest", 1001: "badStatus", 1002: "responseTooLarge", 1003: "headersTooLarge",
            1004: "shutdown", 1005: "fileError", 1006: "internalError",
        ]

        /// The code's Swift name (`couldNotConnect`), or `code N` for one without a name here.
        public var name: String { Self.names[rawValue] ?? "code \(rawValue)" }

        /// The same as ``name``.
        public var description: String { name }

        /// Matches a ``CurlError`` against this code (`case CurlError.Code.badStatus:`).
        ///
        /// - Parameters:
        ///   - code: The code to look for.
        ///   - error: Any error.
        /// - Returns: Whether `error` is a ``CurlError`` with that code.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? CurlError)?.code == code
        }
    }
}
