/// Whole-file writes: the atomic replace and the in-place write.
enum FileWriter {
    /// Temp file in the target's directory, write all, keep the old owner and mode, fsync, rename,
    /// fsync the directory. The target holds the old contents or the new, never a mix.
    static func replaceAtomically(_ path: FSPath, _ bytes: some Collection<UInt8>, options: WriteOptions) throws {
        try refuseTrailingSlash(path)
        let (directory, name) = split(path)
        let existing = try Sys.lstatIfPresent(path)
        if let existing {
            if options.exclusive {
                throw FSError(.fileExists, operation: "write", path: path, activity: "creating \(path)")
            }
            if existing.kind == .directory {
                throw FSError(.isADirectory, operation: "write", path: path, activity: "writing \(path)")
            }
            try refuseToReplace(existing, at: path)
        }
        let prefix = name.siblingPrefix(tag: ".tmp-", suffixLength: Sys.uniqueSuffixLength)
        // A new file is created with its final mode, the umask applying; a replacement stays
        // 0600 until it has the replaced file's owner and mode.
        let replaced = existing.flatMap { $0.kind == .regular ? $0 : nil }
        let createMode = replaced == nil ? options.mode ?? 0o644 : 0o600
        let (fd, temporary) = try Sys.makeTemporaryFile(directory.appending(prefix), target: path, mode: createMode)
        var renamed = false
        defer {
            Sys.close(fd)
            if !renamed { try? Sys.unlink(temporary) }
        }
        try Sys.write(fd, bytes, offset: nil, path: temporary)
        if let replaced { try keepOwnerAndMode(fd, of: replaced, path: temporary) }
        if options.durable { try Sys.fsync(fd, path: temporary) }
        // The directory is opened before the rename, so that running out of descriptors
        // (EMFILE) fails the write while the target is still untouched, not after it was
        // replaced.
        let dirFD = options.durable ? try Sys.openDirectory(directory) : -1
        defer { if dirFD >= 0 { Sys.close(dirFD) } }
        if options.exclusive {
            // link(2) refuses an existing name atomically, where a check before rename would race.
            try Sys.link(temporary, path)
            try? Sys.unlink(temporary)
        } else {
            try Sys.rename(temporary, path)
        }
        renamed = true
        if options.durable { try Sys.fsync(dirFD, path: directory) }
    }

    /// Truncates (or creates) the file and writes into it.
    static func writeInPlace(_ path: FSPath, _ bytes: some Collection<UInt8>, options: WriteOptions) throws {
        let flags = Sys.writeTruncateFlags | (options.exclusive ? Sys.exclusiveCreate : 0)
        let fd = try Sys.open(path, flags, mode: options.mode ?? 0o644, activity: "opening \(path) for writing")
        defer { Sys.close(fd) }
        try Sys.write(fd, bytes, offset: nil, path: path)
        if options.durable { try Sys.fsync(fd, path: path) }
    }

    /// The directory part (`.` when there is none) and the last component of `path`.
    static func split(_ path: FSPath) -> (directory: FSPath, name: FSPath) {
        path.split
    }

    /// ``split(_:)`` of a string path, through the same byte split (the `paths` fuzz target
    /// checks it). Splitting UTF-8 at `/` bytes leaves both parts valid UTF-8.
    static func split(_ path: String) -> (directory: String, name: String) {
        let (directory, name) = FSPath(path).split
        return (String(decoding: directory.bytes, as: UTF8.self), String(decoding: name.bytes, as: UTF8.self))
    }
}
