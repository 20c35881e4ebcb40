extension PromiseFileSystem {
    /// The entries of a directory, sorted by path bytes, without `.` and `..`. Each entry's
    /// ``FSDirectoryEntry/path`` holds its name byte for byte, even one that is not UTF-8.
    ///
    /// - Parameters:
    ///   - path: The directory.
    ///   - recursive: Also list subdirectories' entries (as `sub/name`). Symbolic links are
    ///     listed, never followed.
    /// - Returns: A promise for the entries. Cancelling stops a recursive walk between entries.
    ///
    /// Corresponds to `openat(2)` with `O_DIRECTORY`, `fdopendir(3)` and `readdir(3)`, descending
    /// by descriptor when recursive.
    public func listDirectory(_ path: String, recursive: Bool = false) -> Promise<[FSDirectoryEntry]> {
        listDirectory(FSPath(path), recursive: recursive)
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
    public func createDirectory(_ path: String, recursive: Bool = false, mode: FSPermissions = 0o755) -> Promise<Void> {
        createDirectory(FSPath(path), recursive: recursive, mode: mode)
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
    public func remove(_ path: String, recursive: Bool = false) -> Promise<Void> {
        remove(FSPath(path), recursive: recursive)
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
    public func move(_ from: String, to: String) -> Promise<Void> {
        move(FSPath(from), to: FSPath(to))
    }

    /// Copies a file, a symbolic link (as a link) or, with `recursive`, a directory tree, to
    /// a path that must not exist yet. Regular files and directories keep their permission bits.
    ///
    /// All or nothing: a copy that fails part-way, on a full disk for example, or is cancelled,
    /// removes what it created, so `to` is either complete or absent. The walk never follows a
    /// symbolic link, so nothing outside the tree is read, and a destination inside `from`
    /// (by any route) is refused with ``FSError/Code-swift.struct/invalidArgument``.
    ///
    /// - Parameters:
    ///   - from: What to copy.
    ///   - to: The new path.
    ///   - recursive: Copy a directory and everything in it.
    /// - Returns: A promise fulfilled once the copy is complete. Cancelling stops between chunks
    ///   (and removes the partial copy).
    ///
    /// Corresponds to `openat(2)`, `read(2)`, `write(2)` and `fchmod(2)` per file, `mkdirat(2)` per
    /// directory, by descriptor.
    public func copy(_ from: String, to: String, recursive: Bool = false) -> Promise<Void> {
        copy(FSPath(from), to: FSPath(to), recursive: recursive)
    }

    /// Creates a new, empty directory (mode 0700) with a unique name in `$TMPDIR` (or `/tmp`).
    ///
    /// - Parameter prefix: The start of its name.
    /// - Returns: A promise for its path. Removing it is up to you.
    ///
    /// Corresponds to `mkdir(2)` with mode 0700 and a unique name (what `mkdtemp(3)` does).
    public func createTemporaryDirectory(prefix: String = "promisefs") -> Promise<String> {
        let template = "\(Sys.temporaryDirectory)/\(prefix)."
        return pool.run("mkdtemp", path: template) { _ in try Sys.makeTemporaryDirectory(template) }
    }
}
