/// What kind of file a path names.
public enum FileKind: Sendable, Hashable {
    /// A regular file.
    case regular
    /// A directory.
    case directory
    /// A symbolic link (seen by ``FileSystem/lstat(_:)-(String)``, never by ``FileSystem/stat(_:)-(String)``).
    case symbolicLink
    /// A character device, such as `/dev/null`.
    case characterDevice
    /// A block device.
    case blockDevice
    /// A named pipe.
    case fifo
    /// A Unix domain socket.
    case socket
    /// Something this library does not know.
    case unknown
}

/// A point in time as the file system records it: seconds and nanoseconds since 1970-01-01 UTC.
public struct FileTime: Sendable, Hashable, Comparable {
    /// Whole seconds since the epoch.
    public var seconds: Int64
    /// Nanoseconds past `seconds` (0 ..< 1 000 000 000).
    public var nanoseconds: Int64

    /// Creates a time.
    ///
    /// - Parameters:
    ///   - seconds: Whole seconds since the epoch.
    ///   - nanoseconds: Nanoseconds past them.
    public init(seconds: Int64, nanoseconds: Int64) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    /// Orders times chronologically.
    public static func < (lhs: FileTime, rhs: FileTime) -> Bool {
        (lhs.seconds, lhs.nanoseconds) < (rhs.seconds, rhs.nanoseconds)
    }
}

/// The attributes of a file, as `stat(2)` reports them.
public struct FileInfo: Sendable, Hashable {
    /// Size in bytes.
    public var size: Int64
    /// What kind of file it is.
    public var kind: FileKind
    /// Permission bits, including set-user-ID, set-group-ID and sticky (`mode & 0o7777`).
    public var permissions: UInt32
    /// Last change of the contents.
    public var modificationTime: FileTime
    /// Last access (as the mount options let the kernel record it).
    public var accessTime: FileTime
    /// Last change of the contents or the attributes.
    public var statusChangeTime: FileTime
    /// The inode number.
    public var inode: UInt64
    /// The device holding the file.
    public var device: UInt64
    /// How many hard links name the file.
    public var linkCount: UInt64
    /// The owner's user ID.
    public var ownerID: UInt32
    /// The owner's group ID.
    public var groupID: UInt32

    /// Creates attributes (mostly for tests; PromiseFS fills them from `stat(2)`).
    ///
    /// - Parameters: See the properties of the same names.
    public init(
        size: Int64, kind: FileKind, permissions: UInt32, modificationTime: FileTime, accessTime: FileTime,
        statusChangeTime: FileTime, inode: UInt64, device: UInt64, linkCount: UInt64, ownerID: UInt32, groupID: UInt32
    ) {
        self.size = size
        self.kind = kind
        self.permissions = permissions
        self.modificationTime = modificationTime
        self.accessTime = accessTime
        self.statusChangeTime = statusChangeTime
        self.inode = inode
        self.device = device
        self.linkCount = linkCount
        self.ownerID = ownerID
        self.groupID = groupID
    }
}

/// One entry of a directory listing.
public struct DirectoryEntry: Sendable, Hashable {
    /// The entry's path relative to the listed directory (`sub/file.txt` in a recursive
    /// listing), byte for byte: `listed.appending(entry.path)` opens the entry even when its
    /// name is not UTF-8.
    public var path: FSPath
    /// What kind of file it is. Symbolic links are reported as links, never followed.
    public var kind: FileKind

    /// The entry's path relative to the listed directory, for display: ``FSPath/description``
    /// of ``path``, so a byte that is not UTF-8 shows as `\xFF`. Such a string does not name
    /// the file; open entries through ``path``.
    public var relativePath: String {
        get { path.description }
        set { path = FSPath(newValue) }
    }

    /// Creates an entry.
    ///
    /// - Parameters:
    ///   - relativePath: The path relative to the listed directory.
    ///   - kind: The kind of file.
    public init(relativePath: String, kind: FileKind) {
        self.init(path: FSPath(relativePath), kind: kind)
    }

    /// Creates an entry from a byte-exact path.
    ///
    /// - Parameters:
    ///   - path: The path relative to the listed directory.
    ///   - kind: The kind of file.
    public init(path: FSPath, kind: FileKind) {
        self.path = path
        self.kind = kind
    }
}
