/// How a child process ended: the status it exited with, or the signal that ended it.
public enum UVProcessExit: Sendable, Hashable, CustomStringConvertible {
    /// The child called `exit` (or returned from `main`) with `status` (0 through 255).
    case exited(Int32)
    /// A signal ended the child, such as `SIGKILL` (9) or `SIGTERM` (15).
    case signaled(Int32)

    /// Whether the child exited with status 0.
    public var isSuccess: Bool { self == .exited(0) }

    /// `exited with status 3`, `killed by signal 9`.
    public var description: String {
        switch self {
        case .exited(let status): "exited with status \(status)"
        case .signaled(let signal): "killed by signal \(signal)"
        }
    }
}
