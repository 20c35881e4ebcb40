internal import PromiseSystem

/// The operations on ``FSPath``: byte-exact paths, such as names that are not UTF-8. Each
/// `String` form forwards here with `FSPath(string)`.
extension PromiseFileSystem {
    /// Reads a whole file: open, read, close in one job.
    ///
    /// A directory rejects with ``FSError/Code-swift.struct/isADirectory``. A character
    /// device, a block device or a FIFO is read to its end of file, as `cat` reads it:
    /// `/dev/null` gives no bytes, `/dev/zero` rejects with
    /// ``FSError/Code-swift.struct/tooLarge`` at the cap, and a FIFO is read until its
    /// writers close it (waiting for a first writer if none has it open). That wait never
    /// holds a pool thread beyond cancellation: the thread waits in bounded `poll(2)` calls
    /// and checks between them, so cancelling the promise frees it within about 50 ms.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - maxSize: The largest file to accept, 0 or more (a negative cap rejects with
    ///     ``FSError/Code-swift.struct/invalidArgument``); a larger file rejects with
    ///     ``FSError/Code-swift.struct/tooLarge`` before more than `maxSize + 1` bytes are read.
    /// - Returns: A promise for the bytes.
    ///
    /// Corresponds to `open(2)` (non-blocking, then `fstat(2)`), `read(2)` (with `poll(2)`
    /// for what is not a regular file) and `close(2)`.
    public func readFile(_ path: FSPath, maxSize: Int = PromiseFileSystem.defaultMaxReadSize) -> Promise<[UInt8]> {
        pool.run("open", path: path) { cancelled in
            let (fd, info) = try Sys.openForWholeRead(path, maxSize: maxSize)
            defer { Sys.close(fd) }
            guard info.kind == .regular else {
                return try Sys.readStreamToEnd(fd, path: path, kind: info.kind, maxSize: maxSize, cancelled: cancelled)
            }
            if info.size > Int64(maxSize) {
                throw FSError(
                    .tooLarge, operation: "read", path: path,
                    activity: "reading \(path) (\(info.size) bytes; the cap is \(maxSize))")
            }
            return try Sys.readToEnd(fd, path: path, maxSize: maxSize, sizeHint: Int(info.size))
        }
    }

