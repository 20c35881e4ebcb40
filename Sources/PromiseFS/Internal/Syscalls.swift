internal import Glibc
internal import Synchronization
internal import PromiseSystem

/// Every system call PromiseFS makes, in one place: `EINTR` retried, short reads and writes
/// looped, every descriptor opened `O_CLOEXEC`, and `-1` turned into an ``FSError`` naming
/// the operation and the path.
enum Sys {
    /// The error for the `errno` the last call left.
    static func failure(_ operation: String, _ path: String, _ activity: String? = nil) -> FSError {
        FSError(FSError.Code(errno: errno), operation: operation, path: path, activity: activity)
    }

    static func failure(_ operation: String, _ path: FSPath, _ activity: String? = nil) -> FSError {
        failure(operation, path.description, activity)
    }

    // MARK: Descriptors

    static let readOnly = O_RDONLY
    static let appendFlags = O_WRONLY | O_APPEND | O_CREAT
    static let writeTruncateFlags = O_WRONLY | O_CREAT | O_TRUNC
    static let exclusiveCreate = O_EXCL
    static let directoryFlags = O_RDONLY | O_DIRECTORY

    /// Open flags for ``FSFile``.
    static func flags(read: Bool, write: Bool, create: Bool, truncate: Bool, append: Bool, exclusive: Bool) -> Int32 {
        var flags: Int32 = read && write ? O_RDWR : (write ? O_WRONLY : O_RDONLY)
        if create { flags |= O_CREAT }
        if truncate { flags |= O_TRUNC }
        if append { flags |= O_APPEND }
        if exclusive { flags |= O_EXCL }
        return flags
    }

    /// Opens `path`, returning a blocking descriptor. The open itself is non-blocking (see
    /// ``blocking(_:_:path:)``): a FIFO opens at once for reading and fails with `ENXIO`
    /// for writing when no process reads it.
    static func open(_ path: FSPath, _ flags: Int32, mode: UInt32 = 0o644, activity: String) throws(FSError) -> Int32 {
        var fd = path.withCString { path in SystemCall.retryingInterrupts { Glibc.open(path, flags | O_CLOEXEC | O_NONBLOCK, mode_t(mode)) } }
        if fd < 0 && errno == EWOULDBLOCK { fd = openBreakingLease(path, flags, mode) }
        guard fd >= 0 else { throw openFailure(path, flags, activity) }
        return try blocking(fd, flags, path: path)
    }

    /// Closes `fd` once, never retried (``SystemCall/close(_:)``).
    static func close(_ fd: Int32) {
        SystemCall.close(fd)
    }

    /// Closes `fd` like ``close(_:)`` and returns the `errno` of a failure that may have lost
    /// data (`EIO`, `ENOSPC` on a network file system), or `nil`; `EINTR` is not one.
    static func closeReportingError(_ fd: Int32) -> Int32? {
        SystemCall.close(fd)
    }

    /// Reads the rest of `fd`, failing with ``FSError/Code-swift.struct/tooLarge`` past
    /// `maxSize` bytes (it reads at most one byte more to tell).
    static func readToEnd(_ fd: Int32, path: String, maxSize: Int, sizeHint: Int) throws(FSError) -> [UInt8] {
        let limit = maxSize == .max ? maxSize : maxSize + 1
        var result: [UInt8] = []
        var capacity = min(max(sizeHint + 1, 4096), limit)
        while true {
            let (chunk, atEnd) = try fill(fd, capacity: capacity, offset: nil, path: path)
            if result.isEmpty { result = chunk } else { result.append(contentsOf: chunk) }
            if result.count > maxSize {
                throw FSError(.tooLarge, operation: "read", path: path, activity: "reading \(path) (the cap is \(maxSize) bytes)")
            }
            if atEnd { return result }
            capacity = min(capacity * 2, 1 << 24, limit - result.count)
        }
    }

