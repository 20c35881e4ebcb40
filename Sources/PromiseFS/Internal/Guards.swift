internal import Glibc
internal import PromiseSystem

// Checks that keep hostile input from crashing, hanging or silently replacing what a path
// names: sizes, kinds of file, errors that match the system's, and what a copy keeps.

extension Sys {
    /// The most a read allocates before bytes arrive: 1 MiB. A larger request grows its
    /// buffer as the bytes come in, so `read(count: Int.max)` costs what the file holds.
    static let readChunk = 1 << 20

    /// The name of a kind of file, for messages.
    static func phrase(_ kind: FSFileKind) -> String {
        switch kind {
        case .regular: "a regular file"
        case .directory: "a directory"
        case .symbolicLink: "a symbolic link"
        case .characterDevice: "a character device"
        case .blockDevice: "a block device"
        case .fifo: "a FIFO (named pipe)"
        case .socket: "a socket"
        case .unknown: "a file of unknown kind"
        }
    }

    /// `fd`, opened with `O_NONBLOCK`, made blocking again (the other status flags of `flags`
    /// kept). The open is non-blocking so that a FIFO without a peer, or a device waiting for
    /// a carrier, cannot hold a pool thread inside `open(2)`, where no cancellation reaches it.
    /// On failure `fd` is closed.
    static func blocking(_ fd: Int32, _ flags: Int32, path: FSPath) throws(FSError) -> Int32 {
        guard Glibc.fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0 else {
            let error = failure("fcntl", path, "opening \(path)")
            close(fd)
            throw error
        }
        return fd
    }

    /// Opens `path` blocking, after a non-blocking open failed with `EWOULDBLOCK`: another
    /// process holds a lease on the file (Samba and NFS servers take them), which the kernel
    /// asks it to give up. The wait is bounded by the kernel (`/proc/sys/fs/lease-break-time`,
    /// 45 s by default), not by the other process, so it cannot wedge a thread for good; a
    /// FIFO never fails this way.
    static func openBreakingLease(_ path: FSPath, _ flags: Int32, _ mode: UInt32) -> Int32 {
        path.withCString { path in SystemCall.retryingInterrupts { Glibc.open(path, flags | O_CLOEXEC, mode_t(mode)) } }
    }

    /// The error of a failed `open`, with the reason spelled out where `ENXIO` means a FIFO
    /// that no process reads.
    static func openFailure(_ path: FSPath, _ flags: Int32, _ activity: String) -> FSError {
        let code = errno
        var activity = activity
        if code == ENXIO, flags & O_ACCMODE == O_WRONLY, (try? stat(path, followingLinks: true))?.kind == .fifo {
            activity += " (a FIFO that no process has open for reading; opening does not wait for a reader)"
        }
        return FSError(FSError.Code(errno: code), operation: "open", path: path, activity: activity)
    }

    /// Reads up to `count` bytes (see ``read(_:count:offset:path:)``), allocating at most
    /// ``readChunk`` before bytes arrive and growing with them.
    static func readGrowing(_ fd: Int32, count: Int, offset: Int64?, path: String) throws(FSError) -> [UInt8] {
        guard count >= 0 else {
            throw FSError(
                .invalidArgument, operation: "read", path: path,
                activity: "reading \(count) bytes from \(path) (the count must be 0 or more)")
        }
        if count <= readChunk { return try fill(fd, capacity: count, offset: offset, path: path).bytes }
        var result: [UInt8] = []
        var next = readChunk
        while result.count < count {
            let position = offset.map { $0 + Int64(result.count) }
            let (chunk, atEnd) = try fill(fd, capacity: min(next, count - result.count), offset: position, path: path)
            if result.isEmpty { result = chunk } else { result.append(contentsOf: chunk) }
            if atEnd { break }
            next = min(next * 2, 1 << 24)
        }
        return result
    }
}

