/// The error of every PromiseUV operation: a libuv error code with libuv's own name and
/// message, and the operation that failed.
///
/// ```swift
/// do {
///     try await loop.after(.seconds(1)).get()
/// } catch UVError.Code.loopClosed {
///     // the loop was shut down before the timer fired
/// }
/// ```
///
/// Match a code directly in a `catch` clause with ``Code-swift.struct/~=(_:_:)``.
public struct UVError: PromiseLibraryError {
    /// What went wrong: a libuv error code (negative, `UV_E…`) or a condition PromiseUV
    /// detects itself (positive).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The libuv error number (`UV_EBUSY` is -16 on Linux), or a positive PromiseUV code.
        public let rawValue: Int32

        /// Creates a code from a libuv error number or a PromiseUV code.
        ///
        /// - Parameter rawValue: The value.
        public init(rawValue: Int32) {
            self.rawValue = rawValue
        }

        /// The loop was shut down (or is shutting down) and refuses new work, or shutdown
        /// ended work that had not started.
        public static let loopClosed = Code(rawValue: 1)
        /// ``loopClosed`` by the name every product uses for "its owner was shut down"
        /// (`CurlError.Code.shutdown`, `SQLiteError.Code.shutdown`); equal to it.
        public static let shutdown = loopClosed

        /// `UV_EBUSY`: a resource is busy; `uv_loop_close` returns it while handles are open.
        public static let busy = Code(rawValue: -16)
        /// `UV_ECANCELED`: the operation was cancelled.
        public static let canceled = Code(rawValue: -125)
        /// `UV_EINVAL`: an argument was invalid.
        public static let invalidArgument = Code(rawValue: -22)
        /// `UV_ENOMEM`: out of memory.
        public static let outOfMemory = Code(rawValue: -12)
        /// `UV_EMFILE`: the process has too many open files (a loop needs descriptors).
        public static let tooManyOpenFiles = Code(rawValue: -24)
        /// `UV_EAGAIN`: a resource is temporarily unavailable (no thread could be started).
        public static let tryAgain = Code(rawValue: -11)

        /// libuv's name for the code (`uv_err_name`), such as `EBUSY`, or PromiseUV's name
        /// for its own codes, such as `loop closed`.
        public var name: String {
            rawValue > 0 ? ownName : libuvName(rawValue)
        }

        /// A short phrase: libuv's message (`uv_strerror`), such as
        /// `resource busy or locked`, or PromiseUV's for its own codes.
        public var message: String {
            rawValue > 0 ? ownMessage : libuvMessage(rawValue)
        }

        /// The name, such as `EBUSY`.
        public var description: String { name }

        private var ownName: String {
            rawValue == 1 ? "loop closed" : "PromiseUV error \(rawValue)"
        }

        private var ownMessage: String {
            rawValue == 1 ? "the UVLoop is shut down" : "unknown PromiseUV error"
        }

        /// Matches an error that is a ``UVError`` with this code, so that
        /// `catch UVError.Code.loopClosed` works.
        ///
        /// - Parameters:
        ///   - code: The code to match.
        ///   - error: The error thrown.
        /// - Returns: Whether `error` is a ``UVError`` with `code`.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? UVError)?.code == code
        }
    }

    /// What went wrong.
    public let code: Code
    /// The operation that failed: a libuv function such as `uv_loop_init`, or a ``UVLoop``
    /// method such as `after`.
    public let operation: String
    /// What the program can do about it, or what was going on; may be empty.
    public let detail: String
    /// The error that caused this one, if any.
    public var underlying: (any Error)? { cause.error }
    private let cause: UnderlyingCause

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - operation: The operation that failed.
    ///   - detail: What to do about it, or what was going on.
    ///   - underlying: The error that caused this one, if any.
    public init(_ code: Code, operation: String, detail: String = "", underlying: (any Error)? = nil) {
        self.code = code
        self.operation = operation
        self.detail = detail
        self.cause = UnderlyingCause(underlying)
    }

    /// libuv's name for the code (`uv_err_name`), such as `EBUSY`.
    public var name: String { code.name }

    /// The sentence a person can act on:
    /// `uv_loop_close failed: EBUSY (resource busy or locked) — 1 handle still open`. libuv's
    /// short phrase alone is ``Code-swift.struct/message``.
    public var message: String {
        let head = "\(operation) failed: \(name) (\(code.message))"
        return detail.isEmpty ? head : "\(head) — \(detail)"
    }

    /// The ``message``.
    public var description: String { message }
}
