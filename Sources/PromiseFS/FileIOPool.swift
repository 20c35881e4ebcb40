import Dispatch
internal import Synchronization
internal import PromiseSystem

/// The threads that run PromiseFS's blocking system calls, with a bounded queue.
///
/// Every ``FileSystem`` operation is one job on a pool: `readFile` opens, reads and closes in
/// one job, so 10 000 concurrent reads hold at most ``threadCount`` descriptors open at once.
/// Jobs run in the order they were submitted, on threads of the pool's own, never on Swift's
/// cooperative pool (a blocked cooperative thread stalls every task in the process).
///
/// ``shared`` is used unless you pass a pool; it is never shut down. Make a pool of your own
/// to isolate slow storage (a network mount) from fast, or to size it:
///
/// ```swift
/// let archive = FileSystem(pool: FileIOPool(threads: 2, queueLimit: 1_000))
/// ```
///
/// A pool's threads keep it alive until ``shutdown()``: shut down the pools you create once
/// you are done with them, as with an event loop group.
public final class FileIOPool: Sendable {
    /// The process-wide pool: 4 threads, 65 536 queued jobs at most. Never shut down.
    public static let shared = FileIOPool(threads: 4, queueLimit: 65_536)

    /// How many threads run jobs.
    public let threadCount: Int
    /// How many jobs may wait at once; a job submitted past it is rejected at once with
    /// ``FSError/Code-swift.struct/poolUnavailable`` instead of growing memory without bound.
    public let queueLimit: Int

    private struct State {
        var jobs = FIFO<@Sendable () -> Void>()
        var closed = false
        var running: Int
        var stopped: Promise<Void>?
    }

    private let state: Lock<State>
    private let available = DispatchSemaphore(value: 0)

    /// Creates a pool and starts its threads.
    ///
    /// - Parameters:
    ///   - threads: How many threads run jobs (at least 1).
    ///   - queueLimit: How many jobs may wait at once (at least 1).
    public init(threads: Int = 4, queueLimit: Int = 65_536) {
        precondition(threads >= 1, "FileIOPool needs at least one thread, got \(threads)")
        precondition(queueLimit >= 1, "FileIOPool needs a queue limit of at least 1, got \(queueLimit)")
        threadCount = threads
        self.queueLimit = queueLimit
        state = Lock(State(running: threads))
        var started = 0
        // Named like the other products' threads, so `top -H` and debuggers tell them apart.
        for _ in 0..<threads where NamedThread.start(name: "promise-fs", { [self] in work() }) == 0 {
            started += 1
        }
        // Fewer threads than asked is still a working pool; none is not.
        precondition(started > 0, "FileIOPool could not start any thread (pthread_create failed)")
        if started < threads {
            state.withLock { $0.running = started }
        }
    }

    /// Stops accepting jobs, lets the queued ones finish, and ends the threads.
    ///
    /// - Returns: A promise fulfilled once every thread has ended. Calling it again returns
    ///   the same outcome.
    public func shutdown() -> Promise<Void> {
        guard self !== FileIOPool.shared else {
            return Promise(
                FSError(
                    .poolUnavailable, operation: "shutdown", path: "",
                    activity: "shutting down FileIOPool.shared, which every FileSystem() without a pool uses; shut down a pool of your own instead"
                ))
        }
        let (promise, wake): (Promise<Void>, Int) = state.withLock { state in
            if let stopped = state.stopped { return (stopped, 0) }
            let stopped = Promise<Void>.pending()
            state.stopped = stopped
            state.closed = true
            if state.running == 0 { stopped.fulfill(()) }
            return (stopped, state.running)
        }
        for _ in 0..<wake { available.signal() }
        return promise
    }

    /// Queues `job`; `false` when the pool is shut down or its queue is full.
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        let accepted = state.withLock { state in
            guard !state.closed, state.jobs.count < queueLimit else { return false }
            state.jobs.append(job)
            return true
        }
        if accepted { available.signal() }
        return accepted
    }

    /// What each thread runs: jobs until the queue is empty and the pool is shut down.
    private func work() {
        while true {
            available.wait()
            let job: (@Sendable () -> Void)? = state.withLock { state in
                state.jobs.popFirst()
            }
            if let job {
                job()
                continue
            }
            // Woken with nothing to do: only shutdown does that.
            let stopped: Promise<Void>? = state.withLock { state in
                state.running -= 1
                return state.running == 0 ? state.stopped : nil
            }
            stopped?.fulfill(())
            return
        }
    }

    /// Runs `body` as one job and resolves the returned promise with its result.
    ///
    /// A job whose promise was cancelled before it started never runs; `body` can check
    /// `cancelled` between steps of long work.
    ///
    /// A path holding a NUL byte rejects at once, without a job: the system calls take C
    /// strings, which end at the first NUL, so they would act on a different, shorter path.
    /// `otherPath` is the second path of a two-path operation (the target of a move, copy or
    /// symbolic link).
    func run<T: Sendable>(
        _ operation: String,
        path: String,
        otherPath: String? = nil,
        _ body: @escaping @Sendable (_ cancelled: CancelFlag) throws -> T
    ) -> Promise<T> {
        let promise = Promise<T>.pending()
        if let bad = AdapterPaths.containsNUL(path) ? path : otherPath.flatMap({ AdapterPaths.containsNUL($0) ? $0 : nil }) {
            promise.reject(
                FSError(
                    .invalidArgument, operation: operation, path: bad,
                    activity: "\(operation) \(AdapterPaths.showingNUL(bad)): the path contains a NUL byte, which would cut it short in the system call; refused"
                ))
            return promise
        }
        let flag = CancelFlag()
        promise.onCancel { flag.set() }
        let accepted = submit {
            guard !flag.isSet else { return }
            promise.resolve(Result { try body(flag) })
        }
        if !accepted {
            let closed = state.withLock { $0.closed }
            promise.reject(
                FSError(
                    .poolUnavailable, operation: operation, path: path,
                    activity: closed
                        ? "\(operation) \(path): the FileIOPool was shut down"
                        : "\(operation) \(path): the FileIOPool queue is full (\(queueLimit) jobs); wait for earlier work or raise queueLimit"
                ))
        }
        return promise
    }
}
