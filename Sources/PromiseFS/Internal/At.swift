internal import Glibc
internal import PromiseSystem

/// System calls on byte paths (``FSPath``), relative to a directory descriptor (``cwd`` for
/// an ordinary path). Each never follows a final symbolic link unless it says so; `path` is
/// the whole path, for error messages.
enum At {
    static let cwd = AT_FDCWD
    static let directoryFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW
    /// Read-only and non-blocking, so that a FIFO put where a file was cannot stall a copy.
    static let readFileFlags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK
    static let createFileFlags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW

    static func failure(_ operation: String, _ path: FSPath, _ activity: String) -> FSError {
        FSError(FSError.Code(errno: errno), operation: operation, path: path.description, activity: activity)
    }

    static func open(
        _ dirFD: Int32, _ name: FSPath, _ flags: Int32, mode: UInt32 = 0, path: FSPath, activity: String
    ) throws(FSError) -> Int32 {
        var fd = name.withCString { name in SystemCall.retryingInterrupts { Glibc.openat(dirFD, name, flags | O_CLOEXEC, mode_t(mode)) } }
        if fd < 0, errno == EWOULDBLOCK, flags & O_NONBLOCK != 0 {
            // A lease another process holds (only a regular file has one): a blocking open
            // waits for its holder to give it up.
            fd = name.withCString { name in
                SystemCall.retryingInterrupts { Glibc.openat(dirFD, name, (flags & ~O_NONBLOCK) | O_CLOEXEC, mode_t(mode)) }
            }
        }
        guard fd >= 0 else { throw failure("open", path, activity) }
        return fd
    }

    /// Opens the directory `name` in `dirFD`, refusing a symbolic link.
    static func openDirectory(_ dirFD: Int32, _ name: FSPath, path: FSPath) throws(FSError) -> Int32 {
        let fd = name.withCString { name in SystemCall.retryingInterrupts { Glibc.openat(dirFD, name, directoryFlags | O_CLOEXEC, 0) } }
        guard fd >= 0 else {
            let link = errno == ELOOP || errno == ENOTDIR
            throw failure(
                "open", path,
                link
                    ? "opening the directory \(path) (it is not a directory, or a symbolic link, which is never followed)"
                    : "opening the directory \(path)")
        }
        return fd
    }

    /// The attributes of `name` in `dirFD`, not following a symbolic link unless `followingLinks`.
    static func stat(_ dirFD: Int32, _ name: FSPath, followingLinks: Bool = false, path: FSPath) throws(FSError) -> FSFileInfo {
        var info = Glibc.stat()
        let flags = followingLinks ? 0 : AT_SYMLINK_NOFOLLOW
        let status = name.withCString { name in SystemCall.retryingInterrupts { Glibc.fstatat(dirFD, name, &info, flags) } }
        guard status == 0 else { throw failure(followingLinks ? "stat" : "lstat", path, "reading the attributes of \(path)") }
        return FSFileInfo(info)
    }

    /// `stat` that reports a missing path as `nil` instead of an error.
    static func statIfPresent(_ dirFD: Int32, _ name: FSPath, path: FSPath) throws(FSError) -> FSFileInfo? {
        do {
            return try stat(dirFD, name, path: path)
        } catch  where error.code == .noSuchFileOrDirectory {
            return nil
        }
    }

    static func fstat(_ fd: Int32, path: FSPath) throws(FSError) -> FSFileInfo {
        var info = Glibc.stat()
        guard SystemCall.retryingInterrupts({ Glibc.fstat(fd, &info) }) == 0 else {
            throw failure("fstat", path, "reading the attributes of \(path)")
        }
        return FSFileInfo(info)
    }

    static func fchmod(_ fd: Int32, _ mode: UInt32, path: FSPath) throws(FSError) {
        guard SystemCall.retryingInterrupts({ Glibc.fchmod(fd, mode_t(mode)) }) == 0 else {
            throw failure("chmod", path, "changing the permissions of \(path)")
        }
    }

    static func mkdir(_ dirFD: Int32, _ name: FSPath, _ mode: UInt32, path: FSPath) throws(FSError) {
        let status = name.withCString { name in SystemCall.retryingInterrupts { Glibc.mkdirat(dirFD, name, mode_t(mode)) } }
        guard status == 0 else { throw failure("mkdir", path, "creating the directory \(path)") }
    }

