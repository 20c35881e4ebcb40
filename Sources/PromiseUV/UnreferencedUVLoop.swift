import PromiseCore

/// A ``UVLoop`` seen as a context whose waiting callbacks do not keep the loop running
/// (libuv's `uv_unref` for promise callbacks). Get one from ``UVLoop/unreferenced``.
///
/// Work runs on the loop exactly as with the loop itself, and shares its turns; only
/// ``UVLoop/run()``'s decision to return ignores callbacks waiting here.
public struct UnreferencedUVLoop: ExecutionContext {
    /// The loop the work runs on.
    public let loop: UVLoop

    /// Runs `work` on the loop, as ``UVLoop/execute(_:)`` does.
    ///
    /// - Parameter work: The work to run.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        loop.execute(work)
    }

    /// Runs `work` on the loop after `delay`, as ``UVLoop/executeAfter(_:_:)`` does. The timer
    /// keeps the loop running while it is pending, like every libuv timer.
    ///
    /// - Parameters:
    ///   - delay: How long to wait.
    ///   - work: The work to run.
    /// - Returns: A handle that cancels the work if it has not started.
    public func executeAfter(_ delay: Duration, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        loop.executeAfter(delay, work)
    }

    /// The loop's identity, so callbacks here share turns with the loop's own.
    public var executionContextID: ObjectIdentifier? { loop.executionContextID }

    /// Runs or refuses `job` as the loop does.
    public func submit(_ job: ContextJob) {
        loop.submit(job)
    }

    /// Runs or refuses `job` after `delay` as the loop does.
    public func submit(_ job: ContextJob, after delay: Duration) -> ScheduledWork {
        loop.submit(job, after: delay)
    }
}
