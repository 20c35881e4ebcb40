// The process's one owner of signal dispositions: `Promises.nextSignal` and PromiseUV's
// `UVLoop.nextSignal` both watch through it, the signal handler it installs and the channel
// from the kernel to the promises.
import Dispatch
import Glibc
internal import PromiseBasics
package import PromiseCore
import Synchronization

/// The owner of the process's signal dispositions, for every watch of every product.
///
/// The rules, written once (the DocC article "Signals" says the same to users):
/// - **Counted per signal.** The first watch of a signal installs the owner's handler and keeps
///   the action that was there before; the last watch to end puts that action back.
/// - **One delivery, every live watch.** A signal that arrives ends and fulfils every live
///   watch of it, whoever made it (`Promises.nextSignal`, `UVLoop.nextSignal`), after putting
///   back the previous actions of the signals nobody watches any more.
/// - **A watch nobody holds ends.** A watch is live while its promise is pending and either
///   something holds the promise or something is chained to it. A dead watch is ended whenever
///   the owner looks: a watch starting or ending, or a signal arriving. A signal that arrives
///   when only dead watches were left is raised again under the restored action, so it acts as
///   if the dead watches had never been there (a discarded `Promises.nextSignal()` does not
///   stop Ctrl-C from ending the program).
/// - **Ending.** Cancelling a watch's promise ends it on the cancelling thread; a promise
///   settled any other way (its own `fulfill`) is dead, and ended the next time the owner looks.
package enum SignalOwner {
    /// `SIGINT` and `SIGTERM`, what `nextSignal()` waits for.
    package static let stopSignals: [Int32] = [SIGINT, SIGTERM]

    /// Identifies one watch, for ``end(_:rejecting:)``.
    package struct WatchID: Hashable, Sendable {
        fileprivate let value: UInt64
    }

    /// Starts one watch of `signals` for `promise`.
    ///
    /// - Parameters:
    ///   - signals: The signals; duplicates are ignored. Checked first: see ``problem(with:)``.
    ///   - promise: The watch's promise, pending. The owner holds it until the watch ends, and
    ///     stops the watch when it is cancelled.
    ///   - group: Who made the watch (a loop's identity), for ``endAll(in:rejecting:)``; `nil`
    ///     for none.
    ///   - delivery: How `promise` is settled when a signal arrives (``SignalDelivery``).
    ///   - context: What `delivery` needs besides the promise, kept until the watch ends.
    /// - Returns: The watch, or why it cannot start (the message says what to do).
    package static func watch<Delivery: SignalDelivery>(
        _ signals: [Int32],
        _ promise: Promise<Delivery.Value>,
        group: ObjectIdentifier? = nil,
        delivery: Delivery.Type,
        context: Delivery.Context
    ) -> Result<WatchID, PromiseError> {
        var unique: [Int32] = []
        for signal in signals where !unique.contains(signal) { unique.append(signal) }
        if let problem = problem(with: unique) {
            return .failure(PromiseError(.invalidArgument, message: problem))
        }
        let channel: SignalChannel
        switch SignalChannel.shared {
        case .success(let shared): channel = shared
        case .failure(let error): return .failure(error)
        }
        let entry = PromiseWatch<Delivery>(signals: unique, group: group, promise: promise, context: context)
        let (started, dead) = registry.withLock { registry in
            let swept = registry.sweep()
            Dispositions.apply(swept.restore, channel: channel, registry: registry)
            return (Dispositions.start(entry, in: &registry, channel: channel), swept.ended)
        }
        withExtendedLifetime(dead) {}
        guard case .success(let id) = started else { return started }
        // Cancellation ends the watch on the cancelling thread, before `cancel()` returns.
        promise.onCancelFromLibrary { SignalOwner.end(id, rejecting: nil) }
        return .success(id)
    }

    /// Ends watch `id` if it is still on, and rejects its promise with `error` (`nil`: leaves
    /// the promise as it is, for a watch whose promise was cancelled).
    package static func end(_ id: WatchID, rejecting error: (any Error)?) {
        let (ended, dead) = registry.withLock { registry -> ((any SignalWatchEntry)?, [any SignalWatchEntry]) in
            guard case .success(let channel) = SignalChannel.shared else { return (nil, []) }
            let removed = registry.remove(id.value)
            let swept = registry.sweep()
            Dispositions.apply((removed?.restore ?? []) + swept.restore, channel: channel, registry: registry)
            return (removed?.entry, swept.ended)
        }
        if let ended, let error { ended.fail(error) }
        withExtendedLifetime(dead) {}
    }

    /// Ends every watch made with `group` and rejects its promise with `error`.
    ///
    /// - Returns: How many watches were ended.
    @discardableResult
    package static func endAll(in group: ObjectIdentifier, rejecting error: any Error) -> Int {
        let ended: [any SignalWatchEntry] = registry.withLock { registry in
            guard case .success(let channel) = SignalChannel.shared else { return [] }
            let ids = registry.entries.filter { $0.value.group == group }.map(\.key)
            let removed = ids.compactMap { registry.remove($0) }
            Dispositions.apply(removed.flatMap(\.restore), channel: channel, registry: registry)
            return removed.map(\.entry)
        }
        for entry in ended { entry.fail(error) }
        return ended.count
    }

    /// Whether the process has a watch of `signal` now, live or not yet found dead (for tests).
    package static func isWatched(_ signal: Int32) -> Bool {
        registry.withLock { $0.watched[signal] != nil }
    }

    /// Fulfils every live watch of `signal`, after ending it; raises `signal` again under the
    /// restored action when only dead watches were waiting for it.
    static func deliver(_ signal: Int32) {
        let (live, dead, raiseAgain) = registry.withLock { registry -> ([any SignalWatchEntry], [any SignalWatchEntry], Bool) in
            guard case .success(let channel) = SignalChannel.shared else { return ([], [], false) }
            var live: [any SignalWatchEntry] = []
            var deadOfSignal = false
            var restore: [(Int32, sigaction)] = []
            let ids = registry.entries.filter { $0.value.signals.contains(signal) }.map(\.key)
            for id in ids.sorted(by: { $0 < $1 }) {
                guard let removed = registry.remove(id) else { continue }
                if removed.entry.isLive() {
                    live.append(removed.entry)
                } else {
                    deadOfSignal = true
                }
                restore += removed.restore
            }
            let swept = registry.sweep()
            Dispositions.apply(restore + swept.restore, channel: channel, registry: registry)
            return (live, swept.ended, live.isEmpty && deadOfSignal && registry.watched[signal] == nil)
        }
        for entry in live { entry.fire(signal) }
        withExtendedLifetime(dead) {}
        if raiseAgain { kill(getpid(), signal) }
    }

    /// Why `signals` cannot be watched, in a sentence that says what to do; `nil` if they can.
    package static func problem(with signals: [Int32]) -> String? {
        guard !signals.isEmpty else {
            return "nextSignal was given no signal to wait for: pass at least one, such as [SIGINT, SIGTERM]"
        }
        for signal in signals {
            // Linux numbers its signals 1 through 64.
            guard (1...64).contains(signal) else {
                return "\(signal) is not a signal number: pass signals from 1 to 64, such as SIGINT or SIGTERM"
            }
            if signal == SIGKILL || signal == SIGSTOP {
                return "signal \(signal) (\(signal == SIGKILL ? "SIGKILL" : "SIGSTOP")) cannot be caught: "
                    + "the kernel acts on it without asking the program; watch SIGINT or SIGTERM instead"
            }
            if signal == SIGCHLD {
                return "signal \(signal) (SIGCHLD) belongs to child processes: PromiseUV's UVLoop.spawn "
                    + "reaps its children through it, and a second handler would take their exits away; "
                    + "wait for a child's exit with the promise spawn returns instead"
            }
            let faults: [(Int32, String)] = [
                (SIGSEGV, "SIGSEGV"), (SIGBUS, "SIGBUS"), (SIGFPE, "SIGFPE"),
                (SIGILL, "SIGILL"), (SIGTRAP, "SIGTRAP"), (SIGSYS, "SIGSYS"),
            ]
            if let fault = faults.first(where: { $0.0 == signal }) {
                return "signal \(signal) (\(fault.1)) reports a fault in the running code, which would "
                    + "fault again as soon as a handler returned: it cannot be turned into a promise"
            }
        }
        return nil
    }
}

