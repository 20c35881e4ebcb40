/// One entry of a directory listing.
public struct FSDirectoryEntry: Sendable, Hashable {
    /// The entry's path relative to the listed directory (`sub/file.txt` in a recursive
    /// listing), byte for byte: `listed.appending(entry.path)` opens the entry even when its
    /// name is not UTF-8.
    public var path: FSPath
    /// What kind of file it is. Symbolic links are reported as links, never followed.
    public var kind: FSFileKind

    /// The entry's path relative to the listed directory, for display: ``FSPath/description``
    /// of ``path``, so a byte that is not UTF-8 shows as `\xFF`. Such a string does not name
    /// the file; open entries through ``path``.
    public var relativePath: String {
        get { path.description }
        set { path = FSPath(newValue) }
    }

    /// Creates an entry.
    ///
    /// - Parameters:
    ///   - relativePath: The path relative to the listed directory.
    ///   - kind: The kind of file.
    public init(relativePath: String, kind: FSFileKind) {
        self.init(path: FSPath(relativePath), kind: kind)
    }

    /// Creates an entry from a byte-exact path.
    ///
    /// - Parameters:
    ///   - path: The path relative to the listed directory.
    ///   - kind: The kind of file.
    public init(path: FSPath, kind: FSFileKind) {
        self.path = path
        self.kind = kind
    }
}
