internal import PromiseSystem

/// The threads that run PromiseFS's blocking system calls, with a bounded queue.
///
/// Every ``PromiseFileSystem`` operation is one job on a pool: `readFile` opens, reads and closes in
/// one job, so 10 000 concurrent reads hold at most ``threadCount`` descriptors open at once.
/// Jobs run in the order they were submitted, on threads of the pool's own, never on Swift's
/// cooperative pool (a blocked cooperative thread stalls every task in the process).
///
/// ``shared`` is used unless you pass a pool; it is never shut down. Make a pool of your own
/// to isolate slow storage (a network mount) from fast, or to size it:
///
/// ```swift
/// let archive = PromiseFileSystem(pool: try FileIOPool(threads: 2, queueLimit: 1_000))
/// ```
///
/// Shut down the pools you create once you are done with them, as with an event loop group.
/// A pool deallocated without ``shutdown()`` shuts down the same way: its queued jobs still
/// run and settle their promises, then its threads end. Its threads hold only the pool's
/// queue, never the pool itself, so dropping the last reference is enough for that.
public final class FileIOPool: Sendable {
    /// The process-wide pool: 4 threads, 65 536 queued jobs at most. Never shut down.
    ///
    /// Should not even one of its threads start, every job on it is rejected with
    /// ``FSError/Code-swift.struct/poolUnavailable`` naming the `pthread_create` error.
    public static let shared = FileIOPool(starting: 4, queueLimit: 65_536, threadName: "promise-fs")

    /// How many threads run jobs: as many as were asked for, unless the system refused some.
    public var threadCount: Int { threads.threadCount }
    /// How many jobs may wait at once; a job submitted past it is rejected at once with
    /// ``FSError/Code-swift.struct/poolUnavailable`` instead of growing memory without bound.
    public var queueLimit: Int { threads.queueLimit }

    /// The queue and its threads. The threads hold it, not the pool, so the pool's `deinit`
    /// runs once its users let go.
    let threads: PoolThreads

    /// The most threads a pool starts.
    public static let maxThreads = 256

    /// Creates a pool and starts its threads, named `promise-fs`.
    ///
    /// - Parameters:
    ///   - threads: How many threads run jobs, 1 to ``maxThreads``.
    ///   - queueLimit: How many jobs may wait at once (at least 1).
    /// - Throws: ``FSError`` with ``FSError/Code-swift.struct/invalidArgument`` for a count
    ///   out of range, or with the `pthread_create` error when not even one thread started (a pool
    ///   with fewer threads than asked still works, with ``threadCount`` telling how many).
    public convenience init(threads: Int = 4, queueLimit: Int = 65_536) throws(FSError) {
        try self.init(threads: threads, queueLimit: queueLimit, threadName: "promise-fs")
    }

    /// ``init(threads:queueLimit:)`` with threads named `threadName` (tests tell their
    /// pool's threads apart by it).
    init(threads: Int, queueLimit: Int, threadName: String) throws(FSError) {
        guard threads >= 1, threads <= Self.maxThreads, queueLimit >= 1 else {
            throw FSError(
                .invalidArgument, operation: "FileIOPool.init", path: "",
                activity:
                    "creating a FileIOPool with \(threads) threads and a queue limit of \(queueLimit): both must be at least 1, and the threads at most \(Self.maxThreads)"
            )
        }
        self.threads = PoolThreads(starting: threads, queueLimit: queueLimit, threadName: threadName)
        if let failure = self.threads.startFailure { throw failure }
    }

    /// Starts up to `threads` threads; when none starts, the pool is closed from the outset and
    /// refuses every job with the reason.
    private init(starting threads: Int, queueLimit: Int, threadName: String) {
        self.threads = PoolThreads(starting: threads, queueLimit: queueLimit, threadName: threadName)
    }

    /// `DroppedOwner`'s policy: shuts down as ``shutdown()`` does. The queued jobs still run
    /// and settle their promises, so nothing is lost and nothing is reported; then the
    /// threads end.
    deinit {
        _ = threads.shutdown()
    }

    /// Stops accepting jobs, lets the queued ones finish, and ends the threads.
    ///
    /// - Returns: A promise fulfilled once every thread has ended. Every call returns a promise
    ///   of its own, all settled the same way.
    @discardableResult
    public func shutdown() -> Promise<Void> {
        guard self !== FileIOPool.shared else {
            return Promise(
                FSError(
                    .poolUnavailable, operation: "shutdown", path: "",
                    activity: "shutting down FileIOPool.shared, which every PromiseFileSystem() without a pool uses; shut down a pool of your own instead"
                ))
        }
        return threads.shutdown()
    }

    /// Queues `job`; `false` when the pool is shut down or its queue is full.
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        threads.submit(job)
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
        let promise = Promise<T>.pending(resolvedOn: nil)
        if let bad = AdapterPaths.containsNUL(path) ? path : otherPath.flatMap({ AdapterPaths.containsNUL($0) ? $0 : nil }) {
            promise.reject(
                FSError(
                    .invalidArgument, operation: operation, path: bad,
                    activity: "\(operation): " + AdapterPaths.nulRefusal("the path", bad)
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
            let refusal = threads.refusal
            promise.reject(
                FSError(
                    .poolUnavailable, operation: operation, path: path,
                    activity: refusal.map { "\(operation) \(path): \($0.activity)" }
                        ?? "\(operation) \(path): the FileIOPool queue is full (\(queueLimit) jobs); wait for earlier work or raise queueLimit"
                ))
        }
        return promise
    }
}