extension FileWriter {
    /// Refuses an atomic write over what is neither a regular file nor a symbolic link: the
    /// rename would put a regular file in place of a FIFO or a device (as root, in place of
    /// `/dev/null`). An in-place write opens it and writes into it instead.
    static func refuseToReplace(_ existing: FSFileInfo, at path: FSPath) throws(FSError) {
        switch existing.kind {
        case .regular, .symbolicLink:
            return
        case .directory:
            throw FSError(.isADirectory, operation: "write", path: path, activity: "writing \(path)")
        default:
            throw FSError(
                .invalidArgument, operation: "write", path: path,
                activity: "writing \(path) (\(Sys.phrase(existing.kind)), not a regular file: an atomic write "
                    + "would replace it with one; pass FSWriteOptions.inPlace to write into it)")
        }
    }

    /// Refuses a name ending in `/` with the error `open(2)` gives for it with `O_CREAT`:
    /// `EISDIR`, or the error of the directory part (`ENOENT`, `ENOTDIR`, `EACCES`). The call
    /// never creates anything for such a name, and nothing is truncated.
    static func refuseTrailingSlash(_ path: FSPath) throws(FSError) {
        guard path.bytes.last == FSPath.slash else { return }
        let fd = path.withCString { path in SystemCall.retryingInterrupts { Glibc.open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0o600) } }
        let code = fd >= 0 ? EISDIR : errno
        if fd >= 0 { Sys.close(fd) }
        throw FSError(
            FSError.Code(errno: code), operation: "write", path: path,
            activity: "writing \(path)" + (code == EISDIR ? " (a name ending in / can only be a directory)" : ""))
    }
}

extension Tree {
    /// The error of a recursive `mkdir` of `path` whose component `prefix` exists as `info`,
    /// which is not a directory: the one `mkdir(2)` of `path` gives (`EEXIST` when `prefix` is
    /// `path`, `ENOTDIR` through a file, `ENOENT` through a dangling link). Should that `mkdir`
    /// succeed (the component became a directory meanwhile), the directory exists and nothing
    /// is thrown.
    static func mkdirThroughNonDirectory(_ path: FSPath, prefix: FSPath, info: FSFileInfo, mode: UInt32) throws(FSError) {
        guard path.withCString({ path in SystemCall.retryingInterrupts { Glibc.mkdir(path, mode_t(mode)) } }) != 0 else { return }
        let code = errno
        if code == EEXIST, (try? Sys.stat(path, followingLinks: true))?.kind == .directory { return }
        let what = info.kind == .symbolicLink ? "a symbolic link that does not lead to a directory" : Sys.phrase(info.kind)
        throw FSError(
            FSError.Code(errno: code), operation: "mkdir", path: path,
            activity: "creating the directory \(path) (\(prefix) is \(what))")
    }
}

extension At {
    /// Gives the file open as `fd` the access and modification times of `info`, to the
    /// nanosecond.
    static func setTimes(_ fd: Int32, from info: FSFileInfo, path: FSPath) throws(FSError) {
        guard SystemCall.retryingInterrupts({ Glibc.futimens(fd, timespecs(info)) }) == 0 else {
            throw failure("futimens", path, "setting the times of \(path)")
        }
    }

    /// Gives `name` in `dirFD` the access and modification times of `info`, to the
    /// nanosecond; a symbolic link gets them itself, never what it points to.
    static func setTimes(_ dirFD: Int32, _ name: FSPath, from info: FSFileInfo, path: FSPath) throws(FSError) {
        let times = timespecs(info)
        let status = name.withCString { name in SystemCall.retryingInterrupts { Glibc.utimensat(dirFD, name, times, AT_SYMLINK_NOFOLLOW) } }
        guard status == 0 else { throw failure("utimensat", path, "setting the times of \(path)") }
    }

    private static func timespecs(_ info: FSFileInfo) -> [timespec] {
        [
            timespec(tv_sec: Int(info.accessTime.seconds), tv_nsec: Int(info.accessTime.nanoseconds)),
            timespec(tv_sec: Int(info.modificationTime.seconds), tv_nsec: Int(info.modificationTime.nanoseconds)),
        ]
    }
}
