internal import PromiseSystem

/// Directory trees: listing, removal, copying. Walks go through directory descriptors with
/// `O_NOFOLLOW` (``DirectoryStack``), so a symbolic link inside a tree is listed, removed or
/// copied as a link and never followed out of the tree, and a tree of any depth is walked
/// with a bounded number of descriptors. Names are bytes (``FSPath``), never decoded.
enum Tree {
    static func list(_ path: FSPath, recursive: Bool, cancelled: CancelFlag) throws -> [FSDirectoryEntry] {
        let fd = try At.open(At.cwd, path, Sys.directoryFlags, path: path, activity: "opening the directory \(path)")
        let stack = try DirectoryStack(rootFD: fd, path: path)
        var result: [FSDirectoryEntry] = []
        var prefixes: [FSPath] = [FSPath(bytes: [])]
        try walk(
            stack, cancelled: cancelled,
            visit: { name, _, kind in
                result.append(FSDirectoryEntry(path: prefixes[prefixes.count - 1].appending(name), kind: kind))
                return recursive
            },
            enter: {
                prefixes.append(prefixes[prefixes.count - 1].appending(stack.name))
            },
            leave: { _, _ in
                prefixes.removeLast()
            })
        result.sort { $0.path.bytes.lexicographicallyPrecedes($1.path.bytes) }
        return result
    }

    /// Walks the tree below the directory `stack` is in, depth first. `visit` sees each
    /// entry (its name, whole path and kind, never following a link) while the stack is in
    /// the entry's directory, and returns whether to descend into it if it is a directory;
    /// `enter` runs once the stack is in such a directory, before its entries are read;
    /// `leave` once its entries are done and the stack is back in its parent.
    private static func walk(
        _ stack: DirectoryStack, cancelled: CancelFlag,
        visit: (_ name: FSPath, _ path: FSPath, _ kind: FSFileKind) throws -> Bool,
        enter: () throws -> Void = {},
        leave: (_ name: FSPath, _ path: FSPath) throws -> Void = { _, _ in }
    ) throws {
        var pending: [(entries: [(name: FSPath, kind: FSFileKind?)], next: Int)] = [
            (try At.entries(ofDirectoryFD: stack.fd, path: stack.path), 0)
        ]
        while let last = pending.indices.last {
            guard pending[last].next < pending[last].entries.count else {
                pending.removeLast()
                guard !pending.isEmpty else { return }
                let (name, path) = (stack.name, stack.path)
                try stack.pop()
                try leave(name, path)
                continue
            }
            let (name, reported) = pending[last].entries[pending[last].next]
            pending[last].next += 1
            try cancelled.check()
            let path = stack.path.appending(name)
            let kind = try reported ?? At.stat(stack.fd, name, path: path).kind
            if try visit(name, path, kind), kind == .directory {
                try stack.push(name)
                try enter()
                pending.append((try At.entries(ofDirectoryFD: stack.fd, path: stack.path), 0))
            }
        }
    }

    /// Removes `path`; a directory only when `recursive` is true (or it is empty).
    /// `makingWritable` gives each directory mode 0700 before emptying it: for removing a
    /// partial copy, whose read-only directories must not keep their entries in place.
    static func remove(_ path: FSPath, recursive: Bool, cancelled: CancelFlag, makingWritable: Bool = false) throws {
        guard let info = try At.statIfPresent(At.cwd, path, path: path) else {
            throw FSError(.noSuchFileOrDirectory, operation: "remove", path: path.description, activity: "removing \(path)")
        }
        guard info.kind == .directory else { return try At.unlink(At.cwd, path, directory: false, path: path) }
        if recursive {
            let stack = try DirectoryStack(rootFD: At.openDirectory(At.cwd, path, path: path), path: path)
            func makeWritable() { if makingWritable { try? At.fchmod(stack.fd, 0o700, path: stack.path) } }
            makeWritable()
            try walk(
                stack, cancelled: cancelled,
                visit: { name, childPath, kind in
                    if kind == .directory { return true }
                    try At.unlink(stack.fd, name, directory: false, path: childPath)
                    return false
                }, enter: makeWritable,
                leave: { name, childPath in
                    try At.unlink(stack.fd, name, directory: true, path: childPath)
                })
        }
        try At.unlink(At.cwd, path, directory: true, path: path)
    }

