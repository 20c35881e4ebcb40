internal import CUV
internal import Glibc
import PromiseCore
internal import Synchronization

/// One file watch: owns its `uv_fs_event_t`, filters and merges what libuv reports, and hands
/// the changes to its consumer (a promise, a callback or an asynchronous sequence) from the
/// loop thread's queue, after the poll that read them, so every event read in one pass is
/// merged before delivery.
///
/// A recursive watch of a directory also owns one `uv_fs_event_t` per directory below it
/// (``Subdirectory``, held in a ``WatchTree``; inotify watches one directory per watch): it
/// starts them when it starts, watches a directory that appears (created or moved in) before
/// listing it, reporting what it already holds as created, and stops the watches of one that
/// goes away.
///
/// Not `Sendable`: it lives on the loop thread. Other threads hold a ``FileWatchHandle``,
/// which starts and cancels it there through a checked ``LoopOwned``.
final class FileWatch {
    /// How a watch hands over its changes and its end, on the loop thread (or, for a watch
    /// the loop never took, `end` on the thread that made it).
    struct Consumer: Sendable {
        /// Takes changes (never empty); returns false when it wants no more (a promise of the
        /// next change got it).
        var deliver: @Sendable ([UVFileChange]) -> Bool
        /// The watch ended: with the error, or `nil` when it was cancelled or its consumer
        /// wanted no more.
        var end: @Sendable (UVError?) -> Void
    }

    /// Set once, from any thread, when the watch is cancelled: a watch that sees it before
    /// starting never starts.
    final class Cancellation: Sendable {
        let requested = Atomic<Bool>(false)
    }

    let core: LoopCore
    let path: String
    /// The public method, for errors: `nextChange`, `watchChanges`, `changes`.
    let operation: String
    let keepsLoopAlive: Bool
    /// Whether a directory's subdirectories are watched too, at every depth.
    let recursive: Bool
    private let cancellation: Cancellation

    private var machine = FileWatchStateMachine<UVError>()
    /// Released once the watch has ended and told it.
    private var consumer: Consumer?
    private var handle: UnsafeMutablePointer<uv_fs_event_t>?
    private var target: WatchTarget?
    private var waiting: ChangeCoalescer
    /// A recursive watch's directories below the watched one.
    private var tree = WatchTree<Subdirectory>()

    init(
        core: LoopCore, path: String, operation: String, keepsLoopAlive: Bool, recursive: Bool, cancellation: Cancellation,
        consumer: Consumer
    ) {
        self.core = core
        self.cancellation = cancellation
        self.path = path
        self.operation = operation
        self.keepsLoopAlive = keepsLoopAlive
        self.recursive = recursive
        self.consumer = consumer
        self.waiting = ChangeCoalescer(overflowPath: path)
    }

    var id: ObjectIdentifier { ObjectIdentifier(self) }

    // MARK: Starting and stopping

    /// Loop thread: resolves the path, starts `uv_fs_event_start` on its directory.
    func start() {
        switch machine.startRequested(cancelled: cancellation.requested.load(ordering: .acquiring), loopShuttingDown: core.isShuttingDown) {
        case .start: break
        case .endCancelled: return tellConsumer(nil)
        case .endShutDown: return tellConsumer(loopClosed("the UVLoop was shut down before the watch started"))
        case .none: return
        }
        var target: WatchTarget
        switch WatchTarget.resolve(path) {
        case .failure(let failure):
            machine.startFailed()
            return tellConsumer(error(errno: failure.errno, detail: failure.detail))
        case .success(let resolved):
            target = resolved
        }
        let handle = UnsafeMutablePointer<uv_fs_event_t>.allocate(capacity: 1)
        uv_fs_event_init(core.loop, handle)  // cannot fail
        handle.pointee.data = Unmanaged.passRetained(self).toOpaque()
        let status = uv_fs_event_start(handle, Trampolines.fileEvent, target.directory, 0)
        guard status == 0 else {
            uv_close(Self.asHandle(handle), Trampolines.fileWatchClosed)
            machine.startFailed()
            return tellConsumer(startError(status, target))
        }
        machine.started()
        self.handle = handle
        if !keepsLoopAlive { uv_unref(Self.asHandle(handle)) }
        core.fileWatches[id] = self
        guard target.recordIdentity() else {
            return stop(error(errno: ENOENT, detail: "'\(target.directory)' was removed as the watch started"))
        }
        self.target = target
        if recursive, target.fileName == nil, let failure = watchSubdirectories(below: [], reportingEntries: false) {
            stop(failure)
        }
    }

