#if Tracing || Metrics
    internal import PromiseSystem
    #if Tracing
        internal import Tracing
    #endif

    /// The span and metrics of a child process, from the start asked for to the result (the
    /// child reaped and its pipes closed). The span is named after the program's file name
    /// (`git`, `sh`), of kind internal, with `process.executable.name`, `process.executable.path`
    /// (the program as the command gives it), `process.args_count` (the arguments themselves are
    /// left out: they may hold secrets), `process.pid` once spawned and `process.exit.code` or
    /// `process.exit.signal` once reaped. A child that cannot be started, is cancelled or passes an
    /// output limit sets `error.type` (the `UVError`'s ``UVError/name``, or `cancelled`); an exit status
    /// other than 0 is not a failure of the span, as it is not of ``UVLoop/spawn(_:)``.
    ///
    /// Metrics: the `process.duration` timer and the `process.runs` counter by
    /// `process.executable.name` and outcome (`exited`, `signaled` or `error.type`), and
    /// `process.errors` by `error.type`.
    extension UVCommand: TelemetrySettings {}

    enum ProcessTelemetry {
        /// Starts the span of `command` (caller's thread).
        static func start(_ command: UVCommand) -> TelemetryOperation? {
            let name = executableName(command.program)
            let operation = command.telemetry?.start(name, kind: .internal)
            #if Tracing
                operation?.attribute { attributes in
                    attributes["process.executable.name"] = name
                    attributes["process.executable.path"] = command.program
                    attributes["process.args_count"] = command.arguments.count + 1
                }
            #endif
            return operation
        }

        /// Records how the child ended, once it is reaped (loop thread).
        static func reaped(_ operation: TelemetryOperation?, _ exit: UVProcessExit) {
            #if Tracing
                operation?.attribute { attributes in
                    switch exit {
                    case .exited(let status): attributes["process.exit.code"] = Int(status)
                    case .signaled(let signal): attributes["process.exit.signal"] = Int(signal)
                    }
                }
            #endif
        }

        /// Ends the span with the child's result (loop thread, or the caller's for a command
        /// refused before it was queued).
        static func end(_ operation: TelemetryOperation?, _ outcome: Result<UVProcessResult, any Error>) {
            guard let operation else { return }
            var errorType: String?
            if case .failure(let error) = outcome {
                errorType = (error as? UVError)?.name ?? (error is CancellationError ? "cancelled" : String(describing: type(of: error)))
                operation.end(failure: (error, errorType ?? "error"))
            } else {
                operation.end()
            }
            #if Metrics
                let outcome: String =
                    switch outcome {
                    case .success(let result): if case .signaled = result.exit { "signaled" } else { "exited" }
                    case .failure: errorType ?? "error"
                    }
                let dimensions = [("process.executable.name", operation.name), ("process.outcome", outcome)]
                operation.telemetry.time("process.duration", dimensions, nanoseconds: operation.elapsedNanoseconds)
                operation.telemetry.count("process.runs", dimensions)
                if let errorType { operation.telemetry.count("process.errors", [("error.type", errorType)]) }
            #endif
        }

        /// The last path component of `program`.
        static func executableName(_ program: String) -> String {
            guard let slash = program.lastIndex(of: "/") else { return program }
            let name = program[program.index(after: slash)...]
            return name.isEmpty ? program : String(name)
        }
    }
#endif

/// The child's span and metrics hooks, called where its lifecycle moves (loop thread). Without
/// the Tracing and Metrics traits they are empty, and the optimizer removes them.
extension ChildProcess {
    /// The child was spawned: its pid goes on the span.
    func recordSpawn() {
        #if Tracing
            telemetry?.attribute { $0["process.pid"] = Int(processID) }
        #endif
    }

    /// The child was reaped with `exit`.
    func recordExit(_ exit: UVProcessExit) {
        #if Tracing || Metrics
            ProcessTelemetry.reaped(telemetry, exit)
        #endif
    }

    /// The child's result is settled with `outcome` (or it was refused): its span ends.
    func recordOutcome(_ outcome: Result<UVProcessResult, any Error>) {
        #if Tracing || Metrics
            ProcessTelemetry.end(telemetry, outcome)
        #endif
    }
}