extension Promises {
    /// Starts one watch for ``nextSignal(_:)``, fulfilled from the owner's private queue.
    static func watchSignals(_ signals: [Int32]) -> Promise<Int32> {
        let promise = Promise<Int32>.pending(resolvedOn: nil)
        switch SignalOwner.watch(signals, promise, delivery: FulfilledAtOnce.self, context: ()) {
        case .success: return promise
        case .failure(let error): return Promise<Int32>(error)
        }
    }
}

/// The delivery of ``Promises/nextSignal(_:)``: the signal's number, from the owner's queue.
private enum FulfilledAtOnce: SignalDelivery {
    static func deliver(_ signal: Int32, to promise: Promise<Int32>, context: Void) {
        promise.fulfill(signal)
    }
}

/// How a watch settles its promise when one of its signals arrives.
///
/// The owner holds each watch's promise and tells a live watch from a dead one by whether it
/// holds the only reference (see ``SignalOwner``). A delivery therefore is a static function
/// of a type, handed the promise when the signal arrives, and what else it needs is a value of
/// its ``Context`` that the watch keeps: a closure could capture the promise, and a watch
/// whose closure did would stay alive after its program dropped it; a static function
/// cannot, and the context's type says what it holds.
package protocol SignalDelivery {
    /// The watch's promise's value.
    associatedtype Value: Sendable
    /// What the delivery needs besides the promise (a loop, the signal as its type).
    associatedtype Context: Sendable

    /// Settles `promise` with `signal`, on any thread, after the watch ended.
    ///
    /// - Parameters:
    ///   - signal: The signal that arrived.
    ///   - promise: The watch's promise.
    ///   - context: The value given to ``SignalOwner/watch(_:_:group:delivery:context:)``.
    static func deliver(_ signal: Int32, to promise: Promise<Value>, context: Context)
}

