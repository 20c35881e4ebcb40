internal import Glibc

/// A download's destination: the body goes to a temporary file next to the target, which is
/// renamed over the target only when the transfer succeeded. A failed, cancelled or refused
/// download leaves the target as it was and no temporary file behind.
///
/// Used on the driver thread only.
final class DownloadSink {
    let target: String
    let temporary: String
    let durable: Bool
    private var fd: Int32
    private(set) var written: Int64 = 0
    /// The first write error, as errno.
    private(set) var writeErrno: Int32 = 0

    private init(target: String, temporary: String, fd: Int32, durable: Bool) {
        self.target = target
        self.temporary = temporary
        self.fd = fd
        self.durable = durable
    }

    /// Creates the temporary file in the target's directory (mode 0644 less the umask,
    /// `O_EXCL`, `O_CLOEXEC`).
    static func create(target: String, durable: Bool) -> Result<DownloadSink, CurlError> {
        let (directory, name) = split(target)
        guard !AdapterPaths.containsNUL(target) else {
            return .failure(
                CurlError(
                    .fileError,
                    message: "download path '\(AdapterPaths.showingNUL(target))' contains a NUL byte, which would cut it short in the system call; refused"))
        }
        guard !name.isEmpty else {
            return .failure(CurlError(.fileError, message: "download path '\(target)' names no file"))
        }
        // `.NAME.` + up to 13 base-36 digits + `.download`, NAME shortened to fit NAME_MAX.
        let prefix = AdapterPaths.siblingPrefix(of: name, tag: ".", suffixLength: 13 + 9)
        for _ in 0..<8 {
            let temporary = "\(directory)/\(prefix)\(String(UInt64.random(in: 0...UInt64.max), radix: 36)).download"
            let fd = retryingEINTR { open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) }
            if fd >= 0 { return .success(DownloadSink(target: target, temporary: temporary, fd: fd, durable: durable)) }
            if errno == EEXIST { continue }
            return .failure(CurlError(.fileError, message: "cannot create a file in '\(directory)' for the download to '\(target)': \(describe(errno))"))
        }
        return .failure(CurlError(.fileError, message: "cannot find a free temporary name in '\(directory)'"))
    }

    /// Writes all of `bytes`; `false` after an error (kept in ``writeErrno``).
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if count < 0 {
                if errno == EINTR { continue }
                writeErrno = errno
                return false
            }
            offset += count
        }
        written += Int64(bytes.count)
        return true
    }

    /// Flushes (when durable), closes and renames the file over the target.
    func commit() -> CurlError? {
        defer { fd = -1 }
        if durable, fsync(fd) != 0 {
            let code = errno
            discard()
            return CurlError(.fileError, message: "fsync of the download to '\(target)' failed: \(describe(code))")
        }
        // The directory is opened before the rename: once the new file is in place, nothing
        // may fail (out of descriptors, say) and report an error for a download that landed.
        var directoryFD: Int32 = -1
        if durable {
            directoryFD = open(Self.split(target).directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if directoryFD < 0 {
                let code = errno
                discard()
                return CurlError(.fileError, message: "cannot open the directory of '\(target)' to make the download durable: \(describe(code))")
            }
        }
        defer { if directoryFD >= 0 { _ = close(directoryFD) } }
        _ = close(fd)
        guard rename(temporary, target) == 0 else {
            let code = errno
            unlink(temporary)
            return CurlError(.fileError, message: "cannot move the download into place at '\(target)': \(describe(code))")
        }
        if directoryFD >= 0 { _ = fsync(directoryFD) }
        return nil
    }

    /// Closes and removes the temporary file; the target is untouched.
    func discard() {
        if fd >= 0 { _ = close(fd) }
        fd = -1
        unlink(temporary)
    }

    deinit {
        if fd >= 0 { discard() }
    }

    /// Directory and name; a path ending in `/` names no file (an empty name).
    private static func split(_ path: String) -> (directory: String, name: String) {
        if path.utf8.last == UInt8(ascii: "/") { return (AdapterPaths.split(path).directory, "") }
        return AdapterPaths.split(path)
    }
}

/// A request body streamed from a file by the read callback.
///
/// Used on the driver thread only.
final class UploadFile {
    let path: String
    let size: Int64
    private var fd: Int32
    private(set) var readErrno: Int32 = 0

    private init(path: String, fd: Int32, size: Int64) {
        self.path = path
        self.fd = fd
        self.size = size
    }

    /// Opens a regular file for reading.
    static func open(_ path: String) -> Result<UploadFile, CurlError> {
        guard !AdapterPaths.containsNUL(path) else {
            return .failure(
                CurlError(
                    .invalidRequest,
                    message: "body file '\(AdapterPaths.showingNUL(path))' contains a NUL byte, which would cut it short in the system call; refused"))
        }
        let fd = retryingEINTR { Glibc.open(path, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else {
            return .failure(CurlError(.invalidRequest, message: "cannot open the request body file '\(path)': \(describe(errno))"))
        }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            _ = close(fd)
            return .failure(CurlError(.invalidRequest, message: "the request body file '\(path)' is not a regular file"))
        }
        return .success(UploadFile(path: path, fd: fd, size: Int64(info.st_size)))
    }

    /// Reads up to `buffer.count` bytes; `nil` after an error.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        while true {
            let count = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            readErrno = errno
            return nil
        }
    }

    /// Moves to `offset` from the start (libcurl rewinds to send again; a redirect that keeps
    /// the body rewinds to 0).
    func seek(to offset: Int64) -> Bool {
        lseek(fd, off_t(offset), SEEK_SET) >= 0
    }

    deinit {
        if fd >= 0 { _ = close(fd) }
    }
}

private func retryingEINTR(_ body: () -> Int32) -> Int32 {
    while true {
        let result = body()
        if result >= 0 || errno != EINTR { return result }
    }
}

/// `strerror` with the errno name's meaning, e.g. `permission denied (EACCES 13)`.
func describe(_ code: Int32) -> String {
    let text = String(cString: strerror(code))
    return "\(text.prefix(1).lowercased())\(text.dropFirst()) (errno \(code))"
}