    /// Reads up to `count` bytes at `offset` (or at the current position when `offset` is nil),
    /// looping over short reads until `count` bytes or the end of the file.
    static func read(_ fd: Int32, count: Int, offset: Int64?, path: String) throws(FSError) -> [UInt8] {
        try readGrowing(fd, count: count, offset: offset, path: path)
    }

    /// Reads into a new array of `capacity` bytes until it is full or the file ends; one copy,
    /// no zero-filling.
    static func fill(_ fd: Int32, capacity: Int, offset: Int64?, path: String) throws(FSError) -> (bytes: [UInt8], atEnd: Bool) {
        var readError: Int32 = 0
        var atEnd = false
        let bytes = [UInt8](unsafeUninitializedCapacity: max(capacity, 0)) { buffer, filled in
            filled = 0
            while filled < capacity {
                let n = SystemCall.retryingInterrupts {
                    if let offset {
                        return Glibc.pread(fd, buffer.baseAddress! + filled, capacity - filled, off_t(offset) + off_t(filled))
                    }
                    return Glibc.read(fd, buffer.baseAddress! + filled, capacity - filled)
                }
                if n < 0 { readError = errno; return }
                if n == 0 { atEnd = true; return }
                filled += n
            }
        }
        if readError != 0 {
            throw FSError(FSError.Code(errno: readError), operation: "read", path: path, activity: "reading \(path)")
        }
        return (bytes, atEnd)
    }