/// Every watch of the process.
private let registry = Lock(SignalRegistry<sigaction>())

/// One watch as the owner keeps it: its signals and group, how to tell whether it is live,
/// and how to settle its promise. Read and changed only under the registry's lock until it is
/// removed; ``fire(_:)`` and ``fail(_:)`` run after, outside the lock.
protocol SignalWatchEntry: AnyObject, Sendable {
    var signals: [Int32] { get }
    var group: ObjectIdentifier? { get }
    /// Whether the promise is pending and something can still observe it.
    func isLive() -> Bool
    func fire(_ signal: Int32)
    func fail(_ error: any Error)
}

/// A watch whose promise `Delivery` settles.
///
/// `@unchecked Sendable`: `promise` is read and written only under the registry's lock while
/// the entry is registered, and by the one thread that removed it afterwards.
private final class PromiseWatch<Delivery: SignalDelivery>: SignalWatchEntry, @unchecked Sendable {
    let signals: [Int32]
    let group: ObjectIdentifier?
    private var promise: Promise<Delivery.Value>?
    private let context: Delivery.Context

    init(signals: [Int32], group: ObjectIdentifier?, promise: Promise<Delivery.Value>, context: Delivery.Context) {
        self.signals = signals
        self.group = group
        self.promise = promise
        self.context = context
    }

    func isLive() -> Bool {
        // Only the owner's reference left: live only if something is chained to the promise.
        let onlyOwner = isKnownUniquelyReferenced(&promise)
        guard let promise else { return false }
        return onlyOwner ? promise.isPendingWithCallbacks : promise.isPending
    }

