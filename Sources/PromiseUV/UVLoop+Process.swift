import PromiseCore

extension UVLoop {
    /// Starts `command` as a child process (`posix_spawn`) and returns a promise of its end.
    ///
    /// ```swift
    /// let listing = loop.spawn(UVCommand("ls", arguments: ["-l", "/"]))
    ///     .then(on: loop) { result in
    ///         print(result.exit)                  // exited with status 0
    ///         return result.outputText ?? ""
    ///     }
    /// ```
    ///
    /// The program, working directory and standard input are checked on the calling thread,
    /// so a program that cannot run rejects the promise before anything starts; the child is
    /// then started on the loop thread. A running child keeps ``run()`` going, as Node's
    /// `child_process` does.
    ///
    /// The promise settles only once the child has been reaped (no zombie is left) and the
    /// pipes of its captured or streamed output are closed. When the child exits on its own,
    /// the loop reads those pipes to their end first; a grandchild that keeps one open keeps
    /// the promise pending until it closes it or the promise is cancelled.
    ///
    /// **Cancellation** runs the command's ``UVCommand/teardown`` (`SIGTERM`, then five
    /// seconds, by default), sends `SIGKILL` once its last wait has passed (at once for an
    /// empty teardown), and rejects the promise with `CancellationError` when the child has
    /// been reaped. Cancelling again does not restart the teardown. A child that had already
    /// exited settles with its real result (with the output read until then). Signals go to
    /// the child only, or to its whole process group with ``UVCommand/ProcessGroup/ownGroup``
    /// or ``UVCommand/ProcessGroup/ownSession``.
    ///
    /// **Shutdown** of the loop (or a `UVLoop` deallocated without it) kills running children
    /// with `SIGKILL` and rejects their promises with ``UVError/Code-swift.struct/loopClosed``
    /// once they are reaped; the loop closes after that.
    ///
    /// **Exits and SIGCHLD.** The loop learns of a child's exit through the child's pidfd
    /// (Linux 5.3 and later), which needs no signal; on an older kernel, through `SIGCHLD`,
    /// with libuv's handler installed while such a child runs. Signal watches of this package
    /// (`Promises.nextSignal`, ``nextSignal(_:)``) refuse `SIGCHLD`; an ignored `SIGCHLD`
    /// (`SIG_IGN`, which would have the kernel reap children and lose their status) is set to
    /// the default while children run; the action `SIGCHLD` had before the first child is
    /// put back after the last. The loop reaps only its own children (`waitpid` on each one's
    /// pid), so `Foundation.Process` or `posix_spawn` and `waitpid` in the same program keep
    /// their children's exit statuses. The thread that runs the loop has `SIGCHLD` unblocked
    /// from its first spawn on, so a program started with every signal blocked still sees
    /// its children exit on either kind of kernel.
    ///
    /// - Parameter command: The program, its arguments, environment, working directory and
    ///   standard streams.
    /// - Returns: A promise of the child's ``UVProcessResult``, resolved on the loop thread,
    ///   whatever its exit status (``UVProcessResult/requireSuccess(_:)`` turns a failure
    ///   into an error). Rejected with ``UVError``:
    ///   ``UVError/Code-swift.struct/noSuchFileOrDirectory`` (operation `spawn`) for a
    ///   program that does not exist or is not on `PATH`;
    ///   ``UVError/Code-swift.struct/isADirectory`` for a directory;
    ///   ``UVError/Code-swift.struct/permissionDenied`` for a file without execute
    ///   permission; ``UVError/Code-swift.struct/noSuchFileOrDirectory``,
    ///   ``UVError/Code-swift.struct/notADirectory`` or
    ///   ``UVError/Code-swift.struct/permissionDenied`` with operation `chdir` for a
    ///   working directory that cannot be used;
    ///   ``UVError/Code-swift.struct/invalidArgument`` for a negative teardown wait or limit,
    ///   an empty program or a NUL byte in a string;
    ///   ``UVError/Code-swift.struct/outputLimitExceeded`` when captured output passes its
    ///   limit (the child is stopped first); ``UVError/Code-swift.struct/loopClosed`` when
    ///   the loop is shut down; the code of the `errno` that `posix_spawn` reports when the
    ///   child cannot start (operation `posix_spawn`), or of the descriptor call that failed
    ///   first (`socketpair`, `fcntl`); `ECHILD` (operation `waitpid`) when something else in
    ///   this program reaped the child (a `waitpid(-1)`), so its status is lost.
    public func spawn(_ command: UVCommand) -> Promise<UVProcessResult> {
        guard !command.standardInput.isWriter else {
            return Promise(
                UVError(
                    .invalidArgument, operation: "spawn",
                    detail: "standard input .writer is written through UVChildProcess.standardInput: start the command with loop.start(_:)"))
        }
        guard command.standardOutput.storage.streamLimit == nil, command.standardError.storage.streamLimit == nil else {
            return Promise(
                UVError(
                    .invalidArgument, operation: "spawn",
                    detail: "a .stream output is read through UVChildProcess.standardOutput or standardError: start the command with loop.start(_:)"))
        }
        return launch(command, milestones: nil).promise
    }