    /// Writes all of `bytes` at `offset` (or at the current position), looping over short
    /// writes. An error after part of `bytes` is written (a disk that fills up mid-write) says
    /// how much was written first, so a caller of an append knows what the file now ends with.
    static func write(
        _ fd: Int32, _ bytes: some Collection<UInt8>, offset: Int64?, path: String, activity: String? = nil
    ) throws(FSError) {
        var outcome = (error: Int32(0), written: 0, count: 0)
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            outcome = writeAll(fd, UnsafeRawBufferPointer(buffer), offset: offset)
        }
        if done == nil {
            // Copied one slice at a time, never whole: a collection without contiguous storage
            // may be far larger than memory (`repeatElement(0, count: .max)`).
            var slice: [UInt8] = []
            var index = bytes.startIndex
            var total = 0
            while index != bytes.endIndex {
                let end = bytes.index(index, offsetBy: writeSlice, limitedBy: bytes.endIndex) ?? bytes.endIndex
                slice.removeAll(keepingCapacity: true)
                slice.append(contentsOf: bytes[index..<end])
                index = end
                let part = slice.withUnsafeBytes { writeAll(fd, $0, offset: offset.map { $0 + Int64(total) }) }
                total += part.written
                guard part.error == 0 else {
                    outcome = (part.error, total, bytes.count)
                    break
                }
            }
            if outcome.error == 0 { outcome = (0, total, total) }
        }
        if outcome.error != 0 {
            var activity = activity ?? "writing \(path)"
            if outcome.written > 0 {
                activity += " (\(outcome.written) of \(outcome.count) bytes were written before the error)"
            }
            throw FSError(FSError.Code(errno: outcome.error), operation: "write", path: path, activity: activity)
        }
    }

    /// The most one `write` call is given: 1 MiB, as the raw baseline and Node write, rather
    /// than one multi-second call for a huge buffer. (Whether this moves 1 GiB throughput could
    /// not be told apart from this VM's round-to-round noise.)
    static let writeSlice = 1 << 20

    private static func writeAll(
        _ fd: Int32, _ buffer: UnsafeRawBufferPointer, offset: Int64?
    ) -> (error: Int32, written: Int, count: Int) {
        var written = 0
        while written < buffer.count {
            let length = min(buffer.count - written, writeSlice)
            let n = SystemCall.retryingInterrupts {
                if let offset {
                    return Glibc.pwrite(fd, buffer.baseAddress! + written, length, off_t(offset) + off_t(written))
                }
                return Glibc.write(fd, buffer.baseAddress! + written, length)
            }
            if n < 0 { return (errno, written, buffer.count) }
            written += n
        }
        return (0, written, buffer.count)
    }

    static func fsync(_ fd: Int32, path: String) throws(FSError) {
        guard SystemCall.retryingInterrupts({ Glibc.fsync(fd) }) == 0 else { throw failure("fsync", path, "flushing \(path) to disk") }
    }

    static func ftruncate(_ fd: Int32, _ size: Int64, path: String) throws(FSError) {
        guard SystemCall.retryingInterrupts({ Glibc.ftruncate(fd, off_t(size)) }) == 0 else {
            throw failure("truncate", path, "truncating \(path) to \(size) bytes")
        }
    }

    static func seek(_ fd: Int32, to offset: Int64, path: String) throws(FSError) {
        guard Glibc.lseek(fd, off_t(offset), SEEK_SET) >= 0 else { throw failure("seek", path, "seeking in \(path)") }
    }

    // MARK: Metadata

    static func stat(_ path: FSPath, followingLinks: Bool) throws(FSError) -> FSFileInfo {
        var info = Glibc.stat()
        let flags = followingLinks ? 0 : AT_SYMLINK_NOFOLLOW
        let status = path.withCString { path in SystemCall.retryingInterrupts { Glibc.fstatat(AT_FDCWD, path, &info, flags) } }
        guard status == 0 else { throw failure(followingLinks ? "stat" : "lstat", path, "reading the attributes of \(path)") }
        return FSFileInfo(info)
    }

    static func fstat(_ fd: Int32, path: String) throws(FSError) -> FSFileInfo {
        var info = Glibc.stat()
        guard SystemCall.retryingInterrupts({ Glibc.fstat(fd, &info) }) == 0 else { throw failure("fstat", path, "reading the attributes of \(path)") }
        return FSFileInfo(info)
    }

    /// `lstat` that reports a missing path as `nil` instead of an error.
    static func lstatIfPresent(_ path: FSPath) throws(FSError) -> FSFileInfo? {
        var info = Glibc.stat()
        if path.withCString({ path in SystemCall.retryingInterrupts { Glibc.lstat(path, &info) } }) == 0 { return FSFileInfo(info) }
        if errno == ENOENT { return nil }
        throw failure("lstat", path, "reading the attributes of \(path)")
    }

    static func chmod(_ path: FSPath, _ mode: UInt32) throws(FSError) {
        guard path.withCString({ path in SystemCall.retryingInterrupts { Glibc.chmod(path, mode_t(mode)) } }) == 0 else {
            throw failure("chmod", path, "changing the permissions of \(path)")
        }
    }

    static func fchmod(_ fd: Int32, _ mode: UInt32, path: String) throws(FSError) {
        guard SystemCall.retryingInterrupts({ Glibc.fchmod(fd, mode_t(mode)) }) == 0 else {
            throw failure("chmod", path, "changing the permissions of \(path)")
        }
    }

    // MARK: Names

    static func rename(_ from: FSPath, _ to: FSPath) throws(FSError) {
        _ = try rename(from, to, crossDeviceIsFine: false)
    }

    /// Renames; returns `false` instead of failing with `EXDEV` when `crossDeviceIsFine`.
    static func rename(_ from: FSPath, _ to: FSPath, crossDeviceIsFine: Bool) throws(FSError) -> Bool {
        let status = from.withCString { from in to.withCString { to in SystemCall.retryingInterrupts { Glibc.rename(from, to) } } }
        if status == 0 { return true }
        if crossDeviceIsFine && errno == EXDEV { return false }
        throw failure("rename", from, "renaming \(from) to \(to)")
    }

    /// Gives `existing` a second name `path`; fails with `EEXIST` if `path` exists, atomically.
    static func link(_ existing: FSPath, _ path: FSPath) throws(FSError) {
        guard existing.withCString({ existing in path.withCString { path in SystemCall.retryingInterrupts { Glibc.link(existing, path) } } }) == 0 else {
            throw failure("link", path, "creating \(path)")
        }
    }

    static func unlink(_ path: FSPath) throws(FSError) {
        guard path.withCString({ path in SystemCall.retryingInterrupts { Glibc.unlink(path) } }) == 0 else { throw failure("unlink", path, "removing \(path)") }
    }

    static func symlink(target: FSPath, at path: FSPath) throws(FSError) {
        guard target.withCString({ target in path.withCString { path in SystemCall.retryingInterrupts { Glibc.symlink(target, path) } } }) == 0 else {
            throw failure("symlink", path, "creating the symbolic link \(path) to \(target)")
        }
    }

    /// The target of the symbolic link at `path`, byte for byte.
    static func readLink(_ path: FSPath) throws(FSError) -> FSPath {
        try At.readLink(At.cwd, path, path: path)
    }

    /// `prefix` followed by a ``TemporaryName`` suffix.
    static func uniqueName(_ prefix: String) -> String {
        prefix + String(decoding: TemporaryName.suffix(), as: UTF8.self)
    }

    /// Creates a new directory named `prefix` + a random suffix, mode 0700; returns its path.
    static func makeTemporaryDirectory(_ prefix: String) throws(FSError) -> String {
        while true {
            let path = uniqueName(prefix)
            if SystemCall.retryingInterrupts({ Glibc.mkdir(path, 0o700) }) == 0 { return path }
            if errno != EEXIST { throw failure("mkdir", path, "creating the temporary directory \(path)") }
        }
    }

    /// The directory for temporary files: `$TMPDIR`, or `/tmp`.
    static var temporaryDirectory: String {
        if let value = getenv("TMPDIR"), value.pointee != 0 { return String(cString: value) }
        return "/tmp"
    }

    // MARK: Directories

    /// Opens the directory at `path` for listing.
    static func openDirectory(_ path: FSPath, followingLinks: Bool = true) throws(FSError) -> Int32 {
        let flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (followingLinks ? 0 : O_NOFOLLOW)
        let fd = path.withCString { path in SystemCall.retryingInterrupts { Glibc.open(path, flags, 0) } }
        guard fd >= 0 else { throw failure("open", path, "opening the directory \(path)") }
        return fd
    }
}

