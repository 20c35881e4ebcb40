/// How ``PromiseFileSystem/writeFile(_:_:options:)-(String,_,_)`` writes a whole file.
public struct FSWriteOptions: Sendable, Hashable {
    /// Replace the file atomically: write a temporary file in the same directory, flush it,
    /// rename it over the target and flush the directory. Readers see the old contents or the
    /// new, never a mix, and a crash leaves one or the other. On by default.
    public var atomic: Bool
    /// Flush to disk (`fsync`) before returning. On by default; off trades durability after
    /// a power loss for speed (an atomic write is then still never torn by a crash of the
    /// process, only by a crash of the machine).
    public var durable: Bool
    /// Permission bits for a new file; `nil` means 0644. The process umask applies. An atomic
    /// replace keeps the replaced file's bits instead.
    public var mode: FSPermissions?
    /// Fail with ``FSError/Code-swift.struct/fileExists`` if the target exists.
    public var exclusive: Bool

    /// Creates options.
    ///
    /// - Parameters:
    ///   - atomic: Replace the file atomically (default `true`).
    ///   - durable: Flush to disk before returning (default `true`).
    ///   - mode: Permission bits for a new file (default 0644; the umask applies).
    ///   - exclusive: Fail if the file exists (default `false`).
    public init(atomic: Bool = true, durable: Bool = true, mode: FSPermissions? = nil, exclusive: Bool = false) {
        self.atomic = atomic
        self.durable = durable
        self.mode = mode
        self.exclusive = exclusive
    }

    /// Atomic and durable: the default.
    public static let atomic = FSWriteOptions()
    /// Truncate and write in place (Node's `writeFile`): a crash can leave a partial file.
    public static let inPlace = FSWriteOptions(atomic: false, durable: false)
}
