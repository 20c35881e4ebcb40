internal import CUV
internal import Glibc
import PromiseCore
internal import Synchronization

/// One file watch: owns its `uv_fs_event_t`, filters and merges what libuv reports, and hands
/// the changes to its consumer (a promise, a callback or an asynchronous sequence) from the
/// loop thread's queue, after the poll that read them, so every event read in one pass is
/// merged before delivery.
///
/// `@unchecked Sendable`: other threads only set ``cancelled`` (atomic) and queue ``stop(_:)``
/// on the loop; everything else is read and written on the loop thread, or by the creating
/// thread before the loop ever saw the watch.
final class FileWatch: @unchecked Sendable {
    /// How a watch hands over its changes and its end, on the loop thread.
    struct Consumer {
        /// Takes changes (never empty); returns false when it wants no more (a promise of the
        /// next change got it).
        var deliver: ([UVFileChange]) -> Bool
        /// The watch ended: with the error, or `nil` when it was cancelled or its consumer
        /// wanted no more.
        var end: (UVError?) -> Void
    }

    let core: LoopCore
    let path: String
    /// The public method, for errors: `nextChange`, `watchChanges`, `changes`.
    let operation: String
    let keepsLoopAlive: Bool
    /// Set by ``cancel()`` on any thread; a watch that sees it before starting never starts.
    let cancelled = Atomic<Bool>(false)

    // Loop thread.
    private var consumer: Consumer?
    private var handle: UnsafeMutablePointer<uv_fs_event_t>?
    private var target: WatchTarget?
    private var waiting: ChangeCoalescer
    private var flushQueued = false
    /// How the watch ends once this poll's changes are delivered (its directory went away).
    private var pendingEnd: UVError?

    init(core: LoopCore, path: String, operation: String, keepsLoopAlive: Bool, consumer: Consumer) {
        self.core = core
        self.path = path
        self.operation = operation
        self.keepsLoopAlive = keepsLoopAlive
        self.consumer = consumer
        self.waiting = ChangeCoalescer(overflowPath: path)
    }

    var id: ObjectIdentifier { ObjectIdentifier(self) }

    /// Whether the watch has ended (loop thread).
    private var hasEnded: Bool { consumer == nil }

    // MARK: Starting and stopping

    /// Starts the watch from any thread: on the loop thread now, otherwise at its next turn.
    func submitStart() {
        if core.isOnLoopThread {
            start()
        } else if !core.submit(.user, { [self] in start() }) {
            finish(loopClosed("the UVLoop was shut down; start watches before calling shutdown()"))
        }
    }

    /// Loop thread: resolves the path, starts `uv_fs_event_start` on its directory.
    private func start() {
        guard !hasEnded else { return }
        if cancelled.load(ordering: .acquiring) { return finish(nil) }
        if core.isShuttingDown { return finish(loopClosed("the UVLoop was shut down before the watch started")) }
        var target: WatchTarget
        switch WatchTarget.resolve(path) {
        case .failure(let failure): return finish(error(errno: failure.errno, detail: failure.detail))
        case .success(let resolved): target = resolved
        }
        let handle = UnsafeMutablePointer<uv_fs_event_t>.allocate(capacity: 1)
        uv_fs_event_init(core.loop, handle)  // cannot fail
        handle.pointee.data = Unmanaged.passRetained(self).toOpaque()
        let status = uv_fs_event_start(handle, Trampolines.fileEvent, target.directory, 0)
        guard status == 0 else {
            uv_close(Self.asHandle(handle), Trampolines.fileWatchClosed)
            return finish(startError(status, target))
        }
        self.handle = handle
        if !keepsLoopAlive { uv_unref(Self.asHandle(handle)) }
        core.fileWatches[id] = self
        guard target.recordIdentity() else {
            return stop(error(errno: ENOENT, detail: "'\(target.directory)' was removed as the watch started"))
        }
        self.target = target
    }

    /// Cancels the watch from any thread: no change is delivered after the loop processed it
    /// (at once on the loop thread).
    func cancel() {
        guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if core.isOnLoopThread {
            stop(nil)
        } else {
            // Refused only once the loop is closed, and shutdown has ended every watch.
            _ = core.submit(.late) { [self] in stop(nil) }
        }
    }

    /// Loop thread: ends the watch, closing its handle, and tells the consumer: with `nil`
    /// (cancelled) at once; with an error after the changes that wait.
    func stop(_ error: UVError?) {
        guard !hasEnded else { return }
        closeHandle()
        if error != nil, let consumer, !waiting.isEmpty, !consumer.deliver(waiting.takeAll()) {
            return finish(nil)
        }
        finish(error)
    }

    private func closeHandle() {
        core.fileWatches[id] = nil
        if let handle {
            self.handle = nil
            uv_close(Self.asHandle(handle), Trampolines.fileWatchClosed)
        }
    }

    private func finish(_ error: UVError?) {
        guard let consumer else { return }
        self.consumer = nil
        _ = waiting.takeAll()
        consumer.end(error)
    }

    // MARK: Events

