import PromiseCore

/// A program to run as a child process of a ``UVLoop``, with its arguments, environment,
/// working directory and standard streams: what ``UVLoop/spawn(_:)`` starts.
///
/// ```swift
/// var command = UVCommand("sort", arguments: ["-r"])
/// command.standardInput = .text("b\na\nc\n")
/// command.standardOutput = .capture(limit: 1 << 20)
/// ```
///
/// Every descriptor the loop opens for a child is close-on-exec, so the child sees its three
/// standard streams and nothing else of this process's.
public struct UVCommand: Sendable {
    /// The program: a path when it contains a `/` (relative to ``workingDirectory`` when that
    /// is set), otherwise a name looked up in the directories of `PATH` (the child's `PATH`
    /// when ``environment`` sets one, this process's otherwise, `/usr/local/bin:/usr/bin:/bin`
    /// when neither has one). The child's `argv[0]` is this string as given.
    public var program: String
    /// The arguments after `argv[0]`, passed as they are: no shell, no quoting, no globbing.
    public var arguments: [String]
    /// The child's environment: this process's, replaced, or amended.
    public var environment: Environment
    /// The child's working directory; `nil` for this process's.
    public var workingDirectory: String?
    /// Where the child's standard input comes from; `/dev/null` by default.
    public var standardInput: Input
    /// Where the child's standard output goes; captured (up to 16 MiB) by default.
    public var standardOutput: Output
    /// Where the child's standard error goes; captured (up to 16 MiB) by default.
    public var standardError: Output
    /// How long a cancelled child has between `SIGTERM` and `SIGKILL`; zero sends `SIGKILL`
    /// at once. Five seconds by default. Negative durations are refused with
    /// ``UVError/Code-swift.struct/invalidArgument``.
    public var terminationGrace: Duration

    /// Creates a command.
    ///
    /// - Parameters:
    ///   - program: A path, or a name looked up on `PATH` (see ``program``).
    ///   - arguments: The arguments after `argv[0]`.
    ///   - environment: The child's environment; this process's by default.
    ///   - workingDirectory: The child's working directory; this process's by default.
    ///   - standardInput: The child's standard input; `/dev/null` by default.
    ///   - standardOutput: The child's standard output; captured by default.
    ///   - standardError: The child's standard error; captured by default.
    ///   - terminationGrace: Time between `SIGTERM` and `SIGKILL` on cancellation.
    public init(
        _ program: String,
        arguments: [String] = [],
        environment: Environment = .inherit,
        workingDirectory: String? = nil,
        standardInput: Input = .null,
        standardOutput: Output = .capture(),
        standardError: Output = .capture(),
        terminationGrace: Duration = .seconds(5)
    ) {
        self.program = program
        self.arguments = arguments
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.standardInput = standardInput
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.terminationGrace = terminationGrace
    }
}
