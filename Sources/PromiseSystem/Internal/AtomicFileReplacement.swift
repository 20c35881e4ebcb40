internal import Glibc

/// A file's new contents written beside it and moved over it in one `rename`, so that the
/// file holds either its old contents or the new, never a mix: `PromiseFS.writeFile` and
/// PromiseCurl's downloads both write through it.
///
/// 1. ``init(target:replacing:tag:newFileMode:)`` creates a temporary sibling, `.NAME` + tag +
///    14 characters, `O_EXCL | O_CLOEXEC`: mode 0600 when it replaces a regular file (no one
///    else may read the replacement before it has that file's owner and mode), `newFileMode`
///    less the umask otherwise.
/// 2. The caller writes the contents to ``descriptor``.
/// 3. ``commit(durable:exclusive:)`` gives the new file the replaced file's owner, group and
///    permission bits, flushes it (`fsync`), opens the directory, renames the file over the
///    target (or links it, for a target that must not exist yet), and flushes the directory.
///
/// Anything that fails before the rename removes the temporary file and leaves the target as
/// it was; so does ``discard()`` and a replacement released before its commit.
package final class AtomicFileReplacement {
    /// A system call that failed, and its `errno`.
    package struct Failure: Error, Sendable {
        /// The step that failed.
        package enum Step: Sendable {
            /// `lstat` of the target.
            case inspect
            /// `open` of the temporary file.
            case create
            /// `fchown` of the temporary file, to the replaced file's owner and group.
            case keepOwner
            /// `fchmod` of the temporary file, to the replaced file's permission bits.
            case keepMode
            /// `fsync` of the temporary file.
            case flush
            /// `open` of the directory, to flush it after the rename.
            case openDirectory
            /// `rename` over the target.
            case rename
            /// `link` at the target's name, which must not exist yet.
            case link
            /// `fsync` of the directory: the new file is in place, but a crash may lose it.
            case flushDirectory
        }

        /// The step that failed.
        package let step: Step
        /// The `errno` it left.
        package let code: Int32

        /// The failed system call's name: `open`, `fchmod`, `rename`, ….
        package var call: String {
            switch step {
            case .inspect: "lstat"
            case .create, .openDirectory: "open"
            case .keepOwner: "fchown"
            case .keepMode: "fchmod"
            case .flush, .flushDirectory: "fsync"
            case .rename: "rename"
            case .link: "link"
            }
        }
    }

    /// What stands at the target's name, as `lstat` saw it.
    package struct Existing: Sendable {
        /// The file type bits (`st_mode & S_IFMT`).
        package let type: UInt32
        /// The owner.
        package let owner: UInt32
        /// The group.
        package let group: UInt32
        /// The permission bits, set-user-ID, set-group-ID and sticky included (`st_mode & 07777`).
        package let permissions: UInt32

        /// A regular file: the replacement takes its owner and mode.
        package var isRegularFile: Bool { type == UInt32(S_IFREG) }
        /// A directory, which a file cannot replace.
        package var isDirectory: Bool { type == UInt32(S_IFDIR) }
        /// A symbolic link: the rename replaces the link itself, never what it points to.
        package var isSymbolicLink: Bool { type == UInt32(S_IFLNK) }

        /// Describes a file from its attributes.
        ///
        /// - Parameters:
        ///   - mode: `st_mode`.
        ///   - owner: `st_uid`.
        ///   - group: `st_gid`.
        package init(mode: UInt32, owner: UInt32, group: UInt32) {
            type = mode & UInt32(S_IFMT)
            permissions = mode & 0o7777
            self.owner = owner
            self.group = group
        }

        /// A regular file with this owner, group and permission bits.
        ///
        /// - Parameters:
        ///   - owner: `st_uid`.
        ///   - group: `st_gid`.
        ///   - permissions: `st_mode & 07777`.
        /// - Returns: The description.
        package static func regularFile(owner: UInt32, group: UInt32, permissions: UInt32) -> Existing {
            Existing(mode: UInt32(S_IFREG) | (permissions & 0o7777), owner: owner, group: group)
        }
    }

    /// `lstat` of `target`: what a replacement would replace, or `nil` when nothing is there.
    ///
    /// - Parameter target: The path, as bytes.
    /// - Returns: The file's type, owner and mode, or `nil` for `ENOENT`.
    /// - Throws: ``Failure`` at ``Failure/Step/inspect`` for any other error.
    package static func inspect(_ target: [UInt8]) throws(Failure) -> Existing? {
        var info = stat()
        let status = withCString(target) { path in SystemCall.retryingInterrupts { lstat(path, &info) } }
        if status == 0 { return Existing(mode: UInt32(info.st_mode), owner: info.st_uid, group: info.st_gid) }
        if errno == ENOENT { return nil }
        throw Failure(step: .inspect, code: errno)
    }

    /// The temporary file's descriptor, open for reading and writing; closed by the commit.
    package let descriptor: Int32
    /// The temporary file's path, as bytes.
    package let temporaryPath: [UInt8]
    /// The path the commit moves the file to, as bytes.
    package let target: [UInt8]
    private let directory: [UInt8]
    /// The regular file being replaced, whose owner and mode the new file takes.
    private let replaced: Existing?
    private var descriptorOpen = true
    private var placed = false

    /// Creates the temporary file in the target's directory.
    ///
    /// - Parameters:
    ///   - target: The file to replace or create, as bytes. Its name must not be empty.
    ///   - existing: What ``inspect(_:)`` found there; a regular file's owner and mode are kept.
    ///   - tag: What follows `.NAME` in the temporary file's name, such as `.tmp-`.
    ///   - newFileMode: The mode of a file that replaces no regular file (the umask applies).
    /// - Throws: ``Failure`` at ``Failure/Step/create``.
    package init(target: [UInt8], replacing existing: Existing?, tag: String, newFileMode: UInt32) throws(Failure) {
        let (directory, name) = AdapterPaths.split(target)
        let prefix = directory + [UInt8(ascii: "/")] + AdapterPaths.siblingPrefix(of: name, tag: tag, suffixLength: TemporaryName.suffixLength)
        let replaced = existing.flatMap { $0.isRegularFile ? $0 : nil }
        let mode = mode_t(replaced == nil ? newFileMode : 0o600)
        while true {
            let candidate = prefix + TemporaryName.suffix()
            let fd = Self.withCString(candidate) { path in SystemCall.retryingInterrupts { Glibc.open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode) } }
            if fd >= 0 {
                descriptor = fd
                temporaryPath = candidate
                break
            }
            if errno != EEXIST { throw Failure(step: .create, code: errno) }
        }
        self.target = target
        self.directory = directory
        self.replaced = replaced
    }

    /// Moves the written file into place (see the type's steps).
    ///
    /// - Parameters:
    ///   - durable: Flush the file before the rename and the directory after it, so that the
    ///     new contents survive a crash or a power loss once this returns.
    ///   - exclusive: Fail with `EEXIST` at ``Failure/Step/link`` when the target exists by
    ///     then (`link` refuses an existing name atomically, where a check before a rename
    ///     would race).
    /// - Throws: ``Failure``. Before the rename, the target is untouched and the temporary file
    ///   removed; at ``Failure/Step/flushDirectory`` the new file is already in place.
    package func commit(durable: Bool, exclusive: Bool = false) throws(Failure) {
        do throws(Failure) {
            if let replaced { try keepOwnerAndMode(of: replaced) }
            if durable, SystemCall.retryingInterrupts({ fsync(descriptor) }) != 0 { throw Failure(step: .flush, code: errno) }
        } catch {
            discard()
            throw error
        }
        // The directory is opened before the rename, so that running out of descriptors
        // (EMFILE) fails while the target is still untouched, not after it was replaced.
        var directoryFD: Int32 = -1
        if durable {
            directoryFD = Self.withCString(directory) { path in SystemCall.retryingInterrupts { Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) } }
            if directoryFD < 0 {
                let code = errno
                discard()
                throw Failure(step: .openDirectory, code: code)
            }
        }
        defer { if directoryFD >= 0 { _ = close(directoryFD) } }
        closeDescriptor()
        let moved = Self.withCString(temporaryPath) { from in
            Self.withCString(target) { to in SystemCall.retryingInterrupts { exclusive ? link(from, to) : rename(from, to) } }
        }
        guard moved == 0 else {
            let code = errno
            discard()
            throw Failure(step: exclusive ? .link : .rename, code: code)
        }
        if exclusive { _ = Self.withCString(temporaryPath) { unlink($0) } }
        placed = true
        if directoryFD >= 0, SystemCall.retryingInterrupts({ fsync(directoryFD) }) != 0 { throw Failure(step: .flushDirectory, code: errno) }
    }

    /// Closes and removes the temporary file; the target stays as it was. Does nothing once
    /// the file is in place.
    package func discard() {
        closeDescriptor()
        guard !placed else { return }
        placed = true
        _ = Self.withCString(temporaryPath) { unlink($0) }
    }

    deinit {
        discard()
    }

    private func closeDescriptor() {
        guard descriptorOpen else { return }
        descriptorOpen = false
        SystemCall.close(descriptor)
    }

    /// The replaced file's owner, group and permission bits. Where the owner cannot be given
    /// (`EPERM` or `EINVAL`: not privileged, or an owner outside this user namespace) the group
    /// alone is tried, then the writer's are kept, as `cp -p` does. The owner goes first:
    /// `fchown` clears the set-user-ID and set-group-ID bits, which `fchmod` then puts back.
    private func keepOwnerAndMode(of replaced: Existing) throws(Failure) {
        if SystemCall.retryingInterrupts({ fchown(descriptor, replaced.owner, replaced.group) }) != 0 {
            guard errno == EPERM || errno == EINVAL else { throw Failure(step: .keepOwner, code: errno) }
            _ = SystemCall.retryingInterrupts { fchown(descriptor, uid_t.max, replaced.group) }
        }
        guard SystemCall.retryingInterrupts({ fchmod(descriptor, mode_t(replaced.permissions)) }) == 0 else {
            throw Failure(step: .keepMode, code: errno)
        }
    }

    private static func withCString<R>(_ path: [UInt8], _ body: (UnsafePointer<CChar>) -> R) -> R {
        var terminated = path
        terminated.append(0)
        return terminated.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) }
        }
    }
}
