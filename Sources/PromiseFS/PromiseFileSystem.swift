/// Promise-returning file operations, each one job on a ``FileIOPool``.
///
/// ```swift
/// let fs = PromiseFileSystem()
/// fs.readText("config.json")
///     .then { text in try parse(text) }
///     .then { config in fs.writeFile("config.json", render(config)) }   // atomic by default
///     .catch { error in print(error) }   // FSError.noSuchFileOrDirectory (errno 2): no such file or directory opening config.json for reading
/// ```
///
/// Every operation resolves its promise from a pool thread; chain with `then(on:)` to choose
/// where your callbacks run (without `on:`, `Promises.defaultContext`). Cancelling a
/// promise before its job starts means the job never runs.
///
/// Safety defaults: every descriptor is opened `O_CLOEXEC`, `EINTR` is retried and short reads
/// and writes are looped, new files get mode 0644 unless you give one (the umask applies),
/// whole-file reads take a size cap, whole-file writes are atomic unless you ask otherwise,
/// no open waits for the other end of a FIFO (a whole-file read of one waits in steps that
/// cancellation stops), and a path holding a NUL
/// byte (which the C calls would cut short) is refused with ``FSError/Code-swift.struct/invalidArgument``.
public struct PromiseFileSystem: Sendable {
    /// The pool whose threads run the operations.
    public let pool: FileIOPool

    /// Creates a file system front end on `pool`.
    ///
    /// - Parameter pool: The threads to run operations on; ``FileIOPool/shared`` by default.
    public init(pool: FileIOPool = .shared) {
        self.pool = pool
    }

    /// The default cap of ``readFile(_:maxSize:)-(String,_)``: 256 MiB.
    public static let defaultMaxReadSize = 256 << 20

    // MARK: Whole files

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
    public func readFile(_ path: String, maxSize: Int = PromiseFileSystem.defaultMaxReadSize) -> Promise<[UInt8]> {
        readFile(FSPath(path), maxSize: maxSize)
    }

    /// Reads a whole file as UTF-8 text. Invalid UTF-8 rejects with
    /// ``FSError/Code-swift.struct/invalidUTF8``; nothing is replaced silently. Devices and
    /// FIFOs are read to their end, as with ``readFile(_:maxSize:)-(String,_)``.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - maxSize: The largest file to accept, in bytes.
    /// - Returns: A promise for the text.
    ///
    /// Corresponds to `open(2)`, `fstat(2)`, `read(2)` and `close(2)`, then a UTF-8 check.
    public func readText(_ path: String, maxSize: Int = PromiseFileSystem.defaultMaxReadSize) -> Promise<String> {
        readText(FSPath(path), maxSize: maxSize)
    }

