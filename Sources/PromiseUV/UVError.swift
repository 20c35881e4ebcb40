internal import PromiseSystem

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
    /// What went wrong: a libuv error code (`UV_EBUSY`), or a condition PromiseUV detects
    /// itself (``loopClosed``).
    ///
    /// A struct, so codes can be added without breaking a `switch`; compare with `==` or
    /// match with `~=`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Own: String, Hashable, Sendable {
            case loopClosed
            case watchLimitReached
            case outputLimitExceeded
            case processFailed
        }

        private let value: WrappedErrorCode<Own>

        private init(_ own: Own) { value = .own(own) }

        /// Wraps a libuv error code.
        ///
        /// - Parameter uvCode: The (negative) value, such as `UV_EBUSY` (-16 on Linux).
        public init(uvCode: Int32) { value = .c(uvCode) }

        /// The libuv error code, or `nil` for PromiseUV's own codes (``loopClosed``,
        /// ``watchLimitReached``).
        public var uvCode: Int32? { value.cCode }

        /// The loop was shut down (or is shutting down) and refuses new work, or shutdown
        /// ended work that had not started.
        public static let loopClosed = Code(.loopClosed)
        /// Another name for ``loopClosed``, which is the name an error prints.
        @available(*, deprecated, renamed: "loopClosed", message: "one name per code: a closed loop's errors print loopClosed")
        public static let shutdown = loopClosed
        /// A child process wrote more than its ``UVCommand/Output/capture(limit:)`` or a
        /// longer line than ``UVCommand/Output/lines(on:maxLength:_:)`` accepts; the child
        /// was stopped and reaped.
        public static let outputLimitExceeded = Code(.outputLimitExceeded)
        /// A child process did not exit with status 0 where success was required
        /// (``UVProcessResult/requireSuccess(_:)``, ``UVLoop/output(_:_:requireSuccess:)``).
        public static let processFailed = Code(.processFailed)

        /// This user's inotify watches are all taken (`fs.inotify.max_user_watches`), so a
        /// file watch could not start; libuv's own error, `UV_ENOSPC`, is the ``underlying``.
        public static let watchLimitReached = Code(.watchLimitReached)
        /// `UV_ENOENT`: no such file or directory (a path to watch is missing, or a watched
        /// directory went away; a program not found on `PATH`, a missing working directory:
        /// ``UVError/operation`` says which).
        public static let noSuchFileOrDirectory = Code(uvCode: -2)
        /// `UV_EACCES`: permission denied (a path that cannot be watched, a program that is
        /// not executable).
        public static let permissionDenied = Code(uvCode: -13)

        /// `UV_EBUSY`: a resource is busy; `uv_loop_close` returns it while handles are open.
        public static let busy = Code(uvCode: -16)
        /// `UV_ECANCELED`: the operation was cancelled.
        public static let canceled = Code(uvCode: -125)
        /// `UV_EINVAL`: an argument was invalid.
        public static let invalidArgument = Code(uvCode: -22)
        /// `UV_ENOMEM`: out of memory.
        public static let outOfMemory = Code(uvCode: -12)
        /// `UV_EMFILE`: the process has too many open files (a loop needs descriptors).
        public static let tooManyOpenFiles = Code(uvCode: -24)
        /// `UV_EAGAIN`: a resource is temporarily unavailable (no thread could be started).
        public static let tryAgain = Code(uvCode: -11)
        /// `UV_EISDIR`: a directory where a file was needed (a program path naming one).
        public static let isADirectory = Code(uvCode: -21)
        /// `UV_ENOTDIR`: not a directory (a working directory naming a file).
        public static let notADirectory = Code(uvCode: -20)
        /// `UV_EPIPE`: the other end of a pipe is closed (a child's standard input written
        /// through ``UVStandardInput`` after the child closed it, exited, or was reaped).
        public static let brokenPipe = Code(uvCode: -32)

        private static let constantNames: [Int32: String] = [
            -16: "busy", -125: "canceled", -22: "invalidArgument", -12: "outOfMemory", -24: "tooManyOpenFiles",
            -11: "tryAgain",
            -2: "noSuchFileOrDirectory", -13: "permissionDenied", -21: "isADirectory", -20: "notADirectory",
            -32: "brokenPipe",
        ]

        /// The code's name, as written after `UVError.Code.` (`busy`), or libuv's name
        /// (``libuvName``) for a libuv code without a constant here, such as `ENOENT`.
        public var name: String {
            switch value {
            case .own(let own): own.rawValue
            case .c(let code): Self.constantNames[code] ?? PromiseUV.libuvName(code)
            }
        }

        /// libuv's name for the code (`uv_err_name`), such as `EBUSY`, or `nil` for
        /// PromiseUV's own ``loopClosed``.
        public var libuvName: String? { uvCode.map(PromiseUV.libuvName) }

        /// A short phrase: libuv's message (`uv_strerror`), such as
        /// `resource busy or locked`, or PromiseUV's for its own codes.
        public var message: String {
            switch value {
            case .own(.loopClosed): "the UVLoop is shut down"
            case .own(.watchLimitReached): "the inotify watch limit is reached"
            case .own(.outputLimitExceeded): "a child process wrote more output than its limit"
            case .own(.processFailed): "a child process did not exit with status 0"
            case .c(let code): libuvMessage(code)
            }
        }

        /// The same as ``name``.
        public var description: String { name }

        /// Wraps a libuv error code, or PromiseUV's own ``loopClosed`` for 1, the number it had.
        ///
        /// - Parameter rawValue: The value.
        @available(*, deprecated, renamed: "init(uvCode:)", message: "PromiseUV's own code is loopClosed")
        public init(rawValue: Int32) {
            value = rawValue == 1 ? .own(.loopClosed) : .c(rawValue)
        }

        /// The libuv error code, or 1 for ``loopClosed`` (see ``init(rawValue:)``).
        @available(*, deprecated, renamed: "uvCode", message: "uvCode is nil for PromiseUV's own code")
        public var rawValue: Int32 { uvCode ?? 1 }

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
    /// What a child wrote before its output passed its limit, and how it ended once stopped:
    /// set on ``Code-swift.struct/outputLimitExceeded`` from ``UVLoop/spawn(_:)``, `nil`
    /// otherwise. A captured output holds exactly its limit's bytes, the first ones written.
    public private(set) var partialResult: UVProcessResult?

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

    /// This error with `result` as its ``partialResult``.
    func carrying(_ result: UVProcessResult) -> UVError {
        var error = self
        error.partialResult = result
        return error
    }

    /// libuv's name for the code (`uv_err_name`), such as `EBUSY`, or the code's
    /// ``Code-swift.struct/name`` for PromiseUV's own (`loopClosed`).
    public var name: String { code.libuvName ?? code.name }

    /// The sentence a person can act on:
    /// `uv_loop_close failed: EBUSY (resource busy or locked) — 1 handle still open`. libuv's
    /// short phrase alone is ``Code-swift.struct/message``.
    public var message: String {
        let head = "\(operation) failed: \(name) (\(code.message))"
        return detail.isEmpty ? head : "\(head) — \(detail)"
    }

    /// One line in the format every product's error shares:
    /// `UVError.busy (libuv -16): uv_loop_close failed: EBUSY (resource busy or locked) — 1 handle still open`.
    public var description: String { libraryErrorDescription(cCode: code.uvCode.map { "libuv \($0)" }) }
}