    func fire(_ signal: Int32) {
        guard let promise else { return }
        self.promise = nil
        Delivery.deliver(signal, to: promise, context: context)
    }

    func fail(_ error: any Error) {
        guard let promise else { return }
        self.promise = nil
        promise.reject(error)
    }
}

/// The `sigaction` calls the registry's decisions need, made under the registry's lock.
private enum Dispositions {
    /// Installs the owner's handler for the signals of `entry` that nobody watched yet, then
    /// records the watch; puts those signals' actions back and fails if the system refuses one.
    static func start(
        _ entry: any SignalWatchEntry,
        in registry: inout SignalRegistry<sigaction>,
        channel: SignalChannel
    ) -> Result<SignalOwner.WatchID, PromiseError> {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = forwardSignal
        action.sa_flags = SA_RESTART  // a read interrupted by the signal goes on
        sigemptyset(&action.sa_mask)
        var installed: [(Int32, sigaction)] = []
        for signal in registry.unwatched(entry.signals) {
            var previous = sigaction()
            guard sigaction(signal, &action, &previous) == 0 else {
                let code = errno
                apply(installed, channel: channel, registry: registry)
                return .failure(
                    PromiseError(
                        .invalidArgument,
                        message: "signal \(signal) cannot be watched: sigaction failed with errno \(code) "
                            + "(\(String(cString: strerror(code)))); the C library reserves some numbers "
                            + "for itself: watch another signal"
                    )
                )
            }
            installed.append((signal, previous))
        }
        let id = registry.start(entry, installed: installed)
        channel.readPending(registry.watchedSignals)
        return .success(SignalOwner.WatchID(value: id))
    }

    /// Puts back each action in `restore`, and has the channel read what is still watched.
    static func apply(_ restore: [(Int32, sigaction)], channel: SignalChannel, registry: borrowing SignalRegistry<sigaction>) {
        for (signal, previous) in restore {
            var previous = previous
            sigaction(signal, &previous, nil)
        }
        if !restore.isEmpty { channel.readPending(registry.watchedSignals) }
    }
}

/// The write end of the wake-up pipe, for ``forwardSignal(_:)``; -1 until it exists.
private let wakeUpDescriptor = Atomic<Int32>(-1)

/// The action installed for a watched signal. It runs on whichever thread the kernel picked,
/// interrupting it, so it only does what is safe there: write the signal's number to the
/// wake-up pipe (non-blocking) and leave `errno` as it found it.
private func forwardSignal(_ signal: Int32) {
    let savedErrno = errno
    var byte = UInt8(truncatingIfNeeded: signal)
    _ = write(wakeUpDescriptor.load(ordering: .relaxed), &byte, 1)
    errno = savedErrno
}

/// The process-wide path from the kernel to ``SignalOwner/deliver(_:)``, made at the first
/// watch and kept: the wake-up pipe that ``forwardSignal(_:)`` writes to, a `signalfd` for
/// signals that every thread blocks (those wait in the kernel's pending queue instead of
/// reaching a handler), and a Dispatch read source on each, on one private serial queue.
///
/// Why not `DispatchSource.makeSignalSource`: on Linux, libdispatch installs its own handler
/// the first time a signal gets a source, and never again. Once the previous action is put
/// back, a later source for that signal never fires (under `SIG_IGN` the kernel discards the
/// signal) or the signal kills the process (under `SIG_DFL`).
final class SignalChannel: Sendable {
    /// Made at first use; a failure (no file descriptor left) is kept and reported to every call.
    static let shared: Result<SignalChannel, PromiseError> = make()

    private let queue = DispatchQueue(label: "swift-promise.signals")
    private let pipeRead: Int32
    /// A `signalfd` reading the watched signals from the pending queue, or -1.
    private let pendingSignals: Int32
    /// Kept so they live as long as the channel. Dispatch sources are thread-safe; this
    /// toolchain's Dispatch module does not mark them `Sendable`.
    nonisolated(unsafe) private let sources: [any DispatchSourceRead]