    static func createDirectory(_ path: FSPath, recursive: Bool, mode: UInt32) throws {
        // An empty path has no components to make: `mkdir("")` fails with ENOENT, as `mkdir -p ''` does.
        guard recursive, !path.bytes.isEmpty else { return try At.mkdir(At.cwd, path, mode, path: path) }
        var prefix: [UInt8] = path.bytes.first == FSPath.slash ? [FSPath.slash] : []
        for component in path.bytes.split(separator: FSPath.slash) {
            if !prefix.isEmpty, prefix.last != FSPath.slash { prefix.append(FSPath.slash) }
            prefix += component
            let current = FSPath(bytes: prefix)
            if let info = try At.statIfPresent(At.cwd, current, path: current) {
                if info.kind == .directory { continue }
                if info.kind == .symbolicLink,
                    (try? At.stat(At.cwd, current, followingLinks: true, path: current))?.kind == .directory
                {
                    continue
                }
                return try mkdirThroughNonDirectory(path, prefix: current, info: info, mode: mode)
            }
            do {
                try At.mkdir(At.cwd, current, mode, path: current)
            } catch {
                // `fileExists`: made by someone else meanwhile, which is as good.
                if error.code != .fileExists { throw error }
            }
        }
    }

    /// Copies `from` to `to`, which must not exist. Regular files keep their permission bits,
    /// symbolic links are copied as links, directories only when `recursive` is true.
    ///
    /// All or nothing: a copy that fails part-way (a full disk, an unreadable file, a
    /// cancellation) removes what it created, so `to` is either complete or absent.
    /// Directories stay 0700 until everything under them is in place and get their own modes
    /// as the walk leaves them; the cleanup makes them writable again before emptying them.
    ///
    /// `keepingTimes` gives every copy the access and modification times of what it copies,
    /// as a rename keeps them: each one's times are read before the copy reads it (reading a
    /// file, listing a directory or reading a link sets its access time), and set once the
    /// copy and everything under it is in place, so a directory's times are set after its
    /// entries are made.
    static func copy(_ from: FSPath, to: FSPath, recursive: Bool, keepingTimes: Bool = false, cancelled: CancelFlag) throws {
        let info = try At.stat(At.cwd, from, path: from)
        switch info.kind {
        case .regular:
            try copyFile(At.cwd, from, from: from, At.cwd, to, to: to, keepingTimes: keepingTimes, cancelled: cancelled)
        case .symbolicLink:
            try At.symlink(target: At.readLink(At.cwd, from, path: from), At.cwd, to, path: to)
            if keepingTimes { try At.setTimes(At.cwd, to, from: info, path: to) }
        case .directory:
            guard recursive else {
                throw FSError(
                    .isADirectory, operation: "copy", path: from.description,
                    activity: "copying \(from) (a directory; pass recursive: true)")
            }
            try copyTree(from, to: to, keepingTimes: keepingTimes, cancelled: cancelled)
        default:
            throw notCopyable(from, info.kind)
        }
    }

    private static func notCopyable(_ path: FSPath, _ kind: FSFileKind) -> FSError {
        FSError(
            .invalidArgument, operation: "copy", path: path.description,
            activity: "copying \(path) (a \(kind), which only regular files, links and directories can be)")
    }

    private static func copyTree(_ from: FSPath, to: FSPath, keepingTimes: Bool, cancelled: CancelFlag) throws {
        let source = try DirectoryStack(rootFD: At.openDirectory(At.cwd, from, path: from), path: from)
        let rootInfo = try At.fstat(source.fd, path: from)
        try refuseDestination(to, inside: rootInfo, from: from)
        try At.mkdir(At.cwd, to, 0o700, path: to)
        do {
            let target = try DirectoryStack(rootFD: At.openDirectory(At.cwd, to, path: to), path: to)
            var directories: [FSFileInfo] = []  // of the source directories the walk is in, below the root
            try walk(
                source, cancelled: cancelled,
                visit: { name, path, kind in
                    let targetPath = target.path.appending(name)
                    switch kind {
                    case .directory:
                        return true
                    case .regular:
                        try copyFile(
                            source.fd, name, from: path, target.fd, name, to: targetPath,
                            keepingTimes: keepingTimes, cancelled: cancelled)
                    case .symbolicLink:
                        let info = keepingTimes ? try At.stat(source.fd, name, path: path) : nil
                        try At.symlink(target: At.readLink(source.fd, name, path: path), target.fd, name, path: targetPath)
                        if let info { try At.setTimes(target.fd, name, from: info, path: targetPath) }
                    default:
                        throw notCopyable(path, kind)
                    }
                    return false
                },
                enter: {
                    directories.append(try At.fstat(source.fd, path: source.path))
                    let targetPath = target.path.appending(source.name)
                    try At.mkdir(target.fd, source.name, 0o700, path: targetPath)
                    try target.push(source.name)
                },
                leave: { _, _ in
                    let info = directories.removeLast()
                    try At.fchmod(target.fd, info.permissions.rawValue, path: target.path)
                    if keepingTimes { try At.setTimes(target.fd, from: info, path: target.path) }
                    try target.pop()
                })
            try At.fchmod(target.fd, rootInfo.permissions.rawValue, path: to)
            if keepingTimes { try At.setTimes(target.fd, from: rootInfo, path: to) }
        } catch {
            // Only the directory this copy made at `to` is removed: a `to` that already
            // existed failed the `mkdir` above.
            try? remove(to, recursive: true, cancelled: CancelFlag(), makingWritable: true)
            throw error
        }
    }

