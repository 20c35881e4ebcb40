import PromiseCore

/// A libuv event loop that runs promise callbacks, timers and Swift tasks on one thread.
///
/// A `UVLoop` owns its own `uv_loop_t` (never libuv's global default loop) and every handle on
/// it. Exactly one thread runs it at a time: the thread that calls ``run()`` (a command-line
/// program's main thread can be the loop), or a thread of its own started by
/// ``startThread(named:)`` (a server). Everything else reaches the loop by queueing work.
///
/// ```swift
/// let loop = try UVLoop()
/// Promises.defaultContext = loop          // callbacks without `on:` now run on the loop
/// loop.after(.milliseconds(10))
///     .then { print("ten milliseconds later, on the loop thread") }
/// loop.run()                              // returns when no work is left
/// try awaitPromise(loop.shutdown())
/// ```
///
/// ## Threading
///
/// Work from other threads (promise callbacks, `Task` jobs, timers started elsewhere) enters
/// through one queue and one `uv_async_t`. Wake-ups coalesce: however many items are queued,
/// at most one `uv_async_send` is pending, and each wake-up drains the whole queue in order,
/// so work from one thread runs in the order it was submitted. Work submitted on the loop
/// thread itself runs right after the current callback, in the same loop iteration, without
/// a wake-up.
///
/// ## Keeping the loop alive
///
/// ``run()`` returns as soon as no work is left, as Node's event loop does. Work is a pending
/// timer (``after(_:)``, `delay`, `timeout`, `retry`), pool work (``work(_:)``), a queued
/// callback, a promise passed to ``keepAlive(until:)``, and every promise callback bound to
/// the loop that waits on a pending promise: `then(on: loop)`, or any chaining method while
/// the loop is `Promises.defaultContext`. So a chain that another product finishes (an
/// HTTP response, a file read, a query) keeps the loop running until its callbacks on the
/// loop have run, and a callback whose promise is dropped unresolved stops counting once its
/// broken-promise rejection is delivered. Callbacks bound to ``unreferenced`` do not count:
/// use it for background work that must not keep a program alive. The loop's own handles do
/// not count either. A file watch (``nextChange(of:recursive:keepsLoopAlive:)`` and the rest) counts
/// unless started with `keepsLoopAlive: false`. A loop started with ``startThread(named:)``
/// runs until ``shutdown()``.
///
/// ## Blocking waits
///
/// `awaitPromise` on a promise whose chain needs this loop runs the loop on the calling
/// thread until the promise settles when no thread runs it yet (so a program may wait before
/// its first ``run()``), blocks when another thread runs it, and throws
/// `PromiseError.Code.deadlock` when called inside one of the loop's own callbacks, where
/// `uv_run` cannot be entered again.
///
/// ## Shutting down
///
/// ``shutdown()`` refuses new work at once (``UVError/Code-swift.struct/loopClosed``), rejects
/// pending timers, cancels pool work that has not started, waits for pool work that has,
/// closes every handle and then the loop. Handles are freed only in their close callbacks.
///
/// A loop deallocated without ``shutdown()`` is shut down the same way, and every promise it
/// owed settles. A thread started with ``startThread(named:)`` shuts it down, then ends. When
/// no thread runs it, nothing else ever can (the `UVLoop` is gone), so the deallocating thread
/// does it before the deallocation returns: it runs the loop's last turn (callbacks queued
/// before, and waiting for pool work already running) and closes it, as ``shutdown()`` called
/// there would. libuv is still only ever called by the one thread that runs the loop. If
/// that rejected pending timers, pool work, signal or file watches, or the close failed (the loop's
/// memory is then leaked), a `notShutDown` diagnostic says so (see
/// `Promises.diagnosticsHandler`). Call ``shutdown()`` yourself to choose where and when
/// this happens. Promise callbacks bound to the loop do not keep the `UVLoop` alive; a
/// closure that captures it does.
public final class UVLoop: ExecutionContext, Sendable {
    let core: LoopCore
    /// What promise callbacks bound to this loop store as their context.
    let context: LoopContext

    /// `DroppedOwner`'s policy: shuts the loop down as ``shutdown()`` does, on the thread
    /// running it or, when none does, on this one (see "Shutting down" above).
    deinit {
        core.dropOwner()
    }

