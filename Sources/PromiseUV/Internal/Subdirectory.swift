internal import CUV
internal import Glibc

extension FileWatch {
    /// One directory below a recursive watch's directory: its `uv_fs_event_t`, where it is, and
    /// which directory it watches (loop thread only).
    ///
    /// The handle's `data` holds a reference to it from ``start(on:)`` until the handle's close
    /// callback, and it holds its watch, so events that libuv reads before the close still
    /// reach a live watch.
    final class Subdirectory {
        let watch: FileWatch
        /// The path relative to the watched directory.
        let relative: [UInt8]
        /// The path handed to `uv_fs_event_start`.
        let absolute: [UInt8]
        let handle: UnsafeMutablePointer<uv_fs_event_t>
        /// The directory inotify watches, recorded once the watch started.
        private(set) var identity: DirectoryIdentity?

        init(watch: FileWatch, relative: [UInt8], absolute: [UInt8]) {
            self.watch = watch
            self.relative = relative
            self.absolute = absolute
            handle = .allocate(capacity: 1)
        }

        /// Starts the handle on `loop`. On failure the handle is closed already.
        ///
        /// - Returns: `uv_fs_event_start`'s status.
        func start(on loop: UnsafeMutablePointer<uv_loop_t>) -> Int32 {
            uv_fs_event_init(loop, handle)  // cannot fail
            handle.pointee.data = Unmanaged.passRetained(self).toOpaque()
            let status = (absolute + [0]).withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { uv_fs_event_start(handle, Trampolines.subdirectoryEvent, $0.baseAddress, 0) }
            }
            if status != 0 { close() }
            return status
        }

        /// Closes the handle; its close callback releases this object and frees the handle.
        func close() {
            uv_close(FileWatch.asHandle(handle), Trampolines.subdirectoryClosed)
        }

        /// Records which directory is watched, after inotify took the watch. Returns false
        /// when it is gone already.
        func recordIdentity() -> Bool {
            identity = Self.identity(absolute)
            return identity != nil
        }

        /// Whether the path still names the directory the watch started on.
        var isStillThere: Bool {
            identity != nil && Self.identity(absolute) == identity
        }

        /// The identity of the directory at `absolute`; `nil` when nothing is there or it is
        /// not a directory (a symbolic link, even to a directory, is not followed).
        static func identity(_ absolute: [UInt8]) -> DirectoryIdentity? {
            var info = stat()
            let status = (absolute + [0]).withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { lstat($0.baseAddress!, &info) }
            }
            guard status == 0, info.st_mode & S_IFMT == S_IFDIR else { return nil }
            return DirectoryIdentity(device: UInt(info.st_dev), inode: UInt(info.st_ino))
        }
    }

    /// A directory's device and inode.
    struct DirectoryIdentity: Equatable {
        let device: UInt
        let inode: UInt
    }
}

/// The entries of one directory, read with `opendir` and `readdir`.
enum DirectoryListing {
    /// One entry: its name's bytes and whether it is a directory (not following a symbolic
    /// link).
    struct Entry {
        let name: [UInt8]
        let isDirectory: Bool
    }

    /// The entries of the directory at `absolute` other than `.` and `..`, or the `errno` that
    /// stopped the listing (0 when it completed).
    static func entries(of absolute: [UInt8]) -> (entries: [Entry], errno: Int32) {
        let path = absolute + [0]
        let opened = path.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { opendir($0.baseAddress!) }
        }
        guard let stream = opened else { return ([], errno) }
        defer { closedir(stream) }
        var entries: [Entry] = []
        while true {
            errno = 0
            guard let entry = readdir(stream) else { return (entries, errno) }
            let name = withUnsafeBytes(of: &entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            if name == [0x2E] || name == [0x2E, 0x2E] { continue }
            let isDirectory: Bool
            switch Int32(entry.pointee.d_type) {
            case Int32(DT_DIR): isDirectory = true
            case Int32(DT_UNKNOWN): isDirectory = FileWatch.Subdirectory.identity(absolute + [UInt8(ascii: "/")] + name) != nil
            default: isDirectory = false
            }
            entries.append(Entry(name: name, isDirectory: isDirectory))
        }
    }
}
