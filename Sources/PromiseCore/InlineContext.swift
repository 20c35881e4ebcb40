/// Runs callbacks on the thread that resolves the promise, as soon as it is resolved.
///
/// The one documented exception to "callbacks never run inside `then`": chaining onto an
/// already resolved promise with the inline context runs the callback before `then` returns.
/// Callbacks are still drained in a loop, so a long inline chain does not grow the stack.
///
/// Use it for cheap, thread-safe callbacks, where a hop to a queue would cost more than the
/// work: forwarding a value, signalling a semaphore, bookkeeping under a lock.
public struct InlineContext: ExecutionContext {
    /// Creates the inline context.
    @_alwaysEmitIntoClient
    public init() {}

    /// Runs `work` immediately on the calling thread.
    ///
    /// - Parameter work: The work to run.
    @_alwaysEmitIntoClient
    public func execute(_ work: @escaping @Sendable () -> Void) {
        work()
    }
}

extension ExecutionContext where Self == InlineContext {
    /// The inline context: callbacks run on the resolving thread. See ``InlineContext``.
    @_alwaysEmitIntoClient
    public static var inline: InlineContext { InlineContext() }
}