    /// Removes `name` in `dirFD` (a directory when `directory` is true).
    static func unlink(_ dirFD: Int32, _ name: FSPath, directory: Bool, path: FSPath) throws(FSError) {
        let status = name.withCString { name in SystemCall.retryingInterrupts { Glibc.unlinkat(dirFD, name, directory ? AT_REMOVEDIR : 0) } }
        guard status == 0 else {
            throw failure(directory ? "rmdir" : "unlink", path, directory ? "removing the directory \(path)" : "removing \(path)")
        }
    }

    static func symlink(target: FSPath, _ dirFD: Int32, _ name: FSPath, path: FSPath) throws(FSError) {
        let status = target.withCString { target in
            name.withCString { name in SystemCall.retryingInterrupts { Glibc.symlinkat(target, dirFD, name) } }
        }
        guard status == 0 else { throw failure("symlink", path, "creating the symbolic link \(path) to \(target)") }
    }

    /// The target of the symbolic link `name` in `dirFD`, byte for byte.
    static func readLink(_ dirFD: Int32, _ name: FSPath, path: FSPath) throws(FSError) -> FSPath {
        var capacity = 256
        while true {
            var buffer = [UInt8](repeating: 0, count: capacity)
            let n = name.withCString { name in
                SystemCall.retryingInterrupts {
                    buffer.withUnsafeMutableBufferPointer { raw in
                        raw.withMemoryRebound(to: CChar.self) { Glibc.readlinkat(dirFD, name, $0.baseAddress!, capacity) }
                    }
                }
            }
            guard n >= 0 else { throw failure("readlink", path, "reading the symbolic link \(path)") }
            if n < capacity { return FSPath(bytes: buffer[0..<n]) }
            capacity *= 4
        }
    }

    static func rename(_ fromDirFD: Int32, _ from: FSPath, _ toDirFD: Int32, _ to: FSPath, crossDeviceIsFine: Bool = false) throws(FSError) -> Bool {
        let status = from.withCString { from in
            to.withCString { to in SystemCall.retryingInterrupts { Glibc.renameat(fromDirFD, from, toDirFD, to) } }
        }
        if status == 0 { return true }
        if crossDeviceIsFine && errno == EXDEV { return false }
        throw failure("rename", from, "renaming \(from) to \(to)")
    }

    /// The entries of the directory open as `fd` (left open), without `.` and `..`, with
    /// their kinds where the file system reports them. Names are kept byte for byte.
    static func entries(ofDirectoryFD fd: Int32, path: FSPath) throws(FSError) -> [(name: FSPath, kind: FSFileKind?)] {
        let copy = Glibc.fcntl(fd, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { throw failure("dup", path, "listing \(path)") }
        guard let dir = Glibc.fdopendir(copy) else {
            let error = failure("opendir", path, "listing \(path)")
            Glibc.close(copy)
            throw error
        }
        defer { Glibc.closedir(dir) }
        Glibc.rewinddir(dir)
        var result: [(name: FSPath, kind: FSFileKind?)] = []
        while true {
            errno = 0
            guard let entry = Glibc.readdir(dir) else {
                if errno != 0 { throw failure("readdir", path, "listing \(path)") }
                return result
            }
            let name = withUnsafeBytes(of: &entry.pointee.d_name) { raw in
                FSPath(bytes: raw.prefix(while: { $0 != 0 }))
            }
            if name.bytes == [0x2E] || name.bytes == [0x2E, 0x2E] { continue }
            result.append((name, FSFileKind(directoryEntryType: entry.pointee.d_type)))
        }
    }
}

/// The calls whose path only names the file in messages, for an ``FSPath``.
extension Sys {
    static func fstat(_ fd: Int32, path: FSPath) throws(FSError) -> FSFileInfo {
        try fstat(fd, path: path.description)
    }

    static func fchmod(_ fd: Int32, _ mode: UInt32, path: FSPath) throws(FSError) {
        try fchmod(fd, mode, path: path.description)
    }

