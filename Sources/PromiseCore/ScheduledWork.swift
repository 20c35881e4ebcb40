/// A handle to work scheduled with ``ExecutionContext/executeAfter(_:_:)``.
public struct ScheduledWork: Sendable {
    private let onCancel: @Sendable () -> Void

    /// Creates a handle whose ``cancel()`` calls `cancel`.
    ///
    /// - Parameter cancel: Stops the scheduled work; called at most as often as ``cancel()`` is.
    public init(cancel: @escaping @Sendable () -> Void) {
        self.onCancel = cancel
    }

    /// Stops the work if it has not started yet; otherwise does nothing.
    public func cancel() {
        onCancel()
    }
}