    /// Starts `command` as a child process, as ``spawn(_:)`` does, and returns a handle to it
    /// while it runs: its pid as soon as it has started, signals, its exit as soon as it is
    /// reaped, and the same result ``spawn(_:)`` gives.
    ///
    /// ```swift
    /// let worker = loop.start(UVCommand("/usr/bin/worker"))
    /// worker.processID.then { pid in print("worker \(pid)") }
    /// worker.send(.user1)                                 // ask it for a status report
    /// let result = worker.result                          // reaped, and its pipes closed
    /// ```
    ///
    /// - Parameter command: The program and its settings, as for ``spawn(_:)``.
    /// - Returns: The child's handle. A command that is refused rejects all of its promises
    ///   with the error ``spawn(_:)`` gives.
    public func start(_ command: UVCommand) -> UVChildProcess {
        let processID = Promise<Int32>.pending(resolvedOn: core.contextID)
        let exit = Promise<UVProcessExit>.pending(resolvedOn: core.contextID)
        // Their failures are the result's, which reports them if nobody handles it.
        processID.catch(on: .inline) { _ in }
        exit.catch(on: .inline) { _ in }
        let streams = [command.standardOutput, command.standardError].map { output in
            output.storage.streamLimit.map { OutputStreamChannel(limit: max($0, 1)) }
        }
        let (result, child) = launch(command, milestones: ChildProcess.Milestones(started: processID, reaped: exit), streams: streams)
        if child == nil, let error = result.error {
            processID.reject(error)
            exit.reject(error)
            for stream in streams { stream?.pipeEnded(error as? UVError ?? UVError(.invalidArgument, operation: "spawn", detail: "\(error)")) }
        }
        let standardInput = command.standardInput.isWriter ? UVStandardInput(core: core, child: child, result: result) : nil
        let outputs = streams.enumerated().map { index, stream in
            stream.map { UVOutputStream(consumer: UVOutputStream.Consumer(channel: $0, child: child, descriptor: Int32(index + 1))) }
        }
        return UVChildProcess(
            core: core, child: child, processID: processID, exit: exit, result: result, standardInput: standardInput, standardOutput: outputs[0],
            standardError: outputs[1])
    }

    /// Prepares `command` and queues its start; the child is `nil` when the command was
    /// refused or the loop is shut down (the promise is then rejected).
    private func launch(
        _ command: UVCommand, milestones: ChildProcess.Milestones?, streams: [OutputStreamChannel?] = [nil, nil]
    ) -> (promise: Promise<UVProcessResult>, child: LoopOwned<ChildProcess>?) {
        let core = self.core
        let promise = Promise<UVProcessResult>.pending(resolvedOn: core.contextID)
        #if Tracing || Metrics
            let telemetry = ProcessTelemetry.start(command)
        #endif
        let plan: SpawnPlan
        do {
            plan = try SpawnPlan.make(command)
        } catch {
            #if Tracing || Metrics
                ProcessTelemetry.end(telemetry, .failure(error))
            #endif
            promise.reject(error)
            return (promise, nil)
        }
        let process = ChildProcess(core: core, promise: promise, plan: plan, milestones: milestones, streams: streams)
        #if Tracing || Metrics
            process.telemetry = telemetry
        #endif
        let child = LoopOwned(process, core: core)
        if !child.run(.user, { $0.start() }) {
            let error = UVError(.loopClosed, operation: "spawn", detail: "the UVLoop was shut down; spawn before calling shutdown()")
            #if Tracing || Metrics
                ProcessTelemetry.end(telemetry, .failure(error))
            #endif
            promise.reject(error)
            return (promise, nil)
        }
        promise.onCancelRequestFromLibrary {
            _ = core.submit(.late) { child.value.requestStop(.cancelled) }
        }
        return (promise, child)
    }

    /// Runs `program` with `arguments` and returns its standard output as text: the common
    /// case of ``spawn(_:)``.
    ///
    /// ```swift
    /// let kernel = loop.output("uname", ["-r"])      // "6.1.0-18-amd64\n"
    /// ```
    ///
    /// Standard input is `/dev/null`; standard output is captured up to
    /// ``UVCommand/Output/defaultCaptureLimit``, standard error up to 1 MiB.
    ///
    /// - Parameters:
    ///   - program: A path, or a name looked up on `PATH`.
    ///   - arguments: The arguments after `argv[0]`.
    ///   - requireSuccess: Whether an exit other than status 0 rejects the promise with
    ///     ``UVError/Code-swift.struct/processFailed`` (the message ends with the last line of
    ///     standard error); `true` by default.
    /// - Returns: A promise of the standard output, resolved on the loop thread; rejected as
    ///   ``spawn(_:)``'s is, and with ``UVError/Code-swift.struct/invalidArgument`` when the
    ///   output is not UTF-8 (use ``spawn(_:)`` for bytes).
    public func output(_ program: String, _ arguments: [String] = [], requireSuccess: Bool = true) -> Promise<String> {
        let command = UVCommand(program, arguments: arguments, standardError: .capture(limit: 1 << 20))
        return spawn(command).then(on: .inline) { result -> String in
            let checked = requireSuccess ? try result.requireSuccess(program) : result
            guard let text = checked.outputText else {
                throw UVError(.invalidArgument, operation: "output", detail: "the standard output of \(program) is not UTF-8; use spawn(_:) for its bytes")
            }
            return text
        }
    }
}
