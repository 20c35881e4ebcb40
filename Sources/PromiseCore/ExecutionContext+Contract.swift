// The life of a callback: the contract between PromiseCore and an execution context.
//
// 1. Registration. `then(on: context)` on a pending promise stores a callback. If the context
//    answers `keepsAliveWhileCallbacksWait` with `true`, the core first calls
//    `callbackBeganWaiting()`: the context now knows a callback waits for it, and keeps
//    running (a `UVLoop` does not let `run()` return). A callback registered on a promise
//    that is already settled never waits, so it is never announced.
// 2. Delivery. When the promise settles, the core hands the callback to the context as a
//    `ContextJob` through `submit(_:)` (`delay`, `timeout` and `retry` timers through
//    `submit(_:after:)`), or runs it in the current turn when it belongs to the context the
//    thread is running right now. Then, for an announced callback, it calls
//    `callbackStoppedWaiting()`: the work is queued by then, so the context never sees a
//    moment with neither. In an adapter's batched turn (`Internal/HopBatch.swift`), the
//    callbacks for one serial context share one job: the first callback submits it, and the
//    ones that join it are queued by being added to it while it has not finished.
// 3. Breakage. A pending promise that is deallocated rejects its callbacks with
//    `brokenPromise`; they are delivered (step 2) and stop waiting like any other. So a
//    callback that can never run releases its context too.
// 4. Refusal. A context that will not run a job (it was invalidated or shut down) calls the
//    job's `refuse()` instead of `run()`: the promise the job would have resolved is rejected
//    with `contextInvalidated`, and its dependents hear of it. Closures given to `execute(_:)`
//    directly have no promise behind them; a refusing context drops them.
// 5. Blocking waits. Every promise an operator creates names the context whose work settles
//    it (`Promise(resolvingContextID:)`); the scheduler checks, in debug builds, that work
//    handed to a context is for a promise naming it. `awaitPromise` walks the pending steps of
//    the awaited chain (through `then`, adopted promises and the inputs of combinators). A
//    step resolved by the context whose turn the calling thread is running, or by the main
//    queue while the calling thread blocks it, would never settle: it throws `deadlock`,
//    naming the context. The rule is written once, in `AwaitPromise.swift`. A context registered with `ContextRegistry` is asked
//    for `BlockingWaitAdvice` first: block, refuse with a reason, or drive the context on the
//    calling thread until the promise settles (a `UVLoop` that nobody runs yet). A registered
//    `WaitingThreadRunner` is also asked, by `awaitPromise` before blocking and by `get()`
//    before suspending, to run the work that settles the awaited promise on the waiting
//    thread when that work is next and its own thread idle (an SQLite connection).
//
// Every hook has a default that does nothing special, so a plain `execute(_:)` conformance
// behaves as it always has.

/// Library work handed to an execution context: run it, or refuse it.
///
/// Made by PromiseCore for every promise callback and timer it submits through
/// ``ExecutionContext/submit(_:)``. Call exactly one of ``run()`` and ``refuse()``, once.
public struct ContextJob: Sendable {
    @usableFromInline let owner: (any PromiseNode)?
    /// The work wrapped in a turn of its context (see ``run()``): a context hands this closure
    /// to `execute(_:)` as it is, without wrapping it in another.
    @usableFromInline let turn: @Sendable () -> Void

    /// A job running `work` as a turn of the context identified by `contextID`.
    @_alwaysEmitIntoClient
    init(contextID: ObjectIdentifier?, owner: (any PromiseNode)?, work: @escaping @Sendable () -> Void) {
        self.owner = owner
        self.turn = { Scheduler.runTurn(contextID, work) }
    }

    /// A job whose `turn` already runs its work through `Scheduler.runTurn`, so that a
    /// callback's hop allocates one closure, not three.
    @_alwaysEmitIntoClient
    init(owner: (any PromiseNode)?, turn: @escaping @Sendable () -> Void) {
        self.owner = owner
        self.turn = turn
    }

    /// The job as a closure that runs it (``run()``), for a context in another of the
    /// package's modules to queue as it is.
    package var runner: @Sendable () -> Void { turn }

    /// Runs the job as one turn of its context: callbacks for the same context that become
    /// ready meanwhile run right after it, without another hop.
    @_alwaysEmitIntoClient
    public func run() {
        turn()
    }

    /// Declines the job: the promise it would have resolved is rejected with
    /// ``PromiseError/Code-swift.struct/contextInvalidated`` (a timer's promise, a callback's
    /// derived promise), so nothing waits for it forever.
    @_alwaysEmitIntoClient
    public func refuse() {
        owner?.abandon()
    }
}

extension ExecutionContext {
    /// Runs `job` with ``execute(_:)``.
    @_alwaysEmitIntoClient
    public func submit(_ job: ContextJob) {
        execute(job.turn)
    }

    /// Runs `job` with ``executeAfter(_:_:)``.
    @_alwaysEmitIntoClient
    public func submit(_ job: ContextJob, after delay: Duration) -> ScheduledWork {
        executeAfter(delay, job.turn)
    }

    /// `false`: the context does not care whether callbacks wait for it.
    @_alwaysEmitIntoClient
    public var keepsAliveWhileCallbacksWait: Bool { false }

    /// Does nothing.
    @_alwaysEmitIntoClient
    public func callbackBeganWaiting() {}

    /// Does nothing.
    @_alwaysEmitIntoClient
    public func callbackStoppedWaiting() {}
}
