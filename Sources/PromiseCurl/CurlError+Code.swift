internal import PromiseSystem

extension CurlError {
    /// What went wrong: a libcurl `CURLcode`, or one of PromiseCurl's own checks.
    ///
    /// A struct, not an enum, so new codes can be added without breaking anyone's `switch`;
    /// compare with `==` or match with `~=`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Own: String, Hashable, Sendable, CaseIterable {
            case invalidRequest, badStatus, responseTooLarge, headersTooLarge, shutdown, fileError, internalError
            case invalidArgument
        }

        private let value: WrappedErrorCode<Own>

        private init(_ own: Own) { value = .own(own) }

        /// Wraps a libcurl `CURLcode`.
        ///
        /// - Parameter curlCode: The value, such as 7 (`CURLE_COULDNT_CONNECT`).
        public init(curlCode: Int32) { value = .c(curlCode) }

        /// The `CURLcode`, or `nil` for one of PromiseCurl's own checks (``invalidRequest``,
        /// ``badStatus``, ``responseTooLarge``, ``headersTooLarge``, ``shutdown``,
        /// ``fileError``, ``internalError``, ``invalidArgument``).
        public var curlCode: Int32? { value.cCode }

        // libcurl's codes (the ones a caller is likely to meet).

        /// The URL's scheme is not one libcurl was allowed to use (`CURLE_UNSUPPORTED_PROTOCOL`).
        public static let unsupportedProtocol = Code(curlCode: 1)
        /// libcurl could not parse the URL (`CURLE_URL_MALFORMAT`).
        public static let malformedURL = Code(curlCode: 3)
        /// The host name did not resolve (`CURLE_COULDNT_RESOLVE_HOST`).
        public static let couldNotResolveHost = Code(curlCode: 6)
        /// The connection was refused or could not be made (`CURLE_COULDNT_CONNECT`).
        public static let couldNotConnect = Code(curlCode: 7)
        /// The server sent something that is not HTTP (`CURLE_WEIRD_SERVER_REPLY`).
        public static let weirdServerReply = Code(curlCode: 8)
        /// An HTTP/2 framing or stream error (`CURLE_HTTP2`).
        public static let http2 = Code(curlCode: 16)
        /// The body ended before its announced length (`CURLE_PARTIAL_FILE`).
        public static let partialFile = Code(curlCode: 18)
        /// Writing the received data failed (`CURLE_WRITE_ERROR`).
        public static let writeError = Code(curlCode: 23)
        /// Reading the request body failed (`CURLE_READ_ERROR`).
        public static let readError = Code(curlCode: 26)
        /// The connect timeout or the request's total timeout ran out (`CURLE_OPERATION_TIMEDOUT`).
        public static let operationTimedOut = Code(curlCode: 28)
        /// A TLS handshake failed (`CURLE_SSL_CONNECT_ERROR`).
        public static let tlsConnectError = Code(curlCode: 35)
        /// Redirects went past the limit (`CURLE_TOO_MANY_REDIRECTS`).
        public static let tooManyRedirects = Code(curlCode: 47)
        /// The server closed the connection without sending anything (`CURLE_GOT_NOTHING`).
        public static let gotNothing = Code(curlCode: 52)
        /// Sending failed, e.g. the connection was reset (`CURLE_SEND_ERROR`).
        public static let sendError = Code(curlCode: 55)
        /// Receiving failed, e.g. the connection was reset mid-body (`CURLE_RECV_ERROR`).
        public static let receiveError = Code(curlCode: 56)
        /// The server's certificate or name could not be verified (`CURLE_PEER_FAILED_VERIFICATION`).
        public static let peerFailedVerification = Code(curlCode: 60)
        /// The content encoding (gzip, deflate) was broken (`CURLE_BAD_CONTENT_ENCODING`).
        public static let badContentEncoding = Code(curlCode: 61)
        /// The CA certificate file could not be read (`CURLE_SSL_CACERT_BADFILE`).
        public static let badCACertificateFile = Code(curlCode: 77)
        /// A SOCKS5 or HTTPS proxy refused the handshake: wrong credentials, or a target it
        /// would not connect to (`CURLE_PROXY`).
        public static let proxyHandshakeFailed = Code(curlCode: 97)

        // PromiseCurl's own checks.

        /// The request was refused before anything was sent: a bad URL, a header with CR, LF
        /// or NUL, a scheme the request does not allow, a body file that cannot be read.
        public static let invalidRequest = Code(.invalidRequest)
        /// ``CurlResponse/validate()`` refused a status outside 200–299; the error carries the
        /// response.
        public static let badStatus = Code(.badStatus)
        /// The response body grew past the request's maximum body size.
        public static let responseTooLarge = Code(.responseTooLarge)
        /// The response headers grew past the maximum header size.
        public static let headersTooLarge = Code(.headersTooLarge)
        /// The client was shut down before or while the request ran.
        public static let shutdown = Code(.shutdown)
        /// An argument the client cannot work with, refused before anything is sent: a body
        /// file or download path holding a NUL byte. The name every product gives this
        /// condition (`PromiseError.Code.invalidArgument`, `SQLiteError.Code.invalidArgument`,
        /// `FSError.Code.invalidArgument`, `UVError.Code.invalidArgument`).
        public static let invalidArgument = Code(.invalidArgument)
        /// A download's file could not be created, written or moved into place.
        public static let fileError = Code(.fileError)
        /// libcurl itself failed (no memory, a handle that could not be made).
        public static let internalError = Code(.internalError)

        private static let curlNames: [Int32: String] = [
            1: "unsupportedProtocol", 3: "malformedURL", 6: "couldNotResolveHost", 7: "couldNotConnect",
            8: "weirdServerReply", 16: "http2", 18: "partialFile", 23: "writeError", 26: "readError",
            28: "operationTimedOut", 35: "tlsConnectError", 47: "tooManyRedirects", 52: "gotNothing",
            55: "sendError", 56: "receiveError", 60: "peerFailedVerification", 61: "badContentEncoding",
            77: "badCACertificateFile", 97: "proxyHandshakeFailed",
        ]

        /// The code's name, as written after `CurlError.Code.` (`couldNotConnect`), or
        /// `CURLcode N` for a libcurl code without a constant here.
        public var name: String {
            switch value {
            case .own(let own): own.rawValue
            case .c(let code): Self.curlNames[code] ?? "CURLcode \(code)"
            }
        }

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

        /// Wraps a `CURLcode`, or one of the numbers from 1000 on that PromiseCurl's own codes
        /// had (1000 ``invalidRequest`` … 1006 ``internalError``, then 1007 ``invalidArgument``: the
        /// order declared).
        ///
        /// - Parameter rawValue: The value.
        @available(*, deprecated, renamed: "init(curlCode:)", message: "PromiseCurl's own codes are its static members")
        public init(rawValue: Int) {
            let ownIndex = rawValue - 1000
            if Own.allCases.indices.contains(ownIndex) {
                value = .own(Own.allCases[ownIndex])
            } else {
                value = .c(Int32(truncatingIfNeeded: rawValue))
            }
        }

        /// The `CURLcode`, or the number from 1000 on that PromiseCurl's own code had (see
        /// ``init(rawValue:)``).
        @available(*, deprecated, renamed: "curlCode", message: "curlCode is nil for PromiseCurl's own codes")
        public var rawValue: Int {
            switch value {
            case .c(let code): Int(code)
            case .own(let own): 1000 + Own.allCases.firstIndex(of: own)!
            }
        }
    }
}
