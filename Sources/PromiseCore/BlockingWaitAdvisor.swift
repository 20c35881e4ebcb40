/// A context that can advise blocking waits (see ``BlockingWaitAdvice``).
@_spi(ContextContract)
public protocol BlockingWaitAdvisor: AnyObject, Sendable {
    /// The context's name, as error messages show it (`UVLoop`, a queue's label).
    var contextName: String { get }
    /// Advice for a thread about to block in `awaitPromise` on a chain that needs this
    /// context. Called on that thread.
    func adviseBlockingWait() -> BlockingWaitAdvice
}
