// The machinery behind `Promises.nextSignal`: the process-wide watches, the signal handler and
// the channel from the kernel to the promises.
import Dispatch
import Glibc
import Synchronization

extension SignalWatches {
    /// `SIGINT` and `SIGTERM`, what `nextSignal()` waits for.
    static let stopSignals: [Int32] = [SIGINT, SIGTERM]

    /// Starts one watch of `signals`; see ``Promises/nextSignal(_:)``.
    static func watch(_ signals: [Int32]) -> Promise<Int32> {
        var unique: [Int32] = []
        for signal in signals where !unique.contains(signal) { unique.append(signal) }
        if let problem = SignalWatches.problem(with: unique) {
            return Promise<Int32>(PromiseError(.invalidArgument, message: problem))
        }
        let channel: SignalChannel
        switch SignalChannel.shared {
        case .success(let shared): channel = shared
        case .failure(let error): return Promise<Int32>(error)
        }
        let promise = Promise<Int32>.pending()
        let started = signalWatches.withLock { watches in
            watches.start(unique, promise, channel: channel)
        }
        switch started {
        case .failure(let error):
            return Promise<Int32>(error)
        case .success(let id):
            // Cancellation stops the watch on the cancelling thread, before `cancel()` returns;
            // settling any other way (a timeout, your own `fulfill`) stops it on the settling
            // thread. A signal has stopped it already.
            promise.onCancelFromLibrary { SignalWatches.stop(id) }
            promise.whenSettled { SignalWatches.stop(id) }
            return promise
        }
    }
}

/// The pending watches of the whole process, one per ``Promises/nextSignal(_:)`` call.
private let signalWatches = Lock(SignalWatches())

/// Who waits for which signal, and which action to put back when nobody does any more.
struct SignalWatches: ~Copyable {
    struct Watch {
        let signals: [Int32]
        let promise: Promise<Int32>
    }

    /// A signal being watched: by how many watches, and its action before the first of them.
    struct Watched {
        var count: Int
        var previous: sigaction
    }

    var watches: [UInt64: Watch] = [:]
    var watched: [Int32: Watched] = [:]
    var nextID: UInt64 = 0

    /// Installs the handler for the signals that nobody watched yet and records the watch;
    /// undoes its own changes and fails if the system refuses a signal.
    mutating func start(_ signals: [Int32], _ promise: Promise<Int32>, channel: SignalChannel) -> Result<UInt64, PromiseError> {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = forwardSignal
        action.sa_flags = SA_RESTART  // a read interrupted by the signal goes on
        sigemptyset(&action.sa_mask)
        var added: [Int32] = []
        for signal in signals {
            if watched[signal] != nil {
                watched[signal]!.count += 1
                added.append(signal)
                continue
            }
            var previous = sigaction()
            guard sigaction(signal, &action, &previous) == 0 else {
                let code = errno
                release(added, channel: channel)
                return .failure(
                    PromiseError(
                        .invalidArgument,
                        message: "signal \(signal) cannot be watched: sigaction failed with errno \(code) "
                            + "(\(String(cString: strerror(code)))); the C library reserves some numbers "
                            + "for itself: watch another signal"
                    )
                )
            }
            watched[signal] = Watched(count: 1, previous: previous)
            added.append(signal)
        }
        channel.readPending(Array(watched.keys))
        nextID += 1
        watches[nextID] = Watch(signals: signals, promise: promise)
        return .success(nextID)
    }

    /// Ends watch `id`, if it is still on; puts back the previous action of each signal that
    /// no other watch waits for.
    static func stop(_ id: UInt64) {
        signalWatches.withLock { watches in
            guard let watch = watches.watches.removeValue(forKey: id) else { return }
            guard case .success(let channel) = SignalChannel.shared else { return }
            watches.release(watch.signals, channel: channel)
        }
    }

    /// Fulfils every watch of `signal`, after ending it.
    static func deliver(_ signal: Int32) {
        let promises: [Promise<Int32>] = signalWatches.withLock { watches in
            guard case .success(let channel) = SignalChannel.shared else { return [] }
            let ids = watches.watches.filter { $0.value.signals.contains(signal) }.map(\.key)
            var promises: [Promise<Int32>] = []
            for id in ids {
                guard let watch = watches.watches.removeValue(forKey: id) else { continue }
                watches.release(watch.signals, channel: channel)
                promises.append(watch.promise)
            }
            return promises
        }
        for promise in promises { promise.fulfill(signal) }
    }

    /// One watch fewer for each of `signals`; the previous action is back where none is left.
    mutating func release(_ signals: [Int32], channel: SignalChannel) {
        for signal in signals {
            guard var entry = watched[signal] else { continue }
            entry.count -= 1
            if entry.count > 0 {
                watched[signal] = entry
            } else {
                sigaction(signal, &entry.previous, nil)
                watched[signal] = nil
            }
        }
        channel.readPending(Array(watched.keys))
    }

    /// Why `signals` cannot be watched, in a sentence that says what to do; `nil` if they can.
    static func problem(with signals: [Int32]) -> String? {
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

/// The process-wide path from the kernel to ``SignalWatches/deliver(_:)``, made at the first
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
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            buffer.withUnsafeBytes { bytes in
                for start in stride(from: 0, to: count - recordSize + 1, by: recordSize) {
                    let signal = signalNumber(UnsafeRawBufferPointer(rebasing: bytes[start..<(start + recordSize)]))
                    if !arrived.contains(signal) { arrived.append(signal) }
                }
            }
        }
        for signal in arrived { SignalWatches.deliver(signal) }
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
