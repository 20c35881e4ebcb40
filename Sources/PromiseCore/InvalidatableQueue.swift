public import Dispatch
public import Synchronization

/// A dispatch queue wrapper that silently drops work once ``invalidate()`` has been called.
///
/// A closure passed to ``execute(_:)`` or ``executeAfter(_:_:)`` directly (not by a promise)
/// that reaches the queue after invalidation is dropped without running.
///
/// Use it for callbacks whose owner can go away (a connection handler, a request's
/// bookkeeping): invalidate the queue when the owner is done and no callback touches it after.
/// A promise whose callback is dropped is rejected with
/// ``PromiseError/Code-swift.struct/contextInvalidated`` rather than left pending, so the
/// promises chained after it settle too.
public final class InvalidatableQueue: ExecutionContext {
    @usableFromInline let queue: DispatchQueue
    @usableFromInline let valid: Atomic<Bool>

    /// Creates a context on `queue`.
    ///
    /// - Parameter queue: Where work runs while this context is valid.
    @_alwaysEmitIntoClient
    public init(queue: DispatchQueue) {
        self.queue = queue
        valid = Atomic(true)
    }

    /// Whether work is still being run.
    @_alwaysEmitIntoClient
    public var isValid: Bool { valid.load(ordering: .acquiring) }

    /// Drops every work item that has not started yet and all work submitted from now on.
    @_alwaysEmitIntoClient
    public func invalidate() {
        valid.store(false, ordering: .releasing)
    }

    /// Runs `work` on the underlying queue if this context is still valid when it gets there.
    ///
    /// - Parameter work: The work to run.
    @_alwaysEmitIntoClient
    public func execute(_ work: @escaping @Sendable () -> Void) {
        queue.async { [self] in
            if self.isValid { work() }
        }
    }

    /// Uses the underlying queue's timer; the work is dropped if the context is invalid by then.
    ///
    /// - Parameters:
    ///   - delay: How long to wait.
    ///   - work: The work to run.
    /// - Returns: A handle that cancels the work if it has not started.
    @_alwaysEmitIntoClient
    public func executeAfter(_ delay: Duration, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        queue.executeAfter(delay) { [self] in
            if self.isValid { work() }
        }
    }

    /// Runs `job` on the underlying queue if this context is still valid when it gets there,
    /// and refuses it otherwise, which rejects the promise waiting for it.
    @_alwaysEmitIntoClient
    public func submit(_ job: ContextJob) {
        queue.async { [self] in
            if self.isValid { job.run() } else { job.refuse() }
        }
    }

    /// Runs `job` after `delay` if this context is still valid then, and refuses it otherwise.
    @_alwaysEmitIntoClient
    public func submit(_ job: ContextJob, after delay: Duration) -> ScheduledWork {
        queue.executeAfter(delay) { [self] in
            if self.isValid { job.run() } else { job.refuse() }
        }
    }
}
