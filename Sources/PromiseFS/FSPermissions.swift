/// A file's permission bits, the low 12 bits of its mode: who may read, write and execute it,
/// and the set-user-ID, set-group-ID and sticky bits.
///
/// An option set, so permissions can be built and tested by name; an octal literal works
/// wherever permissions are expected:
///
/// ```swift
/// try await fs.writeText(path, secret, options: FSWriteOptions(mode: [.ownerRead, .ownerWrite])).get()
/// try await fs.setPermissions(path, 0o640).get()
/// if try await fs.stat(path).get().permissions.contains(.otherWrite) { print("world-writable") }
/// ```
public struct FSPermissions: OptionSet, Hashable, Sendable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// The bits, as in `st_mode & 07777`.
    public let rawValue: UInt32

    /// Permissions from mode bits; bits above `07777` (the file type) are dropped.
    ///
    /// - Parameter rawValue: The mode bits.
    public init(rawValue: UInt32) {
        self.rawValue = rawValue & 0o7777
    }

    /// Permissions from an octal literal, such as `0o644`.
    ///
    /// - Parameter value: The mode bits.
    public init(integerLiteral value: UInt32) {
        self.init(rawValue: value)
    }

    /// `S_IRUSR` (0o400).
    public static let ownerRead = FSPermissions(rawValue: 0o400)
    /// `S_IWUSR` (0o200).
    public static let ownerWrite = FSPermissions(rawValue: 0o200)
    /// `S_IXUSR` (0o100).
    public static let ownerExecute = FSPermissions(rawValue: 0o100)
    /// `S_IRGRP` (0o040).
    public static let groupRead = FSPermissions(rawValue: 0o040)
    /// `S_IWGRP` (0o020).
    public static let groupWrite = FSPermissions(rawValue: 0o020)
    /// `S_IXGRP` (0o010).
    public static let groupExecute = FSPermissions(rawValue: 0o010)
    /// `S_IROTH` (0o004).
    public static let otherRead = FSPermissions(rawValue: 0o004)
    /// `S_IWOTH` (0o002).
    public static let otherWrite = FSPermissions(rawValue: 0o002)
    /// `S_IXOTH` (0o001).
    public static let otherExecute = FSPermissions(rawValue: 0o001)
    /// `S_ISUID` (0o4000): run as the file's owner.
    public static let setUserID = FSPermissions(rawValue: 0o4000)
    /// `S_ISGID` (0o2000): run as the file's group; in a directory, new files take its group.
    public static let setGroupID = FSPermissions(rawValue: 0o2000)
    /// `S_ISVTX` (0o1000): in a directory, only a file's owner may remove or rename it.
    public static let sticky = FSPermissions(rawValue: 0o1000)

    /// `S_IRWXU` (0o700).
    public static let ownerAll: FSPermissions = [.ownerRead, .ownerWrite, .ownerExecute]
    /// `S_IRWXG` (0o070).
    public static let groupAll: FSPermissions = [.groupRead, .groupWrite, .groupExecute]
    /// `S_IRWXO` (0o007).
    public static let otherAll: FSPermissions = [.otherRead, .otherWrite, .otherExecute]

    /// The permissions as `ls -l` shows them, such as `rw-r--r--`, with `s`/`S` and `t`/`T` for
    /// the special bits.
    public var description: String {
        func triple(_ read: FSPermissions, _ write: FSPermissions, _ execute: FSPermissions, _ special: FSPermissions, _ mark: Character) -> String {
            let x: Character = contains(special) ? (contains(execute) ? mark : Character(mark.uppercased())) : (contains(execute) ? "x" : "-")
            return "\(contains(read) ? "r" : "-")\(contains(write) ? "w" : "-")\(x)"
        }
        return triple(.ownerRead, .ownerWrite, .ownerExecute, .setUserID, "s")
            + triple(.groupRead, .groupWrite, .groupExecute, .setGroupID, "s")
            + triple(.otherRead, .otherWrite, .otherExecute, .sticky, "t")
    }
}
