internal import PromiseSystem

/// The error of every PromiseFS operation: what failed, on which path, and why.
///
/// ```swift
/// do {
///     _ = try await fs.readFile("/etc/shadow").get()
/// } catch let error as FSError where error.code == .permissionDenied {
///     print(error.message)   // permission denied opening /etc/shadow for reading
/// }
/// ```
///
/// Match a code directly in a `catch` clause with ``Code-swift.struct/~=(_:_:)``:
/// `catch FSError.Code.noSuchFileOrDirectory { … }`.
public struct FSError: PromiseLibraryError {
    /// What went wrong: an `errno` value, or a condition PromiseFS detects itself.
    ///
    /// A struct, so codes can be added without breaking a `switch`; compare with `==` or
    /// match with `~=`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Own: String, Hashable, Sendable {
            case tooLarge, invalidUTF8, poolUnavailable, closed
        }

        private let value: WrappedErrorCode<Own>

        private init(_ own: Own) { value = .own(own) }

        /// Wraps an `errno` value.
        ///
        /// - Parameter errno: The value, such as `EACCES`.
        public init(errno: Int32) { value = .c(errno) }

        /// The `errno` value, or `nil` for one of PromiseFS's own conditions (``tooLarge``,
        /// ``invalidUTF8``, ``poolUnavailable``, ``closed``).
        public var errno: Int32? { value.cCode }

        /// `ENOENT`.
        public static let noSuchFileOrDirectory = Code(errno: 2)
        /// `EPERM`.
        public static let notPermitted = Code(errno: 1)
        /// `EIO`.
        public static let ioError = Code(errno: 5)
        /// `ENXIO`: for example a FIFO opened for writing that no process has open for reading.
        public static let noSuchDeviceOrAddress = Code(errno: 6)
        /// `EBADF`.
        public static let badFileDescriptor = Code(errno: 9)
        /// `EACCES`.
        public static let permissionDenied = Code(errno: 13)
        /// `EEXIST`.
        public static let fileExists = Code(errno: 17)
        /// `EXDEV`.
        public static let crossDeviceLink = Code(errno: 18)
        /// `ENOTDIR`.
        public static let notADirectory = Code(errno: 20)
        /// `EISDIR`.
        public static let isADirectory = Code(errno: 21)
        /// `EINVAL`.
        public static let invalidArgument = Code(errno: 22)
        /// `ENFILE`.
        public static let tooManyOpenFilesInSystem = Code(errno: 23)
        /// `EMFILE`.
        public static let tooManyOpenFiles = Code(errno: 24)
        /// `EFBIG`.
        public static let fileTooLarge = Code(errno: 27)
        /// `ENOSPC`.
        public static let noSpaceLeft = Code(errno: 28)
        /// `EROFS`.
        public static let readOnlyFileSystem = Code(errno: 30)
        /// `ENAMETOOLONG`.
        public static let nameTooLong = Code(errno: 36)
        /// `ENOTEMPTY`.
        public static let directoryNotEmpty = Code(errno: 39)
        /// `ELOOP`.
        public static let tooManySymbolicLinks = Code(errno: 40)
        /// `EDQUOT`.
        public static let diskQuotaExceeded = Code(errno: 122)

        /// The file is larger than the size cap the read was given.
        public static let tooLarge = Code(.tooLarge)
        /// The file's bytes are not valid UTF-8.
        public static let invalidUTF8 = Code(.invalidUTF8)
        /// The I/O pool was shut down, or its queue is full.
        public static let poolUnavailable = Code(.poolUnavailable)
        /// The file handle was closed.
        public static let closed = Code(.closed)
        /// Another name for ``poolUnavailable``, which is the name an error prints.
        @available(*, deprecated, renamed: "poolUnavailable", message: "one name per code: an unavailable pool's errors print poolUnavailable")
        public static let shutdown = poolUnavailable

        /// The code's name, as written after `FSError.Code.` (`permissionDenied`), or
        /// `errno N` for an `errno` value without a constant here.
        public var name: String {
            switch value {
            case .own(let own): own.rawValue
            case .c(let errno): Self.errnoNames[errno]?.name ?? "errno \(errno)"
            }
        }

        /// The same as ``name``.
        public var description: String { name }

        /// A short phrase for messages, such as `permission denied`.
        public var phrase: String {
            switch value {
            case .own(.tooLarge): "file larger than the size cap"
            case .own(.invalidUTF8): "invalid UTF-8"
            case .own(.poolUnavailable): "I/O pool unavailable"
            case .own(.closed): "file handle closed"
            case .c(let errno): Self.errnoNames[errno]?.phrase ?? ErrnoText.sentence(errno)
            }
        }

        private static let errnoNames: [Int32: (name: String, phrase: String)] = [
            1: ("notPermitted", "operation not permitted"), 2: ("noSuchFileOrDirectory", "no such file or directory"),
            5: ("ioError", "input/output error"), 6: ("noSuchDeviceOrAddress", "no such device or address"), 9: ("badFileDescriptor", "bad file descriptor"),
            13: ("permissionDenied", "permission denied"), 17: ("fileExists", "file exists"),
            18: ("crossDeviceLink", "cross-device link"), 20: ("notADirectory", "not a directory"),
            21: ("isADirectory", "is a directory"), 22: ("invalidArgument", "invalid argument"),
            23: ("tooManyOpenFilesInSystem", "too many open files in the system"),
            24: ("tooManyOpenFiles", "too many open files"), 27: ("fileTooLarge", "file too large"),
            28: ("noSpaceLeft", "no space left on device"), 30: ("readOnlyFileSystem", "read-only file system"),
            36: ("nameTooLong", "file name too long"), 39: ("directoryNotEmpty", "directory not empty"),
            40: ("tooManySymbolicLinks", "too many levels of symbolic links"),
            122: ("diskQuotaExceeded", "disk quota exceeded"),
        ]

        /// Matches an error that is an ``FSError`` with this code, so that
        /// `catch FSError.Code.noSuchFileOrDirectory` works.
        ///
        /// - Parameters:
        ///   - code: The code to match.
        ///   - error: The error thrown.
        /// - Returns: Whether `error` is an ``FSError`` with `code`.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? FSError)?.code == code
        }

        /// Wraps an `errno` value, or one of the negative numbers PromiseFS's own codes had
        /// (-1 ``tooLarge``, -2 ``invalidUTF8``, -3 ``poolUnavailable``, -4 ``closed``).
        ///
        /// - Parameter rawValue: The value.
        @available(*, deprecated, renamed: "init(errno:)", message: "PromiseFS's own codes are its static members")
        public init(rawValue: Int32) {
            let own: [Int32: Own] = [-1: .tooLarge, -2: .invalidUTF8, -3: .poolUnavailable, -4: .closed]
            value = own[rawValue].map { .own($0) } ?? .c(rawValue)
        }

        /// The `errno` value, or the negative number PromiseFS's own codes had (see
        /// ``init(rawValue:)``).
        @available(*, deprecated, renamed: "errno", message: "errno is nil for PromiseFS's own codes")
        public var rawValue: Int32 {
            switch value {
            case .c(let errno): errno
            case .own(.tooLarge): -1
            case .own(.invalidUTF8): -2
            case .own(.poolUnavailable): -3
            case .own(.closed): -4
            }
        }
    }

    /// What went wrong.
    public let code: Code
    /// The operation that failed, such as `open` or `rename`.
    public let operation: String
    /// The path the operation was working on.
    public let path: String
    /// What was being done, with the path, such as `opening /etc/shadow for reading`.
    public let activity: String
    /// The error that caused this one, if any.
    public var underlying: (any Error)? { cause.error }
    private let cause: UnderlyingCause
    private let phrase: String?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - operation: The operation, such as `open`.
    ///   - path: The path it was working on.
    ///   - activity: What was being done, with the path; defaults to "`operation` `path`".
    ///   - underlying: The error that caused this one, if any.
    public init(_ code: Code, operation: String, path: String, activity: String? = nil, underlying: (any Error)? = nil) {
        self.code = code
        self.operation = operation
        self.path = path
        self.activity = activity ?? "\(operation) \(path)"
        self.cause = UnderlyingCause(underlying)
        self.phrase = nil
    }

    /// An error whose ``message`` opens with `phrase` instead of the code's phrase, for a
    /// code whose general phrase would mislead (a line over `lines()`'s limit is not a file
    /// over a size cap).
    init(_ code: Code, phrase: String, operation: String, path: String, activity: String) {
        self.code = code
        self.operation = operation
        self.path = path
        self.activity = activity
        self.cause = UnderlyingCause(nil)
        self.phrase = phrase
    }

    /// The sentence a person can act on: what went wrong (the code's
    /// ``Code-swift.struct/phrase``, or a more precise one), then what was being done, such as
    /// `permission denied opening /etc/shadow for reading`.
    public var message: String { "\(phrase ?? code.phrase) \(activity)" }

    /// One line in the format every product's error shares:
    /// `FSError.permissionDenied (errno 13): permission denied opening /etc/shadow for reading`.
    public var description: String { libraryErrorDescription(cCode: code.errno.map { "errno \($0)" }) }
}