    /// Creates a loop. It does nothing until a thread runs it with ``run()`` or
    /// ``startThread(named:)``; work submitted meanwhile waits.
    ///
    /// - Throws: ``UVError`` when libuv cannot create the loop (`uv_loop_init`,
    ///   `uv_async_init`: usually too many open files).
    public init() throws(UVError) {
        core = try LoopCore.make()
        context = LoopContext(core)
    }

    /// Whether the calling thread is the one running this loop right now (after the loop has
    /// closed: whether it is running a Swift concurrency job that arrived late, see
    /// ``enqueue(_:)``).
    public var isOnLoopThread: Bool { core.isOnLoopThread }

    // MARK: Running

    /// Runs the loop on the calling thread until no work is left, then returns.
    ///
    /// Work is pending timers, pool work, queued callbacks and promises passed to
    /// ``keepAlive(until:)``. Call it again to run work submitted later. After
    /// ``shutdown()`` it returns at once.
    ///
    /// On the process's main thread, the main dispatch queue runs on the loop meanwhile:
    /// `DispatchQueue.main.async` blocks, `@MainActor` functions and a `main.swift`'s
    /// top-level `Task {}`. They do not keep the loop running by themselves (see
    /// ``keepAlive(until:)``).
    ///
    /// Only one thread may run a loop at a time, and `run()` must not be called from inside
    /// the loop (libuv's `uv_run` is not reentrant): both stop the program with a message.
    /// It blocks the calling thread, so never call it from Swift concurrency code.
    @available(*, noasync, message: "blocks the calling thread until the loop has no work; run the loop on its own thread with startThread(named:) instead")
    public func run() {
        guard core.claimForRun() else { return }
        core.drive(runningMainQueue: true)
    }

    /// Runs the loop on the calling thread until `promise` has settled and no other work is
    /// left, then returns the promise's value.
    ///
    /// ```swift
    /// let report = try loop.run(until: buildReport())
    /// ```
    ///
    /// Running children, file watches and repeating timers are work too: with a child started
    /// by ``start(_:)`` that reads its input to the end, `run(until: input.write(bytes))` does
    /// not return until that child exits, which waits for ``UVStandardInput/finish()``. Talk to
    /// a running child from another thread, with the loop on its own (``startThread(named:)``).
    ///
    /// - Parameter promise: The promise to wait for; it keeps the loop alive while pending.
    /// - Returns: The promise's value.
    /// - Throws: The promise's error; `PromiseError.Code.brokenPromise` or a
    ///   ``UVError`` if the loop was shut down before the promise could settle.
    @available(*, noasync, message: "blocks the calling thread until the loop has no work")
    public func run<Value: Sendable>(until promise: Promise<Value>) throws -> Value {
        keepAlive(until: promise)
        run()
        if promise.isPending {
            throw UVError(.loopClosed, operation: "run(until:)", detail: "the UVLoop was shut down while the promise was still pending")
        }
        return try awaitPromise(promise)
    }

    /// Starts a thread named `name` that runs the loop until ``shutdown()`` completes.
    ///
    /// A loop on its own thread does not stop when it runs out of work: it waits for more,
    /// like a server's event loop.
    ///
    /// - Parameter name: The thread's name, as `ps -L` and debuggers show it (Linux keeps
    ///   the first 15 bytes); `promise-uv` by default, like the other products' threads.
    /// - Throws: ``UVError`` when the thread cannot be started (`pthread_create`), or with
    ///   ``UVError/Code-swift.struct/loopClosed`` if the loop was shut down.
    ///   Starting a loop that is already running stops the program with a message.
    public func startThread(named name: String = "promise-uv") throws(UVError) {
        guard core.claimForThread(named: name) else {
            throw UVError(.loopClosed, operation: "startThread", detail: "the UVLoop was shut down; create a new one")
        }
        let core = self.core
        let status = LoopThread.start(name: name) { core.drive() }
        if status != 0 {
            core.unclaim()
            throw UVError(UVError.Code(uvCode: -status), operation: "pthread_create", detail: "starting the UVLoop thread \(name)")
        }
    }

    /// Keeps the loop running until `promise` settles, for work that something outside the
    /// loop completes (another thread, another library's pool).
    ///
    /// ```swift
    /// loop.keepAlive(until: fs.readFile(path).then(on: loop) { text in print(text) })
    /// loop.run()
    /// ```
    ///
    /// This neither consumes the promise nor handles its rejection: cancellation and
    /// unhandled-rejection reports work as if it had not been called.
    ///
    /// - Parameter promise: The promise to wait for.
    /// - Returns: `promise`, for chaining.
    @discardableResult
    public func keepAlive<Value: Sendable>(until promise: Promise<Value>) -> Promise<Value> {
        let core = self.core
        core.retain()
        promise.whenSettled { core.release() }
        return promise
    }