    /// Writes a whole file; atomically and durably unless `options` says otherwise.
    ///
    /// An atomic write creates a temporary file in the target's directory, writes every byte,
    /// flushes it, renames it over the target and flushes the directory. A new file gets
    /// `options.mode` or 0644, the process umask applying. A replaced regular file's owner,
    /// group and permission bits are kept (the owner where the process may give it, as
    /// `cp -p`); the temporary file is 0600 until then. On any error the temporary file is
    /// removed and the target is untouched. A symbolic link at `path` is replaced by the new
    /// file, not written through: pass the link's target to update that.
    ///
    /// An atomic write refuses, with ``FSError/Code-swift.struct/invalidArgument``, to replace
    /// a FIFO, a device or a socket with a regular file; ``FSWriteOptions/inPlace`` writes into
    /// one. A path ending in `/` rejects as `open(2)` does (``FSError/Code-swift.struct/isADirectory``).
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
        _ path: String,
        _ bytes: some Collection<UInt8> & Sendable,
        options: FSWriteOptions = .atomic
    ) -> Promise<Void> {
        writeFile(FSPath(path), bytes, options: options)
    }

    /// Writes UTF-8 text to a whole file; see ``writeFile(_:_:options:)-(String,_,_)``.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - text: The new contents.
    ///   - options: How to write; ``FSWriteOptions/atomic-swift.type.property`` by default.
    /// - Returns: A promise fulfilled once the file is written.
    ///
    /// Corresponds to what `writeFile` does for its bytes.
    public func writeText(_ path: String, _ text: String, options: FSWriteOptions = .atomic) -> Promise<Void> {
        writeText(FSPath(path), text, options: options)
    }

    /// Appends bytes to a file, creating it (mode 0644, or `mode`) if needed.
    ///
    /// Like `write(2)` with `O_APPEND`, an append is not all-or-nothing: when the disk fills
    /// up part-way, the bytes that fit stay at the end of the file, and the rejection says how
    /// many: "no space left on device appending to log.jsonl (4096 of 10000 bytes were written
    /// before the error)". (Cutting them off again could cut off another writer's append that
    /// landed after them.) For all-or-nothing, rewrite the file with ``writeFile(_:_:options:)-(String,_,_)``.
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
        _ path: String,
        _ bytes: some Collection<UInt8> & Sendable,
        mode: FSPermissions = 0o644,
        durable: Bool = false
    ) -> Promise<Void> {
        appendFile(FSPath(path), bytes, mode: mode, durable: durable)
    }

    // MARK: Attributes

    /// The attributes of the file at `path`, following symbolic links.
    ///
    /// - Parameter path: The path.
    /// - Returns: A promise for the attributes.
    ///
    /// Corresponds to `stat(2)`.
    public func stat(_ path: String) -> Promise<FSFileInfo> {
        stat(FSPath(path))
    }

    /// The attributes of `path` itself: a symbolic link is reported as a link.
    ///
    /// - Parameter path: The path.
    /// - Returns: A promise for the attributes.
    ///
    /// Corresponds to `lstat(2)`.
    public func lstat(_ path: String) -> Promise<FSFileInfo> {
        lstat(FSPath(path))
    }

    /// Whether something exists at `path` (a dangling symbolic link counts).
    ///
    /// - Parameter path: The path.
    /// - Returns: A promise for the answer; other errors (`EACCES` on a parent) reject.
    ///
    /// Corresponds to `lstat(2)`.
    public func exists(_ path: String) -> Promise<Bool> {
        exists(FSPath(path))
    }

    /// Sets the permission bits of `path` (following symbolic links).
    ///
    /// - Parameters:
    ///   - path: The path.
    ///   - permissions: The bits, such as `0o640`.
    /// - Returns: A promise fulfilled once they are set.
    ///
    /// Corresponds to `chmod(2)`.
    public func setPermissions(_ path: String, _ permissions: FSPermissions) -> Promise<Void> {
        setPermissions(FSPath(path), permissions)
    }

    // MARK: Links

    /// The target a symbolic link points to.
    ///
    /// - Parameter path: The link.
    /// - Returns: A promise for the target, as stored in the link, as text: a byte that is not
    ///   UTF-8 shows as `\xFF` (``FSPath/description``). The ``FSPath`` form returns the bytes.
    ///
    /// Corresponds to `readlink(2)`.
    public func readLink(_ path: String) -> Promise<String> {
        readLink(FSPath(path)).then(on: .inline) { $0.description }
    }

    /// Creates a symbolic link at `path` pointing to `target`.
    ///
    /// - Parameters:
    ///   - path: Where to create the link.
    ///   - target: What it points to (stored as given; it need not exist).
    /// - Returns: A promise fulfilled once the link exists.
    ///
    /// Corresponds to `symlink(2)`.
    public func symlink(_ path: String, to target: String) -> Promise<Void> {
        symlink(FSPath(path), to: FSPath(target))
    }
}

extension PromiseFileSystem {
    /// Opens a file for positional, sequential or chunked I/O.
    ///
    /// Opening never waits for the other end of a FIFO: one opened for reading opens at once
    /// (reads give end of file until a writer has it open); one opened for writing that no
    /// process reads rejects at once with `ENXIO` ("no such device or address"). A pool thread
    /// waiting in `open(2)` could otherwise wait for good, beyond the reach of cancellation.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - options: How to open it; ``FSOpenOptions/read-swift.type.property`` by default.
    /// - Returns: A promise for the open file. Close it with ``FSFile/close()``.
    ///
    /// Corresponds to `open(2)`.
    public func open(_ path: String, options: FSOpenOptions = .read) -> Promise<FSFile> {
        open(FSPath(path), options: options)
    }
}
