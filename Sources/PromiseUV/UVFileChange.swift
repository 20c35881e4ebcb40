/// One change to a watched file, or to an entry of a watched directory, as
/// ``UVLoop/nextChange(of:recursive:keepsLoopAlive:)``, ``UVLoop/watchChanges(of:recursive:keepsLoopAlive:_:)``
/// and ``UVLoop/changes(of:recursive:keepsLoopAlive:)`` report it.
///
/// Linux (inotify, through libuv's `uv_fs_event`) says which name changed and whether its
/// contents or attributes changed (``Events-swift.struct/change``) or the name itself was
/// created, removed, renamed or replaced (``Events-swift.struct/rename``); it says neither
/// which of those renames it was nor what the other name of a rename is. ``exists`` tells a
/// removal from a creation or a replacement. Kernel events that arrive before the previous
/// change was delivered are merged into one change per name (``count`` says how many).
public struct UVFileChange: Hashable, Sendable, CustomStringConvertible {
    /// What happened to a name: libuv's `UV_CHANGE` and `UV_RENAME`, which are Node's
    /// `'change'` and `'rename'`.
    public struct Events: OptionSet, Hashable, Sendable, CustomStringConvertible {
        /// The bits.
        public let rawValue: UInt8

        /// Wraps bits.
        ///
        /// - Parameter rawValue: The bits.
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// Contents or attributes changed: a write, a truncation, `chmod`, `touch`
        /// (inotify's `IN_MODIFY` and `IN_ATTRIB`).
        public static let change = Events(rawValue: 1)
        /// The name was created, removed, renamed away or renamed into place (an atomic
        /// write replacing the file): inotify's `IN_CREATE`, `IN_DELETE`, `IN_MOVED_FROM`,
        /// `IN_MOVED_TO`.
        public static let rename = Events(rawValue: 2)

        /// `rename`, `change`, `rename+change`, or `none`.
        public var description: String {
            var kinds: [String] = []
            if contains(.rename) { kinds.append("rename") }
            if contains(.change) { kinds.append("change") }
            return kinds.isEmpty ? "none" : kinds.joined(separator: "+")
        }
    }

    /// The path that changed: the watched path itself for a file watch, the watched
    /// directory joined with ``name`` for an entry of a watched directory, and the watched
    /// directory when ``name`` is `nil`.
    public let path: String
    /// The changed entry's name inside its directory (for a file watch, the file's own
    /// name), decoded as UTF-8 (invalid bytes become U+FFFD). `nil` when the change stands for
    /// more entries than a watch keeps apart before they are delivered: list the directory
    /// again.
    public let name: String?
    /// What happened, merged over every kernel event in this change.
    public let events: Events
    /// How many kernel events were merged into this change; at least 1.
    public let count: Int
    /// Whether ``path`` existed when the last of those events was seen: `false` after a
    /// removal or a rename away, `true` after a creation, a replacement or a write.
    public let exists: Bool

    /// Creates a change, for tests of code that handles them.
    ///
    /// - Parameters:
    ///   - path: The path that changed.
    ///   - name: The entry's name, or `nil` for a change standing for many entries.
    ///   - events: What happened.
    ///   - count: How many kernel events it merges.
    ///   - exists: Whether the path existed after the last of them.
    public init(path: String, name: String?, events: Events, count: Int = 1, exists: Bool) {
        self.path = path
        self.name = name
        self.events = events
        self.count = count
        self.exists = exists
    }

    /// `rename /tmp/site/config.json (exists, 1 event)`.
    public var description: String {
        let what = events.description
        let many = name == nil ? " (many entries: list the directory again)" : ""
        return "\(what) \(path)\(many) (\(exists ? "exists" : "gone"), \(count) event\(count == 1 ? "" : "s"))"
    }

    /// This change with `later` merged in: both events, both counts, `later`'s ``exists``.
    func merging(_ later: UVFileChange) -> UVFileChange {
        UVFileChange(path: path, name: name, events: events.union(later.events), count: count + later.count, exists: later.exists)
    }
}
