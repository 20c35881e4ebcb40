/// The error of every PromiseFS operation: what failed, on which path, and why.
///
/// ```swift
/// do {
///     _ = try await fs.readFile("/etc/shadow").get()
/// } catch let error as FSError where error.code == .permissionDenied {
///     print(error)   // permission denied opening /etc/shadow for reading
/// }
/// ```
///
/// Match a code directly in a `catch` clause with ``Code-swift.struct/~=(_:_:)``:
/// `catch FSError.Code.noSuchFileOrDirectory { … }`.
public struct FSError: PromiseLibraryError {
    /// What went wrong: an `errno` value with a Swift name, or a condition PromiseFS detects.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The `errno` value, or a negative number for conditions PromiseFS detects itself.
        public let rawValue: Int32

        /// Creates a code from an `errno` value (or one of PromiseFS's negative codes).
        ///
        /// - Parameter rawValue: The value.
        public init(rawValue: Int32) {
            self.rawValue = rawValue
        }

        /// `ENOENT`.
        public static let noSuchFileOrDirectory = Code(rawValue: 2)
        /// `EPERM`.
        public static let notPermitted = Code(rawValue: 1)
        /// `EIO`.
        public static let ioError = Code(rawValue: 5)
        /// `EBADF`.
        public static let badFileDescriptor = Code(rawValue: 9)
        /// `EACCES`.
        public static let permissionDenied = Code(rawValue: 13)
        /// `EEXIST`.
        public static let fileExists = Code(rawValue: 17)
        /// `EXDEV`.
        public static let crossDeviceLink = Code(rawValue: 18)
        /// `ENOTDIR`.
        public static let notADirectory = Code(rawValue: 20)
        /// `EISDIR`.
        public static let isADirectory = Code(rawValue: 21)
        /// `EINVAL`.
        public static let invalidArgument = Code(rawValue: 22)
        /// `ENFILE`.
        public static let tooManyOpenFilesInSystem = Code(rawValue: 23)
        /// `EMFILE`.
        public static let tooManyOpenFiles = Code(rawValue: 24)
        /// `EFBIG`.
        public static let fileTooLarge = Code(rawValue: 27)
        /// `ENOSPC`.
        public static let noSpaceLeft = Code(rawValue: 28)
        /// `EROFS`.
        public static let readOnlyFileSystem = Code(rawValue: 30)
        /// `ENAMETOOLONG`.
        public static let nameTooLong = Code(rawValue: 36)
        /// `ENOTEMPTY`.
        public static let directoryNotEmpty = Code(rawValue: 39)
        /// `ELOOP`.
        public static let tooManySymbolicLinks = Code(rawValue: 40)
        /// `EDQUOT`.
        public static let diskQuotaExceeded = Code(rawValue: 122)

        /// The file is larger than the size cap the read was given.
        public static let tooLarge = Code(rawValue: -1)
        /// The file's bytes are not valid UTF-8.
        public static let invalidUTF8 = Code(rawValue: -2)
        /// The I/O pool was shut down, or its queue is full.
        public static let poolUnavailable = Code(rawValue: -3)
        /// The file handle was closed.
        public static let closed = Code(rawValue: -4)
        /// ``poolUnavailable`` by the name every product uses for "its owner was shut down"
        /// (`CurlError.Code.shutdown`, `UVError.Code.shutdown`); equal to it, so it also
        /// matches a full queue: the ``FSError/activity`` says which.
        public static let shutdown = poolUnavailable

        /// A short phrase, such as `permission denied`.
        public var description: String {
            if let phrase = Self.phrases[rawValue] { return phrase }
            return rawValue >= 0 ? "errno \(rawValue)" : "error \(rawValue)"
        }

        private static let phrases: [Int32: String] = [
            1: "operation not permitted", 2: "no such file or directory", 5: "input/output error",
            6: "no such device or address",
            9: "bad file descriptor", 13: "permission denied", 17: "file exists",
            18: "cross-device link", 20: "not a directory", 21: "is a directory",
            22: "invalid argument", 23: "too many open files in the system",
            24: "too many open files", 27: "file too large", 28: "no space left on device",
            30: "read-only file system", 36: "file name too long", 39: "directory not empty",
            40: "too many levels of symbolic links", 122: "disk quota exceeded",
            -1: "file larger than the size cap", -2: "invalid UTF-8",
            -3: "I/O pool unavailable", -4: "file handle closed",
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
    }

    /// The sentence a person can act on: what went wrong, then what was being done, such as
    /// `permission denied opening /etc/shadow for reading`.
    public var message: String { "\(code) \(activity)" }

    /// The ``message``.
    public var description: String { message }
}