    /// Reads a whole file as UTF-8 text. Invalid UTF-8 rejects with
    /// ``FSError/Code-swift.struct/invalidUTF8``; nothing is replaced silently. Devices and
    /// FIFOs are read to their end, as with ``readFile(_:maxSize:)-(FSPath,_)``.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - maxSize: The largest file to accept, in bytes.
    /// - Returns: A promise for the text.
    ///
    /// Corresponds to `open(2)`, `fstat(2)`, `read(2)` and `close(2)`, then a UTF-8 check.
    public func readText(_ path: FSPath, maxSize: Int = PromiseFileSystem.defaultMaxReadSize) -> Promise<String> {
        readFile(path, maxSize: maxSize).then(on: .inline) { bytes in
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw FSError(.invalidUTF8, operation: "read", path: path, activity: "decoding \(path) as UTF-8")
            }
            return text
        }
    }

    /// Writes a whole file; atomically and durably unless `options` says otherwise. See the
    /// `String` form for the steps of an atomic write, the owner, group and mode it keeps, and
    /// what it refuses to replace (a FIFO, a device or a socket; ``FSWriteOptions/inPlace``
    /// writes into one).
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - bytes: The new contents.
    ///   - options: How to write; ``FSWriteOptions/atomic-swift.type.property`` by default.
    /// - Returns: A promise fulfilled once the file is written.
    ///
    /// Corresponds to an atomic write: `open(2)` of a temporary file with `O_EXCL`, `write(2)`,
    /// `fchown(2)`/`fchmod(2)`, `fsync(2)`, `rename(2)` (`link(2)` for an exclusive one) and
    /// `fsync(2)` of the directory; an in-place write: `open(2)` with `O_TRUNC` and `write(2)`.
    public func writeFile(
        _ path: FSPath,
        _ bytes: some Collection<UInt8> & Sendable,
        options: FSWriteOptions = .atomic
    ) -> Promise<Void> {
        pool.run("write", path: path) { _ in
            if options.atomic {
                try FileWriter.replaceAtomically(path, bytes, options: options)
            } else {
                try FileWriter.writeInPlace(path, bytes, options: options)
            }
        }
    }

    /// Writes UTF-8 text to a whole file, as `writeFile` does.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - text: The new contents.
    ///   - options: How to write; ``FSWriteOptions/atomic-swift.type.property`` by default.
    /// - Returns: A promise fulfilled once the file is written.
    ///
    /// Corresponds to what `writeFile` does for its bytes.
    public func writeText(_ path: FSPath, _ text: String, options: FSWriteOptions = .atomic) -> Promise<Void> {
        writeFile(path, Array(text.utf8), options: options)
    }

    /// Appends bytes to a file, creating it (mode 0644, or `mode`) if needed. Not
    /// all-or-nothing on a full disk; see the `String` form.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - bytes: What to append.
    ///   - mode: Permission bits if the file is created.
    ///   - durable: Flush to disk before fulfilling.
    /// - Returns: A promise fulfilled once the bytes are written.
    ///
    /// Corresponds to `open(2)` with `O_APPEND | O_CREAT` and `write(2)`.
    public func appendFile(
        _ path: FSPath,
        _ bytes: some Collection<UInt8> & Sendable,
        mode: FSPermissions = 0o644,
        durable: Bool = false
    ) -> Promise<Void> {
        pool.run("append", path: path) { _ in
            let fd = try Sys.open(path, Sys.appendFlags, mode: mode.rawValue, activity: "opening \(path) for appending")
            defer { Sys.close(fd) }
            try Sys.write(fd, bytes, offset: nil, path: path, activity: "appending to \(path)")
            if durable { try Sys.fsync(fd, path: path) }
        }
    }

    /// The attributes of the file at `path`, following symbolic links.
    ///
    /// - Parameter path: The path.
    /// - Returns: A promise for the attributes.
    ///
    /// Corresponds to `stat(2)`.
    public func stat(_ path: FSPath) -> Promise<FSFileInfo> {
        pool.run("stat", path: path) { _ in try Sys.stat(path, followingLinks: true) }
    }

    /// The attributes of `path` itself: a symbolic link is reported as a link.
    ///
    /// - Parameter path: The path.
    /// - Returns: A promise for the attributes.
    ///
    /// Corresponds to `lstat(2)`.
    public func lstat(_ path: FSPath) -> Promise<FSFileInfo> {
        pool.run("lstat", path: path) { _ in try Sys.stat(path, followingLinks: false) }
    }

    /// Whether something exists at `path` (a dangling symbolic link counts).
    ///
    /// - Parameter path: The path.
    /// - Returns: A promise for the answer; other errors (`EACCES` on a parent) reject.
    ///
    /// Corresponds to `lstat(2)`.
    public func exists(_ path: FSPath) -> Promise<Bool> {
        pool.run("lstat", path: path) { _ in try Sys.lstatIfPresent(path) != nil }
    }

    /// Sets the permission bits of `path` (following symbolic links).
    ///
    /// - Parameters:
    ///   - path: The path.
    ///   - permissions: The bits, such as `0o640`.
    /// - Returns: A promise fulfilled once they are set.
    ///
    /// Corresponds to `chmod(2)`.
    public func setPermissions(_ path: FSPath, _ permissions: FSPermissions) -> Promise<Void> {
        pool.run("chmod", path: path) { _ in try Sys.chmod(path, permissions.rawValue) }
    }

    /// The target a symbolic link points to, byte for byte.
    ///
    /// - Parameter path: The link.
    /// - Returns: A promise for the target, as stored in the link.
    ///
    /// Corresponds to `readlink(2)`.
    public func readLink(_ path: FSPath) -> Promise<FSPath> {
        pool.run("readlink", path: path) { _ in try Sys.readLink(path) }
    }

    /// Creates a symbolic link at `path` pointing to `target`.
    ///
    /// - Parameters:
    ///   - path: Where to create the link.
    ///   - target: What it points to (stored as given, byte for byte; it need not exist).
    /// - Returns: A promise fulfilled once the link exists.
    ///
    /// Corresponds to `symlink(2)`.
    public func symlink(_ path: FSPath, to target: FSPath) -> Promise<Void> {
        pool.run("symlink", path: path, otherPath: target) { _ in try Sys.symlink(target: target, at: path) }
    }

    /// Opens a file for positional, sequential or chunked I/O.
    ///
    /// Opening never waits for the other end of a FIFO: one opened for reading opens at once
    /// (reads give end of file until a writer has it open); one opened for writing that no
    /// process reads rejects at once with `ENXIO` ("no such device or address").
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - options: How to open it; ``FSOpenOptions/read-swift.type.property`` by default.
    /// - Returns: A promise for the open file. Close it with ``FSFile/close()``.
    ///
    /// Corresponds to `open(2)`.
    public func open(_ path: FSPath, options: FSOpenOptions = .read) -> Promise<FSFile> {
        let pool = pool
        return pool.run("open", path: path) { _ in
            let flags = Sys.flags(
                read: options.read, write: options.write, create: options.create,
                truncate: options.truncate, append: options.append, exclusive: options.exclusive
            )
            let purpose = options.write ? (options.read ? "for reading and writing" : "for writing") : "for reading"
            let fd = try Sys.open(path, flags, mode: options.mode.rawValue, activity: "opening \(path) \(purpose)")
            return FSFile(fd: fd, path: path.description, pool: pool)
        }
    }
}

