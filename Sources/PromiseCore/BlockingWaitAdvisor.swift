/// A context that can advise blocking waits (see ``BlockingWaitAdvice``).
@_spi(ContextContract)
public protocol BlockingWaitAdvisor: AnyObject, Sendable {
    /// The context's name, as error messages show it (`UVLoop`, a queue's label).
    var contextName: String { get }
    /// Advice for a thread about to block in `awaitPromise` on a chain that needs this
    /// context. Called on that thread.
    func adviseBlockingWait() -> BlockingWaitAdvice
}

/// A context that can do the work settling one of its promises on the thread that is about to
/// wait for it, sparing two thread switches: handing the work to the context's thread, and the
/// result back to the waiter.
///
/// ``Promise/get()`` asks before the task suspends, ``awaitPromise(_:timeout:)`` before the
/// thread blocks (and before its deadlock check, which work done here makes moot). The
/// context should agree only when the work would start at once anyway: it is next in line
/// and the context's own thread is idle, so never from a thread running the context's work.
/// When it does not run the work here, it may ask the waiter to poll for the result for a
/// short while first (``WaitingThreadHelp/poll(for:)``): a result that arrives meanwhile
/// spares the waiter the wake-up that suspending or blocking costs.
@_spi(ContextContract)
public protocol WaitingThreadRunner: BlockingWaitAdvisor {
    /// Runs the work that settles `promise` on the calling thread, if the context can do so
    /// now. Called on the waiting thread, with `promise` pending and resolved by this context.
    ///
    /// - Parameters:
    ///   - promise: The awaited promise's `ObjectIdentifier`.
    ///   - blocking: `true` for a thread about to block (`awaitPromise`); `false` for a task
    ///     about to suspend (`get()`), whose thread would otherwise run other tasks.
    /// - Returns: Whether the work ran (the promise is settled then), or how the waiter waits.
    func runOnWaitingThread(settling promise: ObjectIdentifier, blocking: Bool) -> WaitingThreadHelp

    /// How long a task in ``Promise/get()`` polls for the result before anything else, or
    /// `nil` for none. Called on the waiting task, with `promise` pending and resolved by this
    /// context, before ``runOnWaitingThread(settling:blocking:)``.
    ///
    /// The task polls before it installs its cancellation handler, because installing one
    /// from an actor known only at run time (the main actor, through `get()`'s
    /// `nonisolated(nonsending)`) hops off the actor and back: two thread switches, which cost
    /// more than the work a poll waits for. A cancellation of the task takes effect after the
    /// poll, up to `limit` later. Return `nil` when the work may run on the waiting task
    /// instead: work run there must be reachable by the task's cancellation.
    ///
    /// - Parameter promise: The awaited promise's `ObjectIdentifier`.
    /// - Returns: The polling limit, or `nil`.
    func pollLimitBeforeSuspending(settling promise: ObjectIdentifier) -> Duration?
}

/// What a ``WaitingThreadRunner`` did for a thread about to wait.
@_spi(ContextContract)
public enum WaitingThreadHelp: Sendable, Equatable {
    /// The work ran on the waiting thread: the promise is settled.
    case ran
    /// The waiter suspends or blocks at once.
    case declined
    /// The work runs on the context's own thread, which is awake (or about to be) and quick
    /// to finish: the waiter polls for the result for up to `limit` before it suspends or
    /// blocks. On a machine where waking a sleeping thread costs tens of microseconds, a
    /// result that comes within the limit arrives that much sooner. A limit over a second
    /// polls for a second.
    case poll(for: Duration)
}
