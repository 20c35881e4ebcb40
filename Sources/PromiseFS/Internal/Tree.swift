/// Directory trees: listing, removal, copying. Walks go through directory descriptors with
/// `O_NOFOLLOW`, so a symbolic link inside a tree is listed, removed or copied as a link and
/// never followed out of the tree.
enum Tree {
    static func list(_ path: String, recursive: Bool, cancelled: CancelFlag) throws -> [DirectoryEntry] {
        var result: [DirectoryEntry] = []
        let fd = try Sys.openDirectory(path)
        try list(fd: fd, path: path, prefix: "", recursive: recursive, into: &result, cancelled: cancelled)
        result.sort { $0.relativePath < $1.relativePath }
        return result
    }

    /// Calls `visit` for each entry of the directory open as `fd` (taken over and closed),
    /// with the entry's kind (never following a link) and a descriptor of the directory to
    /// open or remove the entry relative to.
    private static func forEachEntry(
        ofDirectoryFD fd: Int32, path: String, cancelled: CancelFlag,
        _ visit: (_ name: String, _ childPath: String, _ kind: FileKind, _ directoryFD: Int32) throws -> Void
    ) throws {
        // A second descriptor of the same directory: the first is consumed by the listing.
        let walker = try Sys.duplicate(consumingOnFailure: fd, path: path)
        defer { Sys.close(walker) }
        for (name, reported) in try Sys.entries(ofDirectoryFD: fd, path: path) {
            try cancelled.check()
            let childPath = "\(path)/\(name)"
            try visit(name, childPath, try reported ?? Sys.kind(at: walker, name, path: childPath), walker)
        }
    }

    /// Lists the directory open as `fd` (taken over and closed).
    private static func list(
        fd: Int32, path: String, prefix: String, recursive: Bool,
        into result: inout [DirectoryEntry], cancelled: CancelFlag
    ) throws {
        try forEachEntry(ofDirectoryFD: fd, path: path, cancelled: cancelled) { name, childPath, kind, directoryFD in
            result.append(DirectoryEntry(relativePath: prefix + name, kind: kind))
            if recursive, kind == .directory {
                let child = try Sys.openNoFollow(directoryFD, name, Sys.directoryFlags, path: childPath)
                try list(fd: child, path: childPath, prefix: "\(prefix)\(name)/", recursive: true, into: &result, cancelled: cancelled)
            }
        }
    }

    /// Removes `path`; a directory only when `recursive` is true (or it is empty).
    static func remove(_ path: String, recursive: Bool, cancelled: CancelFlag) throws {
        guard let info = try Sys.lstatIfPresent(path) else {
            throw FSError(.noSuchFileOrDirectory, operation: "remove", path: path, activity: "removing \(path)")
        }
        guard info.kind == .directory else { return try Sys.unlink(path) }
        if recursive {
            let fd = try Sys.openDirectory(path, followingLinks: false)
            try emptyDirectory(fd: fd, path: path, cancelled: cancelled)
        }
        try Sys.rmdir(path)
    }

    /// Removes everything inside the directory open as `fd` (taken over and closed).
    private static func emptyDirectory(fd: Int32, path: String, cancelled: CancelFlag) throws {
        try forEachEntry(ofDirectoryFD: fd, path: path, cancelled: cancelled) { name, childPath, kind, directoryFD in
            if kind == .directory {
                let child = try Sys.openNoFollow(directoryFD, name, Sys.directoryFlags, path: childPath)
                try emptyDirectory(fd: child, path: childPath, cancelled: cancelled)
            }
            try Sys.unlinkAt(directoryFD, name, directory: kind == .directory, path: childPath)
        }
    }

    static func createDirectory(_ path: String, recursive: Bool, mode: UInt32) throws {
        guard recursive else { return try Sys.mkdir(path, mode) }
        var prefix = path.utf8.first == UInt8(ascii: "/") ? "/" : ""
        for component in AdapterPaths.components(path) {
            prefix += prefix.isEmpty || prefix.utf8.last == UInt8(ascii: "/") ? component : "/" + component
            if let info = try Sys.lstatIfPresent(prefix) {
                if info.kind == .directory { continue }
                if info.kind == .symbolicLink, (try? Sys.stat(prefix, followingLinks: true))?.kind == .directory { continue }
                return try mkdirThroughNonDirectory(path, prefix: prefix, info: info, mode: mode)
            }
            // `false`: made by someone else meanwhile, which is as good.
            _ = try Sys.mkdir(prefix, mode, existingIsFine: true)
        }
    }

