internal import Glibc
internal import PromiseSystem

// Whole-file reads of what has no size to go by: a character device, a FIFO, a block device.
// The descriptor stays non-blocking and every wait is a bounded `poll(2)`, so the pool thread
// checks cancellation between waits and never sits in a `read(2)` no one will answer.

extension Sys {
    /// How long one wait for bytes lasts before cancellation is checked again, in milliseconds.
    static let streamWaitMilliseconds: Int32 = 50

    /// The most one `read(2)` of a stream asks for: 64 KiB.
    static let streamChunk = 64 << 10

    /// Opens `path` for a whole-file read and checks `maxSize` (0 or more) and the kind of
    /// file: a directory fails with ``FSError/Code-swift.struct/isADirectory``. A regular file
    /// comes back blocking; anything else (a device, a FIFO) stays non-blocking for
    /// ``readStreamToEnd(_:path:kind:maxSize:cancelled:)``.
    static func openForWholeRead(_ path: FSPath, maxSize: Int) throws(FSError) -> (fd: Int32, info: FSFileInfo) {
        guard maxSize >= 0 else {
            throw FSError(
                .invalidArgument, operation: "read", path: path,
                activity: "reading \(path) with a size cap of \(maxSize) bytes (the cap must be 0 or more)")
        }
        let activity = "opening \(path) for reading"
        var fd = path.withCString { path in SystemCall.retryingInterrupts { Glibc.open(path, readOnly | O_CLOEXEC | O_NONBLOCK, 0) } }
        // A lease (only a regular file has one): a blocking open waits for its holder to give it up.
        if fd < 0 && errno == EWOULDBLOCK { fd = openBreakingLease(path, readOnly, 0) }
        guard fd >= 0 else { throw openFailure(path, readOnly, activity) }
        let info: FSFileInfo
        do {
            info = try fstat(fd, path: path)
        } catch {
            close(fd)
            throw error
        }
        switch info.kind {
        case .regular:
            return (try blocking(fd, readOnly, path: path), info)
        case .directory:
            close(fd)
            throw FSError(.isADirectory, operation: "read", path: path, activity: "reading \(path)")
        default:
            return (fd, info)
        }
    }

    /// Reads the non-blocking descriptor `fd` to its end (a `read(2)` of 0 bytes), failing
    /// with ``FSError/Code-swift.struct/tooLarge`` past `maxSize` bytes (it reads at most one
    /// byte more to tell). Waits for bytes in `poll(2)` calls of
    /// ``streamWaitMilliseconds``, checking `cancelled` between them: a FIFO that no process
    /// writes is waited for until a writer comes and goes, or until cancellation.
    static func readStreamToEnd(_ fd: Int32, path: FSPath, kind: FSFileKind, maxSize: Int, cancelled: CancelFlag) throws -> [UInt8] {
        let limit = maxSize == .max ? maxSize : maxSize + 1
        var result: [UInt8] = []
        while true {
            try cancelled.check()
            guard try waitReadable(fd, path: path) else { continue }
            var readError: Int32 = 0
            let chunk = [UInt8](unsafeUninitializedCapacity: min(streamChunk, limit - result.count)) { buffer, filled in
                let count = SystemCall.retryingInterrupts { Glibc.read(fd, buffer.baseAddress, buffer.count) }
                if count < 0 { readError = errno }
                filled = max(count, 0)
            }
            if readError == EAGAIN || readError == EWOULDBLOCK { continue }
            if readError != 0 {
                errno = readError
                throw failure("read", path, "reading \(path)")
            }
            if chunk.isEmpty { return result }
            result.append(contentsOf: chunk)
            if result.count > maxSize {
                throw FSError(
                    .tooLarge, operation: "read", path: path,
                    activity: "reading \(path) (\(phrase(kind)), read to its end; the cap is \(maxSize) bytes)")
            }
        }
    }

    /// Waits up to ``streamWaitMilliseconds`` for `fd` to be readable (bytes, end of file or
    /// an error to report); `false` when the time passed or a signal came first.
    private static func waitReadable(_ fd: Int32, path: FSPath) throws(FSError) -> Bool {
        var request = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = SystemCall.retryingInterrupts { Glibc.poll(&request, 1, streamWaitMilliseconds) }
        if ready < 0 { throw failure("poll", path, "waiting for bytes from \(path)") }
        return ready > 0
    }
}
