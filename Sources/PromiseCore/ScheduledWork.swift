/// A handle to work scheduled with ``ExecutionContext/executeAfter(_:_:)``.
public struct ScheduledWork: Sendable {
    @usableFromInline let onCancel: @Sendable () -> Void

    /// Creates a handle whose ``cancel()`` calls `cancel`.
    ///
    /// - Parameter cancel: Stops the scheduled work; called at most as often as ``cancel()`` is.
    @_alwaysEmitIntoClient
    public init(cancel: @escaping @Sendable () -> Void) {
        self.onCancel = cancel
    }

    /// Stops the work if it has not started yet; otherwise does nothing.
    @_alwaysEmitIntoClient
    public func cancel() {
        onCancel()
    }
}