    /// Shuts the loop down and releases everything it holds.
    ///
    /// From the moment it is called, new work is refused: ``after(_:)`` and ``work(_:)``
    /// return promises rejected with ``UVError/Code-swift.struct/loopClosed``, and promise
    /// callbacks bound to the loop are rejected with
    /// `PromiseError.Code.contextInvalidated`. Work queued before it still
    /// runs. Then, on the loop thread: pending timers are rejected with
    /// ``UVError/Code-swift.struct/loopClosed`` (core `delay`/`timeout`/`retry` timers with
    /// `contextInvalidated`), pool work that has not started is cancelled and rejected with
    /// ``UVError/Code-swift.struct/loopClosed``, pool work already running finishes and
    /// delivers its result, file watches end with ``UVError/Code-swift.struct/loopClosed``,
    /// every handle is closed with `uv_close` and freed in its close callback, and the loop is
    /// closed with `uv_loop_close`.
    ///
    /// If no thread is running the loop, the calling thread does this before returning: it
    /// runs what was queued before the call (pool work included, which it waits for). Swift tasks and actors using the loop
    /// as their executor should finish first: a job that arrives after the loop closed runs
    /// on a serial queue standing in for the loop thread, where every loop operation is
    /// refused (see ``enqueue(_:)``). A task on the loop that awaits this promise itself
    /// resumes on the loop thread just after the loop closed, as its last turn; an actor on
    /// the loop resumes there too, or on that serial queue when the `await` hopped off the
    /// actor first.
    ///
    /// - Returns: A promise fulfilled once the loop is closed, rejected with a ``UVError`` if
    ///   `uv_loop_close` fails. Every call returns a promise of its own, all settled the same
    ///   way, so a caller that cancels its own (a `timeout`) leaves the others waiting.
    @discardableResult
    public func shutdown() -> Promise<Void> {
        let (promise, drive) = core.requestShutdown()
        if drive { core.drive() }
        return promise
    }

    // MARK: ExecutionContext

    /// Runs `work` on the loop thread: right after the current callback when called on the
    /// loop thread, otherwise at the loop's next wake-up, in submission order.
    ///
    /// After ``shutdown()`` the work is refused, as an invalidated `InvalidatableQueue` does:
    /// for work that PromiseCore submitted (every promise callback), the promise waiting for
    /// it is rejected with `PromiseError.Code.contextInvalidated`. A plain closure passed here
    /// directly is dropped without running, and the first such drop in the process is
    /// reported with one line on standard error.
    ///
    /// - Parameter work: The work to run.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        core.execute(work)
    }

    /// Runs PromiseCore's `job` like ``execute(_:)``; after ``shutdown()`` it is refused,
    /// which rejects the promise waiting for it with `PromiseError.Code.contextInvalidated`.
    public func submit(_ job: ContextJob) {
        core.submit(job)
    }

    /// `true`: a callback bound to the loop that waits on a pending promise keeps ``run()``
    /// going until it is delivered (see "Keeping the loop alive").
    public var keepsAliveWhileCallbacksWait: Bool { true }

    /// Counts one more waiting callback: the loop keeps running.
    public func callbackBeganWaiting() {
        core.retainForCallback()
    }

    /// Counts one waiting callback less.
    public func callbackStoppedWaiting() {
        core.release()
    }

    /// This loop as a context whose waiting callbacks do not keep ``run()`` going: for
    /// background work that must not keep a program alive (libuv's `uv_unref`). Callbacks
    /// still run on this loop, in the same turns as the loop's own (same
    /// ``executionContextID``), whenever the loop runs.
    ///
    /// ```swift
    /// metrics.nextSample().then(on: loop.unreferenced) { sample in record(sample) }
    /// ```
    public var unreferenced: UnreferencedUVLoop { UnreferencedUVLoop(loop: self) }

    /// The loop's identity: promise callbacks on this loop that become ready while it runs
    /// one of its callbacks run in the same turn.
    public var executionContextID: ObjectIdentifier? { core.contextID }
}