    static func fsync(_ fd: Int32, path: FSPath) throws(FSError) {
        try fsync(fd, path: path.description)
    }

    static func readToEnd(_ fd: Int32, path: FSPath, maxSize: Int, sizeHint: Int) throws(FSError) -> [UInt8] {
        try readToEnd(fd, path: path.description, maxSize: maxSize, sizeHint: sizeHint)
    }

    static func write(
        _ fd: Int32, _ bytes: some Collection<UInt8>, offset: Int64?, path: FSPath, activity: String? = nil
    ) throws(FSError) {
        try write(fd, bytes, offset: offset, path: path.description, activity: activity)
    }
}

/// The directories from a walk's root down to where it is, for a depth-first walk that
/// holds at most ``maxOpen`` descriptors however deep the tree is.
///
/// Each directory is opened relative to its parent's descriptor, never following a symbolic
/// link, so the walk stays inside the tree even when another process swaps a directory for
/// a link. Past ``maxOpen`` levels the shallowest descriptors are closed; going back up, a
/// closed parent is reopened as `..` of its child and must be the same directory (device
/// and inode) as before, or the walk stops with an error.
final class DirectoryStack {
    struct Level {
        let name: FSPath
        let path: FSPath
        let device: UInt64
        let inode: UInt64
        var fd: Int32
    }

    static let maxOpen = 8

    private var levels: [Level] = []
    /// Levels below this index have their descriptors closed.
    private var firstOpen = 0

    /// Takes over `fd`, the open root directory at `path`.
    init(rootFD fd: Int32, path: FSPath) throws(FSError) {
        levels = [try Self.level(fd, name: path, path: path)]
    }

    /// The level for the directory open as `fd` (taken over: closed if it cannot be
    /// examined).
    private static func level(_ fd: Int32, name: FSPath, path: FSPath) throws(FSError) -> Level {
        do {
            let info = try At.fstat(fd, path: path)
            return Level(name: name, path: path, device: info.device, inode: info.inode, fd: fd)
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    deinit {
        for level in levels where level.fd >= 0 { Glibc.close(level.fd) }
    }

    /// The descriptor of the current directory.
    var fd: Int32 { levels[levels.count - 1].fd }
    /// The whole path of the current directory, for messages.
    var path: FSPath { levels[levels.count - 1].path }
    /// The current directory's name in its parent.
    var name: FSPath { levels[levels.count - 1].name }
    var depth: Int { levels.count }

    /// Opens the directory `name` in the current one (never following a link) and enters it.
    func push(_ name: FSPath) throws(FSError) {
        let path = self.path.appending(name)
        try push(At.openDirectory(fd, name, path: path), name: name, path: path)
    }

    /// Enters the directory open as `fd` (taken over), named `name` in the current one.
    func push(_ fd: Int32, name: FSPath, path: FSPath) throws(FSError) {
        levels.append(try Self.level(fd, name: name, path: path))
        if levels.count - firstOpen > Self.maxOpen {
            Glibc.close(levels[firstOpen].fd)
            levels[firstOpen].fd = -1
            firstOpen += 1
        }
    }

    /// Leaves the current directory for its parent, reopening the parent if its descriptor
    /// was closed.
    func pop() throws(FSError) {
        precondition(levels.count > 1, "popping the root of a walk")
        let child = levels[levels.count - 1]
        defer { Glibc.close(child.fd) }
        levels.removeLast()
        let parent = levels.count - 1
        guard levels[parent].fd < 0 else { return }
        let path = levels[parent].path
        let fd = SystemCall.retryingInterrupts { Glibc.openat(child.fd, "..", At.directoryFlags | O_CLOEXEC, 0) }
        guard fd >= 0 else { throw At.failure("open", path, "reopening the directory \(path)") }
        let reopened = try Self.level(fd, name: levels[parent].name, path: path)
        guard reopened.device == levels[parent].device, reopened.inode == levels[parent].inode else {
            Glibc.close(fd)
            throw FSError(
                .noSuchFileOrDirectory, operation: "open", path: path.description,
                activity: "returning to the directory \(path) (\(child.name) was moved out of it during the walk; stopped)")
        }
        levels[parent].fd = fd
        firstOpen = parent
    }
}
