/// The attributes of a file, as `stat(2)` reports them.
public struct FSFileInfo: Sendable, Hashable {
    /// Size in bytes.
    public var size: Int64
    /// What kind of file it is.
    public var kind: FSFileKind
    /// Permission bits, including set-user-ID, set-group-ID and sticky (`mode & 0o7777`).
    public var permissions: FSPermissions
    /// Last change of the contents.
    public var modificationTime: FSFileTime
    /// Last access (as the mount options let the kernel record it).
    public var accessTime: FSFileTime
    /// Last change of the contents or the attributes.
    public var statusChangeTime: FSFileTime
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
        size: Int64, kind: FSFileKind, permissions: FSPermissions, modificationTime: FSFileTime, accessTime: FSFileTime,
        statusChangeTime: FSFileTime, inode: UInt64, device: UInt64, linkCount: UInt64, ownerID: UInt32, groupID: UInt32
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