    /// Refuses a copy of the directory `source` (at `from`) to `to` when `to`'s parent is
    /// that directory or inside it: the copy would copy itself until names grew too long.
    /// Compares device and inode up the parent's chain of `..`, so every route to it counts
    /// (`a/../a/x`, a symbolic link to `a`). A parent that cannot be opened is left for the
    /// `mkdir` to report.
    private static func refuseDestination(_ to: FSPath, inside source: FSFileInfo, from: FSPath) throws {
        let parent = to.split.directory
        guard var current = try? At.open(At.cwd, parent, Sys.directoryFlags, path: parent, activity: "") else { return }
        defer { Sys.close(current) }
        var info = try At.fstat(current, path: parent)
        while true {
            if info.device == source.device, info.inode == source.inode {
                throw FSError(
                    .invalidArgument, operation: "copy", path: from.description,
                    activity: "copying \(from) to \(to) (\(to) is inside \(from), so the copy would copy itself; refused)")
            }
            let up = try At.openDirectory(current, "..", path: parent.appending(".."))
            let upInfo = try At.fstat(up, path: parent)
            Sys.close(current)
            current = up
            if upInfo.device == info.device, upInfo.inode == info.inode { return }
            info = upInfo
        }
    }

    static let copyChunk = 1 << 20

    /// Copies the regular file `name` in `sourceDir` to `targetName` in `targetDir`.
    private static func copyFile(
        _ sourceDir: Int32, _ name: FSPath, from: FSPath, _ targetDir: Int32, _ targetName: FSPath, to: FSPath,
        keepingTimes: Bool, cancelled: CancelFlag
    ) throws {
        let source = try At.open(sourceDir, name, At.readFileFlags, path: from, activity: "opening \(from) for reading")
        defer { Sys.close(source) }
        let info = try At.fstat(source, path: from)
        guard info.kind == .regular else { throw notCopyable(from, info.kind) }
        let target = try At.open(targetDir, targetName, At.createFileFlags, mode: 0o600, path: to, activity: "creating \(to)")
        var finished = false
        defer {
            Sys.close(target)
            if !finished { try? At.unlink(targetDir, targetName, directory: false, path: to) }
        }
        while true {
            try cancelled.check()
            let chunk = try Sys.read(source, count: copyChunk, offset: nil, path: from.description)
            if chunk.isEmpty { break }
            try Sys.write(target, chunk, offset: nil, path: to.description)
        }
        try At.fchmod(target, info.permissions.rawValue, path: to)
        if keepingTimes { try At.setTimes(target, from: info, path: to) }
        finished = true
    }

    /// Renames, or copies and removes when the two paths are on different file systems.
    ///
    /// The copy goes to a staging name next to `to` and is renamed into place, so `to` is
    /// replaced atomically as with a plain rename, and a failed copy removes only its own
    /// staging files, never what was at `to`. The copies keep the access and modification
    /// times of what they copy, as a rename does.
    static func move(_ from: FSPath, to: FSPath, cancelled: CancelFlag) throws {
        guard try !At.rename(At.cwd, from, At.cwd, to, crossDeviceIsFine: true) else { return }
        let (directory, name) = to.split
        let prefix = AdapterPaths.siblingPrefix(of: name.bytes, tag: ".move-", suffixLength: TemporaryName.suffixLength)
        let staging = directory.appending(FSPath(bytes: prefix + TemporaryName.suffix()))
        do {
            try copy(from, to: staging, recursive: true, keepingTimes: true, cancelled: cancelled)
            _ = try At.rename(At.cwd, staging, At.cwd, to)
        } catch {
            if (try? At.statIfPresent(At.cwd, staging, path: staging)) != nil {
                try? remove(staging, recursive: true, cancelled: CancelFlag(), makingWritable: true)
            }
            throw error
        }
        try remove(from, recursive: true, cancelled: cancelled)
    }
}
