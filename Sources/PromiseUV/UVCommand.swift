#if Tracing
    public import Tracing
#endif
#if Metrics
    public import CoreMetrics
#endif
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
/// The child gets descriptors 0, 1 and 2, those ``extraDescriptors`` names, and no other:
/// every other descriptor of this program is closed in the child before its program starts,
/// whether it was opened with close-on-exec (`O_CLOEXEC`) or not.
public struct UVCommand: Sendable {
    /// The program: a path when it contains a `/` (relative to ``workingDirectory`` when that
    /// is set), otherwise a name looked up in the directories of `PATH` (the child's `PATH`
    /// when ``environment`` sets one, this process's otherwise, `/usr/local/bin:/usr/bin:/bin`
    /// when neither has one). The child's `argv[0]` is this string as given, unless
    /// ``argv0`` says otherwise.
    public var program: String
    /// The child's `argv[0]`, when it should differ from ``program``: the name a multi-call
    /// program (`busybox`) acts as, or the name `ps` shows. `nil` (the default) passes
    /// ``program`` as given.
    public var argv0: String?
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
    /// How a cancelled child is stopped: each step's signal, then its wait for the child to
    /// exit; `SIGKILL` once the last wait ends, and at once for no steps. `SIGTERM` with five
    /// seconds to exit by default. A loop's shutdown sends `SIGKILL` at once, whatever is left.
    /// The signals go to the child alone, or to its whole process group when it has one of
    /// its own (``processGroup``).
    public var teardown: [UVTeardownStep]
    /// The total time a cancelled child has before `SIGKILL`: the sum of the teardown's waits.
    /// Setting it makes the teardown `SIGTERM` with that long to exit (zero: `SIGKILL` at
    /// once). Negative durations are refused with ``UVError/Code-swift.struct/invalidArgument``.
    public var terminationGrace: Duration {
        get { teardown.reduce(.zero) { $0 + $1.wait } }
        set { teardown = newValue == .zero ? [] : [.signal(.terminate, wait: newValue)] }
    }
    /// Whether the child stays in this process's process group or gets its own.
    public var processGroup: ProcessGroup
    /// Descriptors of this program that the child gets beside 0, 1 and 2, keyed by the number
    /// the child sees each as: `[3: socket]` gives the child a copy of `socket` as its
    /// descriptor 3 (Node's `stdio` array past its third entry). Empty by default.
    ///
    /// Each descriptor is copied when the command is handed to ``UVLoop/spawn(_:)`` or
    /// ``UVLoop/start(_:)``, so this program may close its own at once. A number under 3 or
    /// not under the descriptor limit (`RLIMIT_NOFILE`) fails the spawn with
    /// ``UVError/Code-swift.struct/invalidArgument``; a descriptor this program does not hold
    /// open, with libuv's `EBADF`, operation `spawn`.
    public var extraDescriptors: [Int32: Int32]
    /// A pseudo-terminal to run the child in, of the given window size; `nil` (the default)
    /// for none. See ``Terminal`` for what the child's standard streams are then.
    public var terminal: Terminal?
    #if Tracing
        /// The tracer of the child's span, or `nil` (the default) for the tracer the process
        /// bootstrapped (`InstrumentationSystem.tracer`), read when the command is started. With the
        /// Tracing trait only; see "Tracing and metrics" in the docs.
        public var tracer: (any Tracer)?
    #endif
    #if Metrics
        /// The factory of the child's counters and timer, or `nil` (the default) for the one the
        /// process bootstrapped (`MetricsSystem.factory`), read when the command is started. With
        /// the Metrics trait only; see "Tracing and metrics" in the docs.
        public var metricsFactory: (any MetricsFactory)?
    #endif

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
        self.teardown = terminationGrace == .zero ? [] : [.signal(.terminate, wait: terminationGrace)]
        self.processGroup = .inherited
        self.argv0 = nil
        self.extraDescriptors = [:]
        self.terminal = nil
    }

    /// The process group a child runs in.
    public enum ProcessGroup: Sendable, Hashable {
        /// This process's group and session, like every child by default: a terminal's
        /// Ctrl-C reaches it too, and stopping it stops nothing it started.
        case inherited
        /// A new process group that the child leads (`setpgid(0, 0)`), in this process's
        /// session: the teardown's signals go to the whole group, so stopping it stops what it
        /// started (unless they left the group themselves), while it keeps this process's
        /// controlling terminal. A terminal's Ctrl-C, which goes to the foreground group only,
        /// no longer reaches it.
        case ownGroup
        /// A new session, whose process group the child leads (`setsid`): as ``ownGroup``, and
        /// without a controlling terminal, so nothing a terminal does reaches it.
        case ownSession

        /// Whether the child leads a group of its own, which signals go to.
        var leadsGroup: Bool { self != .inherited }
    }
}
