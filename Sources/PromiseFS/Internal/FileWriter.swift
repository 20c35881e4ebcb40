internal import PromiseSystem

/// Whole-file writes: the atomic replace and the in-place write.
enum FileWriter {
    /// Through ``AtomicFileReplacement``: a temporary file in the target's directory, written
    /// whole, given the old owner and mode, flushed, renamed, the directory flushed. The target
    /// holds the old contents or the new, never a mix.
    static func replaceAtomically(_ path: FSPath, _ bytes: some Collection<UInt8>, options: FSWriteOptions) throws {
        try refuseTrailingSlash(path)
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
        let replaced = existing.flatMap { info in
            info.kind == .regular
                ? AtomicFileReplacement.Existing.regularFile(owner: info.ownerID, group: info.groupID, permissions: info.permissions.rawValue)
                : nil
        }
        let replacement: AtomicFileReplacement
        do {
            replacement = try AtomicFileReplacement(target: path.bytes, replacing: replaced, tag: ".tmp-", newFileMode: (options.mode ?? 0o644).rawValue)
        } catch {
            throw FSError(FSError.Code(errno: error.code), operation: "open", path: path, activity: "creating a temporary file next to \(path)")
        }
        let temporary = FSPath(bytes: replacement.temporaryPath)
        do {
            try Sys.write(replacement.descriptor, bytes, offset: nil, path: temporary.description)
        } catch {
            replacement.discard()
            throw error
        }
        do {
            try replacement.commit(durable: options.durable, exclusive: options.exclusive)
        } catch {
            throw FSError(FSError.Code(errno: error.code), operation: error.call, path: path, activity: activity(error.step, path, temporary))
        }
    }

    /// What the atomic write was doing when `step` failed, for its error.
    private static func activity(_ step: AtomicFileReplacement.Failure.Step, _ path: FSPath, _ temporary: FSPath) -> String {
        switch step {
        case .inspect: "reading the attributes of \(path)"
        case .create: "creating a temporary file next to \(path)"
        case .keepOwner: "giving \(temporary) the owner of the file it replaces"
        case .keepMode: "changing the permissions of \(temporary)"
        case .flush: "flushing \(temporary) to disk"
        case .openDirectory: "opening the directory \(path.split.directory)"
        case .rename: "renaming \(temporary) to \(path)"
        case .link: "creating \(path)"
        case .flushDirectory: "flushing \(path.split.directory) to disk (\(path) is in place)"
        }
    }

    /// Truncates (or creates) the file and writes into it.
    static func writeInPlace(_ path: FSPath, _ bytes: some Collection<UInt8>, options: FSWriteOptions) throws {
        let flags = Sys.writeTruncateFlags | (options.exclusive ? Sys.exclusiveCreate : 0)
        let fd = try Sys.open(path, flags, mode: (options.mode ?? 0o644).rawValue, activity: "opening \(path) for writing")
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