extension FileIOPool {
    /// ``run(_:path:otherPath:_:)`` for byte paths: a path holding a NUL byte is refused
    /// before the job is queued.
    func run<T: Sendable>(
        _ operation: String,
        path: FSPath,
        otherPath: FSPath? = nil,
        _ body: @escaping @Sendable (_ cancelled: CancelFlag) throws -> T
    ) -> Promise<T> {
        if let bad = path.containsNUL ? path : otherPath.flatMap({ $0.containsNUL ? $0 : nil }) {
            let promise = Promise<T>.pending(resolvedOn: nil)
            promise.reject(
                FSError(
                    .invalidArgument, operation: operation, path: bad,
                    activity: "\(operation) \(bad): the path contains a NUL byte, which would cut it short in the system call; refused"
                ))
            return promise
        }
        return run(operation, path: path.description, otherPath: otherPath?.description, body)
    }
}

extension PromiseFileSystem {
    /// The entries of a directory, sorted by path bytes, without `.` and `..`.
    ///
    /// - Parameters:
    ///   - path: The directory.
    ///   - recursive: Also list subdirectories' entries (as `sub/name`). Symbolic links are
    ///     listed, never followed.
    /// - Returns: A promise for the entries; each ``FSDirectoryEntry/path`` holds the name's
    ///   bytes, so `path.appending(entry.path)` opens it. Cancelling stops a recursive walk
    ///   between entries.
    ///
    /// Corresponds to `openat(2)` with `O_DIRECTORY`, `fdopendir(3)` and `readdir(3)`, descending
    /// by descriptor when recursive.
    public func listDirectory(_ path: FSPath, recursive: Bool = false) -> Promise<[FSDirectoryEntry]> {
        pool.run("list", path: path) { cancelled in try Tree.list(path, recursive: recursive, cancelled: cancelled) }
    }

    /// Creates a directory.
    ///
    /// - Parameters:
    ///   - path: The directory.
    ///   - recursive: Also create missing parents, and succeed if the directory exists. Where
    ///     a component exists and is not a directory, the error is the one `mkdir(2)` of
    ///     `path` gives: ``FSError/Code-swift.struct/fileExists`` for `path` itself (a dangling
    ///     link included), ``FSError/Code-swift.struct/notADirectory`` through a file.
    ///   - mode: Permission bits for what is created (the process umask applies).
    /// - Returns: A promise fulfilled once the directory exists.
    ///
    /// Corresponds to `mkdir(2)`, once per missing component when recursive.
    public func createDirectory(_ path: FSPath, recursive: Bool = false, mode: FSPermissions = 0o755) -> Promise<Void> {
        pool.run("mkdir", path: path) { _ in try Tree.createDirectory(path, recursive: recursive, mode: mode.rawValue) }
    }

    /// Removes a file, a symbolic link (not what it points to) or a directory.
    ///
    /// - Parameters:
    ///   - path: What to remove.
    ///   - recursive: Remove a non-empty directory and everything in it. The walk never
    ///     follows a symbolic link, so nothing outside the tree is touched.
    /// - Returns: A promise fulfilled once it is gone. Cancelling stops a recursive removal
    ///   between entries (what was removed stays removed).
    ///
    /// Corresponds to `unlink(2)` or `rmdir(2)`; recursive: `openat(2)`, `unlinkat(2)` by
    /// descriptor.
    public func remove(_ path: FSPath, recursive: Bool = false) -> Promise<Void> {
        pool.run("remove", path: path) { cancelled in try Tree.remove(path, recursive: recursive, cancelled: cancelled) }
    }

    /// Moves (renames) `from` to `to`, replacing a file at `to`. Across file systems, where
    /// `rename` cannot work, copies then removes the original; the copies keep the access and
    /// modification times of every file, directory and link, as a rename does.
    ///
    /// - Parameters:
    ///   - from: What to move.
    ///   - to: The new path.
    /// - Returns: A promise fulfilled once it has moved.
    ///
    /// Corresponds to `rename(2)`; across file systems, a copy (as `copy` makes, times kept) and a
    /// remove.
    public func move(_ from: FSPath, to: FSPath) -> Promise<Void> {
        pool.run("rename", path: from, otherPath: to) { cancelled in try Tree.move(from, to: to, cancelled: cancelled) }
    }

    /// Copies a file, a symbolic link (as a link) or, with `recursive`, a directory tree, to
    /// a path that must not exist yet; names and link targets are copied byte for byte. All
    /// or nothing, as the `String` form.
    ///
    /// - Parameters:
    ///   - from: What to copy.
    ///   - to: The new path; not inside `from`.
    ///   - recursive: Copy a directory and everything in it.
    /// - Returns: A promise fulfilled once the copy is complete. Cancelling stops between chunks
    ///   (and removes the partial copy).
    ///
    /// Corresponds to `openat(2)`, `read(2)`, `write(2)` and `fchmod(2)` per file, `mkdirat(2)` per
    /// directory, by descriptor.
    public func copy(_ from: FSPath, to: FSPath, recursive: Bool = false) -> Promise<Void> {
        pool.run("copy", path: from, otherPath: to) { cancelled in
            try Tree.copy(from, to: to, recursive: recursive, cancelled: cancelled)
        }
    }
}