    /// Loop thread: ends the watch, closing its handle, and tells the consumer: with `nil`
    /// (cancelled) at once; with an error after the changes that wait.
    func stop(_ error: UVError?) {
        switch machine.stopRequested() {
        case .close: break
        case .none: return
        }
        closeHandle()
        if error != nil, let consumer, !waiting.isEmpty, !consumer.deliver(waiting.takeAll()) {
            return tellConsumer(nil)
        }
        tellConsumer(error)
    }

    private func closeHandle() {
        core.fileWatches[id] = nil
        if let handle {
            self.handle = nil
            uv_close(Self.asHandle(handle), Trampolines.fileWatchClosed)
        }
        for subdirectory in tree.removeAll() { subdirectory.close() }
    }

    /// Tells the consumer that the watch ended, once, and lets it go.
    private func tellConsumer(_ error: UVError?) {
        guard let consumer else { preconditionFailure("a file watch told its consumer twice") }
        self.consumer = nil
        _ = waiting.takeAll()
        consumer.end(error)
    }

    // MARK: Events

    /// The `uv_fs_event_t` callback (loop thread).
    func onEvent(name: UnsafePointer<CChar>?, events: Int32, status: Int32) {
        guard machine.readsEvents, let target else { return }
        if status < 0 {
            return endAfterDelivery(UVError(UVError.Code(uvCode: status), operation: operation, detail: "watching '\(path)'"))
        }
        let bytes = Self.bytes(of: name)
        if target.mayBeDirectoryEvent(bytes) {
            // Once the directory is known to be gone, its own last events (removed, ignored) say
            // nothing more; events of its entries read in the same pass are still delivered.
            if !machine.isWatching { return }
            if !target.directoryIsStillThere {
                let what = target.fileName == nil ? "the watched directory" : "the directory of the watched file"
                return endAfterDelivery(
                    UVError(
                        .noSuchFileOrDirectory, operation: operation,
                        detail: "\(what), '\(target.directory)', was removed or moved away while watched; watch it again once it is back"))
            }
        }
        guard target.reports(bytes) else { return }
        let kinds = Self.kinds(of: events)
        let exists = kinds.contains(.rename) ? target.entryExists(bytes) : true
        // libuv names the directory's own attribute changes (`chmod` of the directory) after
        // the directory, as `change`, plus `rename` for inotify's IN_ISDIR bit: when no entry
        // has that name, that is what it was, and no entry changed.
        if kinds.contains(.change), target.mayBeDirectoryEvent(bytes), !target.entryExists(bytes) { return }
        let entryName = target.fileName == nil ? String(decoding: bytes, as: UTF8.self) : String(decoding: target.fileName!, as: UTF8.self)
        waiting.add(UVFileChange(path: target.entryPath(bytes), name: entryName, events: kinds, exists: exists))
        queueFlush()
        if recursive, target.fileName == nil, machine.isWatching, kinds.contains(.rename) { reconcile(bytes) }
    }

