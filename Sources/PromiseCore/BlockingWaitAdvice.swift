/// What a context says when a thread is about to block waiting for a promise whose chain
/// needs that context.
@_spi(ContextContract)
public enum BlockingWaitAdvice: Sendable {
    /// Another thread runs the context: blocking is safe.
    case block
    /// The calling thread is the only one that could run the context and cannot do so now:
    /// `awaitPromise` throws ``PromiseError/Code-swift.struct/deadlock`` with this reason.
    case deadlock(reason: String)
    /// Nobody runs the context: the calling thread runs it with the closure until the
    /// ``BlockingWait`` is settled or its timeout has passed. The closure returns `false` if
    /// it could not take the context after all (another thread claimed it meanwhile), and the
    /// caller then blocks.
    case drive(@Sendable (BlockingWait) -> Bool)
}
