/// Which errors a `catch` or `recover` handler sees.
///
/// Cancellation is usually not an error to recover from: the user asked the work to stop.
/// So handlers skip `CancellationError` by default and it flows on to the end of the chain,
/// where `always` still runs. Pass ``allErrors`` to handle cancellation too.
public struct CatchPolicy: Hashable, Sendable {
    @usableFromInline let includesCancellation: Bool

    @_alwaysEmitIntoClient init(includesCancellation: Bool) { self.includesCancellation = includesCancellation }

    /// Every error except `CancellationError` (the default).
    @_alwaysEmitIntoClient
    public static var allErrorsExceptCancellation: CatchPolicy { CatchPolicy(includesCancellation: false) }
    /// Every error, `CancellationError` included.
    @_alwaysEmitIntoClient
    public static var allErrors: CatchPolicy { CatchPolicy(includesCancellation: true) }

    /// Whether a handler with this policy is called for `error`.
    ///
    /// - Parameter error: The rejection reason.
    /// - Returns: `true` if the handler should run.
    @_alwaysEmitIntoClient
    public func handles(_ error: any Error) -> Bool {
        includesCancellation || !(error is CancellationError)
    }
}