    /// The name libuv reports, as bytes (empty for none).
    private static func bytes(of name: UnsafePointer<CChar>?) -> [UInt8] {
        name.map { Array(UnsafeBufferPointer(start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self), count: strlen($0))) } ?? []
    }

    /// libuv's `UV_CHANGE` and `UV_RENAME` bits as events.
    private static func kinds(of events: Int32) -> UVFileChange.Events {
        var kinds: UVFileChange.Events = []
        if events & Int32(UV_CHANGE.rawValue) != 0 { kinds.insert(.change) }
        if events & Int32(UV_RENAME.rawValue) != 0 { kinds.insert(.rename) }
        return kinds
    }

    // MARK: Subdirectories of a recursive watch

    /// The `uv_fs_event_t` callback of a directory below a recursive watch's directory (loop
    /// thread): its entries' events, reported as the watched directory's own entries are.
    func onEvent(in subdirectory: Subdirectory, name: UnsafePointer<CChar>?, events: Int32, status: Int32) {
        // A directory already stopped may still have events read in this poll.
        guard machine.isWatching, let target, tree.watch(at: subdirectory.relative) === subdirectory else { return }
        let location = "'\(String(decoding: subdirectory.absolute, as: UTF8.self))' inside the watched directory '\(path)'"
        if status < 0 {
            return endAfterDelivery(UVError(UVError.Code(uvCode: status), operation: operation, detail: "watching \(location)"))
        }
        let bytes = Self.bytes(of: name)
        // libuv names the directory's own events after the directory. Its removal or move, and
        // a change of its attributes, are reported by its parent, as the change of its name.
        let mayBeOwnEvent = bytes.isEmpty || bytes == WatchTree<Subdirectory>.split(subdirectory.relative).name
        if mayBeOwnEvent, !subdirectory.isStillThere { return }
        guard target.reports(bytes) else { return }
        let relative = WatchTree<Subdirectory>.path(of: bytes, in: subdirectory.relative)
        let kinds = Self.kinds(of: events)
        if kinds.contains(.change), mayBeOwnEvent, !target.entryExists(relative) { return }
        let exists = kinds.contains(.rename) ? target.entryExists(relative) : true
        waiting.add(UVFileChange(path: target.entryPath(relative), name: String(decoding: bytes, as: UTF8.self), events: kinds, exists: exists))
        queueFlush()
        if kinds.contains(.rename) { reconcile(relative) }
    }

    /// The entry at `relative` was created, removed, renamed or replaced: watches it (and what
    /// is below it) when it is a directory not watched yet, stops the watches of a directory
    /// that is gone or was replaced.
    private func reconcile(_ relative: [UInt8]) {
        guard let target else { return }
        let absolute = target.directoryBytes(relative)
        let current = Subdirectory.identity(absolute)
        if let watched = tree.watch(at: relative), watched.identity != current {
            for subdirectory in tree.removeSubtree(at: relative) { subdirectory.close() }
        }
        guard current != nil, tree.watch(at: relative) == nil else { return }
        if let failure = watchSubdirectory(relative) ?? watchSubdirectories(below: relative, reportingEntries: true) {
            endAfterDelivery(failure)
        }
    }

    /// Watches every directory below the one at `relative`, at every depth, each before it is
    /// listed, so nothing created in it meanwhile goes unseen; with `reportingEntries`, every
    /// entry found is reported as created (the directory appeared with them).
    ///
    /// - Returns: The error that ends the watch, if a directory cannot be watched or listed
    ///   (one that is gone meanwhile is skipped: its parent reports it).
    private func watchSubdirectories(below relative: [UInt8], reportingEntries: Bool) -> UVError? {
        guard let target else { return nil }
        var pending = [relative]
        while let directory = pending.popLast() {
            let absolute = target.directoryBytes(directory)
            let listing = DirectoryListing.entries(of: absolute)
            if listing.errno != 0 {
                if listing.errno == ENOENT || listing.errno == ENOTDIR { continue }
                return subdirectoryError(-listing.errno, absolute, doing: .list)
            }
            for entry in listing.entries {
                let child = WatchTree<Subdirectory>.path(of: entry.name, in: directory)
                if reportingEntries, target.reports(entry.name) {
                    waiting.add(
                        UVFileChange(path: target.entryPath(child), name: String(decoding: entry.name, as: UTF8.self), events: .rename, exists: true))
                    queueFlush()
                }
                guard entry.isDirectory, tree.watch(at: child) == nil else { continue }
                if let failure = watchSubdirectory(child) { return failure }
                if tree.watch(at: child) != nil { pending.append(child) }
            }
        }
        return nil
    }

    /// Starts watching the directory at `relative`.
    ///
    /// - Returns: The error that ends the watch; `nil` when it is watched, or gone already.
    private func watchSubdirectory(_ relative: [UInt8]) -> UVError? {
        guard let target else { return nil }
        let subdirectory = Subdirectory(watch: self, relative: relative, absolute: target.directoryBytes(relative))
        let status = subdirectory.start(on: core.loop)
        guard status == 0 else {
            if status == -ENOENT || status == -ENOTDIR { return nil }
            return subdirectoryError(status, subdirectory.absolute, doing: .watch)
        }
        if !keepsLoopAlive { uv_unref(Self.asHandle(subdirectory.handle)) }
        guard subdirectory.recordIdentity() else {
            subdirectory.close()
            return nil
        }
        _ = tree.insert(subdirectory, at: relative)
        return nil
    }

    /// Delivers what waits once the loop has finished this poll's events: the flush goes on
    /// the loop thread's queue, which runs at the next wake-up.
    private func queueFlush() {
        guard machine.changesAdded() else { return }
        submitFlush()
    }

    private func submitFlush() {
        if core.submitOnLoopThread(.late, { [self] in flush() }) {
            core.wake()
        } else {
            flush()  // the loop is closing its last turn: deliver now
        }
    }

    /// Ends the watch with `error` once this poll's events are read and delivered: the handle
    /// stays open until then, so the events of the directory's entries that come with its
    /// removal (each entry removed) are reported first.
    private func endAfterDelivery(_ error: UVError) {
        if machine.endRequested(error) { submitFlush() }
    }

    private func flush() {
        let ending: UVError?
        switch machine.flushRan() {
        case .deliver: ending = nil
        case .deliverThenStop(let error): ending = error
        case .none: return
        }
        if let consumer, !waiting.isEmpty, !consumer.deliver(waiting.takeAll()) { return stop(nil) }
        if let ending { stop(ending) }
    }

    // MARK: Errors

    private func loopClosed(_ detail: String) -> UVError {
        UVError(.loopClosed, operation: operation, detail: detail)
    }

    private func error(errno code: Int32, detail: String) -> UVError {
        UVError(UVError.Code(uvCode: -code), operation: operation, detail: detail)
    }

    /// What a recursive watch does to a directory below its own: its word in a message, and the
    /// call that does it.
    private enum SubdirectoryStep: String {
        case watch, list

        var call: String {
            switch self {
            case .watch: "uv_fs_event_start"
            case .list: "opendir"
            }
        }
    }

    /// A directory below a recursive watch's directory could not be watched or listed: the
    /// whole watch ends, rather than miss that directory's changes.
    private func subdirectoryError(_ status: Int32, _ absolute: [UInt8], doing action: SubdirectoryStep) -> UVError {
        let directory = String(decoding: absolute, as: UTF8.self)
        let underlying = UVError(UVError.Code(uvCode: status), operation: action.call, detail: "'\(directory)'")
        let watched = "\(tree.count + 1) director\(tree.count == 0 ? "y" : "ies") watched"
        switch -status {
        case ENOSPC:
            return UVError(
                .watchLimitReached, operation: operation,
                detail:
                    "cannot watch '\(directory)' inside the recursively watched directory '\(path)' (\(watched)): this user's inotify watches are all taken (\(InotifyLimits.watchLimit())); watch a smaller tree or raise the limit with sysctl fs.inotify.max_user_watches=N",
                underlying: underlying)
        default:
            return UVError(
                UVError.Code(uvCode: status), operation: operation,
                detail:
                    "cannot \(action.rawValue) '\(directory)' inside the recursively watched directory '\(path)' (\(watched)): \(String(cString: strerror(-status))); a recursive watch needs to read every directory below the one it watches",
                underlying: underlying)
        }
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

/// What other threads hold of a ``FileWatch``: the watch is made and started here, and
/// cancelled here; everything else happens on the loop thread, which ``LoopOwned`` checks.
struct FileWatchHandle: Sendable {
    private let watch: LoopOwned<FileWatch>
    private let cancellation: FileWatch.Cancellation

    /// Makes a watch and starts it from any thread: on the loop thread now, otherwise at the
    /// loop's next turn. A loop that is shut down never takes it: `consumer` is told at once,
    /// on this thread, with ``UVError/Code-swift.struct/loopClosed``.
    init(core: LoopCore, path: String, operation: String, keepsLoopAlive: Bool, recursive: Bool = false, consumer: FileWatch.Consumer) {
        let cancellation = FileWatch.Cancellation()
        let watch = LoopOwned(
            FileWatch(
                core: core, path: path, operation: operation, keepsLoopAlive: keepsLoopAlive, recursive: recursive,
                cancellation: cancellation, consumer: consumer),
            core: core)
        self.watch = watch
        self.cancellation = cancellation
        if !watch.run(.user, { $0.start() }) {
            consumer.end(UVError(.loopClosed, operation: operation, detail: "the UVLoop was shut down; start watches before calling shutdown()"))
        }
    }

    /// Cancels the watch from any thread: no change is delivered after the loop processed it
    /// (at once on the loop thread).
    func cancel() {
        guard !cancellation.requested.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // Refused only once the loop is closed, and shutdown has ended every watch.
        _ = watch.run(.late) { $0.stop(nil) }
    }
}