    private init(pipeRead: Int32, pendingSignals: Int32) {
        self.pipeRead = pipeRead
        self.pendingSignals = pendingSignals
        let queue = self.queue
        let wakeUps = DispatchSource.makeReadSource(fileDescriptor: pipeRead, queue: queue)
        wakeUps.setEventHandler { @Sendable in
            SignalChannel.drain(pipeRead, recordSize: 1) { Int32($0.load(as: UInt8.self)) }
        }
        var sources: [any DispatchSourceRead] = [wakeUps]
        if pendingSignals >= 0 {
            let pending = DispatchSource.makeReadSource(fileDescriptor: pendingSignals, queue: queue)
            pending.setEventHandler { @Sendable in
                // `struct signalfd_siginfo` is 128 bytes and starts with `uint32_t ssi_signo`.
                SignalChannel.drain(pendingSignals, recordSize: 128) { Int32(bitPattern: $0.loadUnaligned(as: UInt32.self)) }
            }
            sources.append(pending)
        }
        self.sources = sources
        for source in sources { source.resume() }
    }

    private static func make() -> Result<SignalChannel, PromiseError> {
        var ends: [Int32] = [-1, -1]
        let made = if let pipe2 = pipe2Function { pipe2(&ends, O_NONBLOCK | O_CLOEXEC) == 0 } else { makePipe(&ends) }
        guard made else {
            let code = errno
            return .failure(
                PromiseError(
                    .invalidArgument,
                    message: "cannot watch signals: creating a pipe failed with errno \(code) "
                        + "(\(String(cString: strerror(code)))); close some file descriptors and try again"
                )
            )
        }
        var none = sigset_t()
        sigemptyset(&none)
        let pendingSignals = signalfdFunction?(-1, &none, O_NONBLOCK | O_CLOEXEC) ?? -1
        wakeUpDescriptor.store(ends[1], ordering: .relaxed)
        return .success(SignalChannel(pipeRead: ends[0], pendingSignals: pendingSignals))
    }

    /// `pipe` and `fcntl`, where the C library has no `pipe2`.
    private static func makePipe(_ ends: inout [Int32]) -> Bool {
        guard pipe(&ends) == 0 else { return false }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        return true
    }

    /// Makes the `signalfd` read exactly `signals` from the pending queue (none: never readable).
    func readPending(_ signals: [Int32]) {
        guard pendingSignals >= 0 else { return }
        var mask = sigset_t()
        sigemptyset(&mask)
        for signal in signals { sigaddset(&mask, signal) }
        _ = signalfdFunction?(pendingSignals, &mask, 0)
    }

    /// Reads `descriptor` until it is empty, then delivers each signal read, once, in the
    /// order they came.
    private static func drain(_ descriptor: Int32, recordSize: Int, _ signalNumber: (UnsafeRawBufferPointer) -> Int32) {
        var arrived: [Int32] = []
        var buffer = [UInt8](repeating: 0, count: recordSize * 16)
        while true {
            let read = buffer.withUnsafeMutableBytes { SystemCall.read(descriptor, into: $0) }
            guard case .success(let count) = read, count > 0 else { break }
            buffer.withUnsafeBytes { bytes in
                for start in stride(from: 0, to: count - recordSize + 1, by: recordSize) {
                    let signal = signalNumber(UnsafeRawBufferPointer(rebasing: bytes[start..<(start + recordSize)]))
                    if !arrived.contains(signal) { arrived.append(signal) }
                }
            }
        }
        for signal in arrived { SignalOwner.deliver(signal) }
    }
}

/// `pipe2` and `signalfd`, GNU functions that Glibc's Swift module does not import; looked up once.
private let pipe2Function: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32)? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pipe2") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32).self)
}()

private let signalfdFunction: (@convention(c) (Int32, UnsafePointer<sigset_t>, Int32) -> Int32)? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "signalfd") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (Int32, UnsafePointer<sigset_t>, Int32) -> Int32).self)
}()
