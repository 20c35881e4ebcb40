/// A POSIX signal number that ``UVLoop/nextSignal(_:)`` can watch for.
///
/// The common ones have names, so a program needs no `Glibc` import to handle Ctrl-C:
///
/// ```swift
/// loop.nextSignal(.interrupt).then(on: loop) { _ in work.cancel() }
/// ```
public struct UVSignal: Hashable, Sendable, CustomStringConvertible {
    /// The signal number, as `signal(7)` lists it for Linux.
    public let rawValue: Int32

    /// A signal by number, such as `SIGWINCH` from `Glibc`.
    ///
    /// - Parameter rawValue: The signal number (1 through 64 on Linux).
    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// `SIGHUP` (1): the terminal hung up, or a daemon is asked to reload.
    public static let hangup = UVSignal(rawValue: 1)
    /// `SIGINT` (2): Ctrl-C on the terminal.
    public static let interrupt = UVSignal(rawValue: 2)
    /// `SIGQUIT` (3): Ctrl-\ on the terminal.
    public static let quit = UVSignal(rawValue: 3)
    /// `SIGUSR1` (10): meaning defined by the program.
    public static let user1 = UVSignal(rawValue: 10)
    /// `SIGUSR2` (12): meaning defined by the program.
    public static let user2 = UVSignal(rawValue: 12)
    /// `SIGTERM` (15): the polite request to stop that `kill` and service managers send.
    public static let terminate = UVSignal(rawValue: 15)
    /// `SIGWINCH` (28): the terminal was resized.
    public static let windowChanged = UVSignal(rawValue: 28)

    /// The conventional name, such as `SIGINT`, or `signal N` for one without a name here.
    public var description: String {
        switch rawValue {
        case 1: "SIGHUP"
        case 2: "SIGINT"
        case 3: "SIGQUIT"
        case 10: "SIGUSR1"
        case 12: "SIGUSR2"
        case 15: "SIGTERM"
        case 28: "SIGWINCH"
        default: "signal \(rawValue)"
        }
    }
}