extension FSFileInfo {
    init(_ info: Glibc.stat) {
        self.init(
            size: Int64(info.st_size),
            kind: FSFileKind(mode: UInt32(info.st_mode)),
            permissions: FSPermissions(rawValue: UInt32(info.st_mode)),
            modificationTime: FSFileTime(seconds: Int64(info.st_mtim.tv_sec), nanoseconds: Int64(info.st_mtim.tv_nsec)),
            accessTime: FSFileTime(seconds: Int64(info.st_atim.tv_sec), nanoseconds: Int64(info.st_atim.tv_nsec)),
            statusChangeTime: FSFileTime(seconds: Int64(info.st_ctim.tv_sec), nanoseconds: Int64(info.st_ctim.tv_nsec)),
            inode: UInt64(info.st_ino),
            device: UInt64(info.st_dev),
            linkCount: UInt64(info.st_nlink),
            ownerID: UInt32(info.st_uid),
            groupID: UInt32(info.st_gid)
        )
    }
}

extension FSFileKind {
    init(mode: UInt32) {
        switch mode & 0o170000 {
        case 0o100000: self = .regular
        case 0o040000: self = .directory
        case 0o120000: self = .symbolicLink
        case 0o020000: self = .characterDevice
        case 0o060000: self = .blockDevice
        case 0o010000: self = .fifo
        case 0o140000: self = .socket
        default: self = .unknown
        }
    }

    /// The kind a `readdir` entry reports, or `nil` when the file system does not say.
    init?(directoryEntryType type: UInt8) {
        switch type {
        case 8: self = .regular
        case 4: self = .directory
        case 10: self = .symbolicLink
        case 2: self = .characterDevice
        case 6: self = .blockDevice
        case 1: self = .fifo
        case 12: self = .socket
        default: return nil
        }
    }
}
