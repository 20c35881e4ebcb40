public import Dispatch

extension DispatchQueue: ExecutionContext {
    /// Submits `work` with `async`.
    ///
    /// - Parameter work: The work to run on this queue.
    @_alwaysEmitIntoClient
    public func execute(_ work: @escaping @Sendable () -> Void) {
        self.async(execute: work)
    }

    /// Uses this queue's own timer (`asyncAfter`).
    ///
    /// - Parameters:
    ///   - delay: How long to wait.
    ///   - work: The work to run on this queue.
    /// - Returns: A handle that cancels the work if it has not started.
    @_alwaysEmitIntoClient
    public func executeAfter(_ delay: Duration, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        CancellableWork.schedule(on: self, after: delay, work)
    }

    /// The queue's identity: callbacks for this queue that become ready while the library runs
    /// work on it join that work's turn.
    @_alwaysEmitIntoClient
    public var executionContextID: ObjectIdentifier? { ObjectIdentifier(self) }
}
