/// One step of stopping a child process: a signal, then how long the child has to exit before
/// the next step. After the last step's wait, the child gets `SIGKILL`.
///
/// ```swift
/// var command = UVCommand("my-server")
/// command.teardown = [
///     .signal(.interrupt, wait: .seconds(2)),     // like Ctrl-C: finish the request in hand
///     .signal(.terminate, wait: .seconds(5)),     // then SIGTERM; SIGKILL after 5 more seconds
/// ]
/// ```
public struct UVTeardownStep: Sendable, Hashable {
    /// The signal sent.
    public var signal: UVSignal
    /// How long the child has to exit before the next step (or `SIGKILL`). Zero goes on at
    /// once; negative durations are refused by ``UVLoop/spawn(_:)`` with
    /// ``UVError/Code-swift.struct/invalidArgument``.
    public var wait: Duration

    /// Creates a step that sends `signal`, then waits `wait`.
    ///
    /// - Parameters:
    ///   - signal: The signal sent.
    ///   - wait: How long the child has to exit before the next step.
    public init(_ signal: UVSignal, wait: Duration) {
        self.signal = signal
        self.wait = wait
    }

    /// A step that sends `signal`, then waits `wait`.
    ///
    /// - Parameters:
    ///   - signal: The signal sent.
    ///   - wait: How long the child has to exit before the next step.
    /// - Returns: The step.
    public static func signal(_ signal: UVSignal, wait: Duration) -> UVTeardownStep {
        UVTeardownStep(signal, wait: wait)
    }
}