    /// Copies `from` to `to`, which must not exist. Regular files keep their permission bits,
    /// symbolic links are copied as links, directories only when `recursive` is true.
    ///
    /// All or nothing: a copy that fails part-way (a full disk, an unreadable file, a
    /// cancellation) removes what it created, so `to` is either complete or absent. Directories
    /// stay 0700 until everything under them is in place and get their own modes last, deepest
    /// first, so that a read-only directory cannot keep the cleanup from removing its entries.
    static func copy(_ from: String, to: String, recursive: Bool, cancelled: CancelFlag) throws {
        var directories: [(path: String, mode: UInt32)] = []
        do {
            try copyEntry(from, to: to, recursive: recursive, cancelled: cancelled, directories: &directories)
            for directory in directories.reversed() { try Sys.chmod(directory.path, directory.mode) }
        } catch {
            // Only a directory this copy made at `to` is removed: a `to` that already existed
            // failed the `mkdir`, and a file copy cleans up after itself.
            if directories.first?.path == to {
                try? remove(to, recursive: true, cancelled: CancelFlag())
            }
            throw error
        }
    }

    private static func copyEntry(
        _ from: String, to: String, recursive: Bool, cancelled: CancelFlag, directories: inout [(path: String, mode: UInt32)]
    ) throws {
        let info = try Sys.stat(from, followingLinks: false)
        switch info.kind {
        case .regular:
            try copyFile(from, to: to, mode: info.permissions, cancelled: cancelled)
        case .symbolicLink:
            try Sys.symlink(target: Sys.readLink(from), at: to)
        case .directory:
            guard recursive else {
                throw FSError(.isADirectory, operation: "copy", path: from,
                              activity: "copying \(from) (a directory; pass recursive: true)")
            }
            try Sys.mkdir(to, 0o700)
            directories.append((to, info.permissions))
            for entry in try list(from, recursive: false, cancelled: cancelled) {
                try cancelled.check()
                try copyEntry("\(from)/\(entry.relativePath)", to: "\(to)/\(entry.relativePath)", recursive: true,
                              cancelled: cancelled, directories: &directories)
            }
        default:
            throw FSError(.invalidArgument, operation: "copy", path: from,
                          activity: "copying \(from) (a \(info.kind), which only regular files, links and directories can be)")
        }
    }

    static let copyChunk = 1 << 20

    private static func copyFile(_ from: String, to: String, mode: UInt32, cancelled: CancelFlag) throws {
        let source = try Sys.open(from, Sys.readOnly, activity: "opening \(from) for reading")
        defer { Sys.close(source) }
        let target = try Sys.open(to, Sys.writeTruncateFlags | Sys.exclusiveCreate, mode: 0o600, activity: "creating \(to)")
        var finished = false
        defer {
            Sys.close(target)
            if !finished { try? Sys.unlink(to) }
        }
        while true {
            try cancelled.check()
            let chunk = try Sys.read(source, count: copyChunk, offset: nil, path: from)
            if chunk.isEmpty { break }
            try Sys.write(target, chunk, offset: nil, path: to)
        }
        try Sys.fchmod(target, mode, path: to)
        finished = true
    }

    /// Renames, or copies and removes when the two paths are on different file systems.
    ///
    /// The copy goes to a staging name next to `to` and is renamed into place, so `to` is
    /// replaced atomically as with a plain rename, and a failed copy removes only its own
    /// staging files, never what was at `to`.
    static func move(_ from: String, to: String, cancelled: CancelFlag) throws {
        guard try !Sys.rename(from, to, crossDeviceIsFine: true) else { return }
        let (directory, name) = FileWriter.split(to)
        let staging = Sys.uniqueName("\(directory)/" + AdapterPaths.siblingPrefix(of: name, tag: ".move-", suffixLength: Sys.uniqueSuffixLength))
        do {
            let times = try self.times(under: from, cancelled: cancelled)  // before the copy reads them
            try copy(from, to: staging, recursive: true, cancelled: cancelled)
            try setTimes(times, under: staging)
            try Sys.rename(staging, to)
        } catch {
            if (try? Sys.lstatIfPresent(staging)) != nil {
                try? remove(staging, recursive: true, cancelled: CancelFlag())
            }
            throw error
        }
        try remove(from, recursive: true, cancelled: cancelled)
    }
}
