/// What kind of file a path names.
public enum FSFileKind: Sendable, Hashable {
    /// A regular file.
    case regular
    /// A directory.
    case directory
    /// A symbolic link (seen by ``PromiseFileSystem/lstat(_:)-(String)``, never by ``PromiseFileSystem/stat(_:)-(String)``).
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
