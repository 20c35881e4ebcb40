/// The directories a recursive watch holds below the watched one, each with what watches it,
/// by path relative to the watched directory (bytes, `/`-separated, no leading or trailing
/// slash; the watched directory itself is the empty path and is not held here).
///
/// Pure: no libuv, no file system. ``FileWatch`` asks it whether a directory is watched and
/// what to stop when a directory goes away; removing one removes everything below it, in
/// time proportional to what is removed, so deleting a tree of many directories one by one
/// stays linear.
struct WatchTree<Watch> {
    private var watches: [[UInt8]: Watch] = [:]
    /// The names of each directory's watched subdirectories, by the directory's path (the
    /// empty path for the watched directory).
    private var children: [[UInt8]: Set<[UInt8]>] = [:]

    /// How many directories are held.
    var count: Int { watches.count }

    /// What watches the directory at `relative`, if it is held.
    func watch(at relative: [UInt8]) -> Watch? {
        watches[relative]
    }

    /// Holds `watch` for the directory at `relative` (not empty), whose parent is the watched
    /// directory or held already.
    ///
    /// - Returns: `false`, changing nothing, when the directory is held already.
    mutating func insert(_ watch: Watch, at relative: [UInt8]) -> Bool {
        precondition(!relative.isEmpty, "the watched directory itself is not part of its tree")
        guard watches[relative] == nil else { return false }
        let (parent, name) = Self.split(relative)
        precondition(parent.isEmpty || watches[parent] != nil, "a directory is watched before its parent")
        watches[relative] = watch
        children[parent, default: []].insert(name)
        return true
    }

    /// Stops holding the directory at `relative` and every directory below it.
    ///
    /// - Returns: What watched them, parents before their children; empty when the directory
    ///   was not held.
    mutating func removeSubtree(at relative: [UInt8]) -> [Watch] {
        guard let top = watches.removeValue(forKey: relative) else { return [] }
        let (parent, name) = Self.split(relative)
        children[parent]?.remove(name)
        if children[parent]?.isEmpty == true { children[parent] = nil }
        var removed = [top]
        var pending = [relative]
        while let directory = pending.popLast() {
            for child in children.removeValue(forKey: directory) ?? [] {
                let path = Self.path(of: child, in: directory)
                if let watch = watches.removeValue(forKey: path) { removed.append(watch) }
                pending.append(path)
            }
        }
        return removed
    }

    /// Stops holding every directory.
    ///
    /// - Returns: What watched them, in no particular order.
    mutating func removeAll() -> [Watch] {
        defer {
            watches = [:]
            children = [:]
        }
        return Array(watches.values)
    }

    /// The path of the entry `name` of the directory at `directory`.
    static func path(of name: [UInt8], in directory: [UInt8]) -> [UInt8] {
        directory.isEmpty ? name : directory + [UInt8(ascii: "/")] + name
    }

    /// `relative` split at its last slash: the parent's path (empty for an entry of the
    /// watched directory) and the last name.
    static func split(_ relative: [UInt8]) -> (parent: [UInt8], name: [UInt8]) {
        guard let slash = relative.lastIndex(of: UInt8(ascii: "/")) else { return ([], relative) }
        return (Array(relative[..<slash]), Array(relative[(slash + 1)...]))
    }
}