    /// The `uv_fs_event_t` callback (loop thread).
    func onEvent(name: UnsafePointer<CChar>?, events: Int32, status: Int32) {
        guard !hasEnded, let target else { return }
        if status < 0 {
            return endAfterDelivery(UVError(UVError.Code(uvCode: status), operation: operation, detail: "watching '\(path)'"))
        }
        let bytes =
            name.map { Array(UnsafeBufferPointer(start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self), count: strlen($0))) } ?? []
        if target.mayBeDirectoryEvent(bytes) {
            // Once the directory is known to be gone, its own last events (removed, ignored) say
            // nothing more; events of its entries read in the same pass are still delivered.
            if pendingEnd != nil { return }
            if !target.directoryIsStillThere {
                let what = target.fileName == nil ? "the watched directory" : "the directory of the watched file"
                return endAfterDelivery(
                    UVError(
                        .noSuchFileOrDirectory, operation: operation,
                        detail: "\(what), '\(target.directory)', was removed or moved away while watched; watch it again once it is back"))
            }
        }
        guard target.reports(bytes) else { return }
        var kinds: UVFileChange.Events = []
        if events & Int32(UV_CHANGE.rawValue) != 0 { kinds.insert(.change) }
        if events & Int32(UV_RENAME.rawValue) != 0 { kinds.insert(.rename) }
        let exists = kinds.contains(.rename) ? target.entryExists(bytes) : true
        // libuv names the directory's own attribute changes (`chmod` of the directory) after
        // the directory, as `change`, plus `rename` for inotify's IN_ISDIR bit: when no entry
        // has that name, that is what it was, and no entry changed.
        if kinds.contains(.change), target.mayBeDirectoryEvent(bytes), !target.entryExists(bytes) { return }
        let entryName = target.fileName == nil ? String(decoding: bytes, as: UTF8.self) : String(decoding: target.fileName!, as: UTF8.self)
        waiting.add(UVFileChange(path: target.entryPath(bytes), name: entryName, events: kinds, exists: exists))
        queueFlush()
    }

    /// Delivers what waits once the loop has finished this poll's events: the flush goes on
    /// the loop thread's queue, which runs at the next wake-up.
    private func queueFlush() {
        guard !flushQueued else { return }
        flushQueued = true
        if core.submit(.late, { [self] in flush() }) {
            core.wake()
        } else {
            flush()  // the loop is closing its last turn: deliver now
        }
    }

    /// Ends the watch with `error` once this poll's events are read and delivered: the handle
    /// stays open until then, so the events of the directory's entries that come with its
    /// removal (each entry removed) are reported first.
    private func endAfterDelivery(_ error: UVError) {
        guard pendingEnd == nil else { return }
        pendingEnd = error
        queueFlush()
    }

    private func flush() {
        flushQueued = false
        guard let consumer else { return }
        if !waiting.isEmpty, !consumer.deliver(waiting.takeAll()) { return stop(nil) }
        if let pendingEnd { stop(pendingEnd) }
    }

    // MARK: Errors

    private func loopClosed(_ detail: String) -> UVError {
        UVError(.loopClosed, operation: operation, detail: detail)
    }

    private func error(errno code: Int32, detail: String) -> UVError {
        UVError(UVError.Code(uvCode: -code), operation: operation, detail: detail)
    }

    /// `uv_fs_event_start`'s failure, with what the user can do about the inotify limits.
    private func startError(_ status: Int32, _ target: WatchTarget) -> UVError {
        let underlying = UVError(UVError.Code(uvCode: status), operation: "uv_fs_event_start", detail: "watching '\(target.directory)'")
        switch -status {
        case ENOSPC:
            return UVError(
                .watchLimitReached, operation: operation,
                detail:
                    "cannot watch '\(path)': this user's inotify watches are all taken (\(InotifyLimits.watchLimit())); stop other watches or raise the limit with sysctl fs.inotify.max_user_watches=N",
                underlying: underlying)
        case EMFILE:
            let limit = InotifyLimits.read("/proc/sys/fs/inotify/max_user_instances")
            return UVError(
                .tooManyOpenFiles, operation: operation,
                detail:
                    "cannot watch '\(path)': no inotify instance for this loop (fs.inotify.max_user_instances = \(limit), one per UVLoop that watches) or the process is out of descriptors",
                underlying: underlying)
        default:
            return UVError(UVError.Code(uvCode: status), operation: operation, detail: "cannot watch '\(target.directory)'", underlying: underlying)
        }
    }

    static func asHandle(_ handle: UnsafeMutablePointer<uv_fs_event_t>) -> UnsafeMutablePointer<uv_handle_t> {
        UnsafeMutableRawPointer(handle).assumingMemoryBound(to: uv_handle_t.self)
    }
}

/// The kernel's inotify limits, for error messages.
enum InotifyLimits {
    /// The watch limit that applies, worded for a message: the system's
    /// (`fs.inotify.max_user_watches`), or a user namespace's lower one.
    static func watchLimit() -> String {
        let system = read("/proc/sys/fs/inotify/max_user_watches")
        let namespace = read("/proc/sys/user/max_inotify_watches")
        if let own = Int(namespace), let whole = Int(system), own < whole {
            return "limit \(own) in this user namespace, /proc/sys/user/max_inotify_watches; fs.inotify.max_user_watches = \(whole)"
        }
        return "fs.inotify.max_user_watches = \(system)"
    }

    /// A `/proc/sys` file's first line, or `unknown`.
    static func read(_ path: String) -> String {
        guard let file = fopen(path, "re") else { return "unknown" }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 32)
        guard fgets(&buffer, 32, file) != nil else { return "unknown" }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.trimmingSuffix { $0 == "\n" }
    }
}

extension String {
    fileprivate func trimmingSuffix(while predicate: (Character) -> Bool) -> String {
        var text = self
        while let last = text.last, predicate(last) { text.removeLast() }
        return text
    }
}
