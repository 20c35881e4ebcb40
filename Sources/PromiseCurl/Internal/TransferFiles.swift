internal import Glibc
internal import PromiseSystem

/// A download's destination: the body goes to an ``AtomicFileReplacement`` next to the target,
/// moved over the target only when the transfer succeeded, with the replaced file's owner and
/// mode. A failed, cancelled or refused download leaves the target as it was and no temporary
/// file behind.
///
/// Used on the driver thread only.
final class DownloadSink {
    let target: String
    let durable: Bool
    private let replacement: AtomicFileReplacement
    private(set) var written: Int64 = 0
    /// The first write error, as errno.
    private(set) var writeErrno: Int32 = 0

    private init(target: String, replacement: AtomicFileReplacement, durable: Bool) {
        self.target = target
        self.replacement = replacement
        self.durable = durable
    }

    /// Creates the temporary file in the target's directory: mode 0600 when it replaces a
    /// regular file, 0644 less the umask otherwise. Refuses a target that is a directory or
    /// another kind of file a download cannot replace, before anything is transferred. The
    /// path itself was checked with the request (`CurlRequest.validated(downloadPath:)`).
    static func create(target: String, durable: Bool) -> Result<DownloadSink, CurlError> {
        let path = Array(target.utf8)
        do throws(AtomicFileReplacement.Failure) {
            let existing = try AtomicFileReplacement.inspect(path)
            if let existing, !existing.isRegularFile, !existing.isSymbolicLink {
                let what = existing.isDirectory ? "a directory" : "not a regular file"
                return .failure(CurlError(.fileError, message: "download path '\(target)' is \(what); a download only replaces a regular file"))
            }
            let replacement = try AtomicFileReplacement(target: path, replacing: existing, tag: ".download-", newFileMode: 0o644)
            return .success(DownloadSink(target: target, replacement: replacement, durable: durable))
        } catch {
            let directory = String(decoding: AdapterPaths.split(path).directory, as: UTF8.self)
            let doing =
                error.step == .inspect ? "cannot read the attributes of '\(target)'" : "cannot create a file in '\(directory)' for the download to '\(target)'"
            return .failure(CurlError(.fileError, message: "\(doing): \(ErrnoText.describe(error.code))"))
        }
    }

    /// Writes all of `bytes`; `false` after an error (kept in ``writeErrno``).
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if let failure = SystemCall.writeAll(replacement.descriptor, bytes) {
            writeErrno = failure
            return false
        }
        written += Int64(bytes.count)
        return true
    }

    /// Moves the file over the target (see ``AtomicFileReplacement/commit(durable:exclusive:)``).
    func commit() -> CurlError? {
        do throws(AtomicFileReplacement.Failure) {
            try replacement.commit(durable: durable)
            return nil
        } catch {
            let what: String
            switch error.step {
            case .inspect, .create, .rename, .link: what = "cannot move the download into place at '\(target)'"
            case .keepOwner, .keepMode: what = "cannot give the download the owner and mode of the file it replaces at '\(target)'"
            case .flush: what = "fsync of the download to '\(target)' failed"
            case .openDirectory: what = "cannot open the directory of '\(target)' to make the download durable"
            case .flushDirectory: what = "the download is in place at '\(target)', but flushing its directory failed"
            }
            return CurlError(.fileError, message: "\(what): \(ErrnoText.describe(error.code))")
        }
    }

    /// Closes and removes the temporary file; the target is untouched.
    func discard() {
        replacement.discard()
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

    /// Opens a regular file for reading. The path was checked with the request
    /// (`CurlRequest.validated(downloadPath:)`).
    static func open(_ path: String) -> Result<UploadFile, CurlError> {
        let fd = SystemCall.retryingInterrupts { Glibc.open(path, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else {
            return .failure(CurlError(.invalidRequest, message: "cannot open the request body file '\(path)': \(ErrnoText.describe(errno))"))
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
        switch SystemCall.read(fd, into: buffer) {
        case .success(let count): return count
        case .failure(let failure):
            readErrno = failure.errno
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
