/// How ``PromiseFileSystem/open(_:options:)-(String,_)`` opens a file.
public struct FSOpenOptions: Sendable, Hashable {
    /// Allow reading.
    public var read: Bool
    /// Allow writing.
    public var write: Bool
    /// Create the file if it does not exist.
    public var create: Bool
    /// Empty the file when opening it.
    public var truncate: Bool
    /// Every sequential write goes to the end of the file.
    public var append: Bool
    /// With `create`: fail with ``FSError/Code-swift.struct/fileExists`` if the file exists.
    public var exclusive: Bool
    /// Permission bits for a created file (the process umask applies).
    public var mode: FSPermissions

    /// Creates options.
    ///
    /// - Parameters: See the properties of the same names; `mode` defaults to 0644.
    public init(
        read: Bool = true, write: Bool = false, create: Bool = false, truncate: Bool = false,
        append: Bool = false, exclusive: Bool = false, mode: FSPermissions = 0o644
    ) {
        self.read = read
        self.write = write
        self.create = create
        self.truncate = truncate
        self.append = append
        self.exclusive = exclusive
        self.mode = mode
    }

    /// Read an existing file.
    public static let read = FSOpenOptions()
    /// Read and write an existing file.
    public static let readWrite = FSOpenOptions(write: true)
    /// Write a file, creating it if needed and emptying it if not.
    public static let write = FSOpenOptions(read: false, write: true, create: true, truncate: true)
    /// Append to a file, creating it if needed.
    public static let append = FSOpenOptions(read: false, write: true, create: true, append: true)
}
