internal import Glibc
internal import PromiseSystem

/// What a file watch gives inotify: always a directory. A directory is watched itself; any
/// other path is watched through its directory, keeping only the events of its name, so the
/// watch survives the file being replaced by a rename (inotify watches an inode, and an atomic
/// write puts a new inode at the name).
///
/// Stats the path on the calling thread (the loop thread): a path on a hung network file
/// system blocks the loop, as it would block `uv_fs_event_start` itself.
struct WatchTarget {
    /// The path the user gave.
    let path: String
    /// The directory handed to `uv_fs_event_start`.
    let directory: String
    /// The directory's last component: the name libuv reports for the directory's own events
    /// (removed, moved, its attributes changed).
    let directoryName: [UInt8]
    /// The watched file's name inside ``directory``, or `nil` when the path is the directory.
    let fileName: [UInt8]?
    /// The directory's device and inode when the watch started.
    private(set) var identity: (device: UInt, inode: UInt) = (0, 0)

    /// Resolves `path`. Returns the target, or the `errno` of `stat` and a sentence.
    static func resolve(_ path: String) -> Result<WatchTarget, WatchFailure> {
        if path.isEmpty {
            return .failure(WatchFailure(errno: EINVAL, detail: "the path to watch is empty"))
        }
        if AdapterPaths.containsNUL(path) {
            return .failure(WatchFailure(errno: EINVAL, detail: AdapterPaths.nulRefusal("path to watch", path)))
        }
        var info = stat()
        if stat(path, &info) != 0 {
            let code = errno
            let detail =
                code == ENOENT
                ? "there is no file or directory at '\(path)' to watch"
                : "cannot watch '\(path)': \(String(cString: strerror(code)))"
            return .failure(WatchFailure(errno: code, detail: detail))
        }
        if info.st_mode & S_IFMT == S_IFDIR {
            // Without trailing slashes: libuv names the directory's own events after the last
            // component of the path it was given, which a trailing slash would make empty.
            var bytes = Array(path.utf8)[...]
            while bytes.count > 1, bytes.last == UInt8(ascii: "/") { bytes = bytes.dropLast() }
            let (_, name) = AdapterPaths.split(bytes)
            return .success(
                WatchTarget(path: path, directory: String(decoding: bytes, as: UTF8.self), directoryName: name, fileName: nil))
        }
        let (directory, name) = AdapterPaths.split(Array(path.utf8))
        let (_, directoryName) = AdapterPaths.split(directory)
        return .success(
            WatchTarget(
                path: path, directory: String(decoding: directory, as: UTF8.self), directoryName: directoryName, fileName: name))
    }

    /// Records the watched directory's identity, after inotify took the watch (so a directory
    /// replaced in between is noticed). Returns false when it is gone already.
    mutating func recordIdentity() -> Bool {
        guard let current = currentIdentity() else { return false }
        identity = current
        return true
    }

    /// Whether ``directory`` still names the directory the watch started on.
    var directoryIsStillThere: Bool {
        currentIdentity().map { $0 == identity } ?? false
    }

    /// Whether an event named `name` may be the directory's own (removed, moved away): libuv
    /// gives those the directory's last component.
    func mayBeDirectoryEvent(_ name: [UInt8]) -> Bool {
        name == directoryName || name.isEmpty
    }

    /// Whether `name` is the watched file's (for a file watch) or an entry to report (for a
    /// directory watch: any name but a temporary sibling that an atomic write renames away).
    func reports(_ name: [UInt8]) -> Bool {
        if let fileName { return name == fileName }
        return !TemporarySibling.matches(name)
    }

    /// The path of the entry `name`: the watched path itself for a file watch.
    func entryPath(_ name: [UInt8]) -> String {
        if fileName != nil { return path }
        let separator = path.utf8.last == UInt8(ascii: "/") ? "" : "/"
        return path + separator + String(decoding: name, as: UTF8.self)
    }

    /// The path of the directory at `relative` below ``directory`` (``directory`` itself for
    /// the empty path), as bytes.
    func directoryBytes(_ relative: [UInt8]) -> [UInt8] {
        relative.isEmpty ? Array(directory.utf8) : Array(directory.utf8) + [UInt8(ascii: "/")] + relative
    }

    /// Whether the entry exists now (`lstat`: a symbolic link counts, wherever it points).
    func entryExists(_ name: [UInt8]) -> Bool {
        var info = stat()
        return lstat(entryPath(name), &info) == 0
    }

    private func currentIdentity() -> (device: UInt, inode: UInt)? {
        var info = stat()
        guard stat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return nil }
        return (UInt(info.st_dev), UInt(info.st_ino))
    }
}

/// Why a watch could not start: an `errno` and a sentence.
struct WatchFailure: Error {
    let errno: Int32
    let detail: String
}

/// The temporary files that this package's atomic writes create beside their target and
/// rename over it (`.NAME.tmp-` and 14 letters and digits for PromiseFS, `.download-` for
/// PromiseCurl's downloads): a directory watch leaves their events out, so that one atomic
/// write is one change, of the target's name.
enum TemporarySibling {
    /// The tags `AtomicFileReplacement` is given by the products that write through it.
    static let tags = [".tmp-", ".download-"]

    /// Whether `name` is `.` + something + a tag + ``TemporaryName/suffixLength`` characters
    /// of `[0-9a-z]`.
    static func matches(_ name: [UInt8]) -> Bool {
        let suffix = TemporaryName.suffixLength
        guard name.first == UInt8(ascii: "."), name.count > suffix + 2 else { return false }
        let tail = name.suffix(suffix)
        guard tail.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) }) else { return false }
        let head = name.dropLast(suffix)
        return tags.contains { tag in
            let bytes = Array(tag.utf8)
            return head.count > bytes.count + 1 && head.suffix(bytes.count).elementsEqual(bytes)
        }
    }
}
