internal import CUV
internal import Glibc
import PromiseCore
internal import PromiseSignals
internal import PromiseSystem

/// One child process of a loop: owns its `uv_process_t`, the pipes of its captured or
/// streamed output and the timer of its teardown, and performs what its
/// ``ChildProcessStateMachine`` decides: spawn or refuse, signal, kill, close the pipes,
/// settle the promise once the child is reaped and its pipes are closed.
///
/// Not `Sendable`: everything is read and written on the loop thread only (``start()``,
/// ``requestStop(_:)`` and the libuv callbacks run there). Other threads reach it through a
/// ``LoopOwned``.
final class ChildProcess {
    typealias StopReason = ChildProcessStateMachine.StopReason

    /// The promises a ``UVChildProcess`` gives beside the result: the child's pid once it is
    /// spawned, its exit once it is reaped.
    struct Milestones {
        let started: Promise<Int32>
        let reaped: Promise<UVProcessExit>
    }

    let core: LoopCore
    let promise: Promise<UVProcessResult>
    private let plan: SpawnPlan
    /// `nil` for ``UVLoop/spawn(_:)``, which has only the result.
    private let milestones: Milestones?

    // Loop thread only.
    private var machine: ChildProcessStateMachine
    /// How the loop learns of the child's exit, from its spawn until it is reaped.
    private var exitWatch = ExitWatch.none
    private var pipes: [OutputPipe] = []
    private(set) var processID: Int32 = 0
    /// The wait of the current teardown step, while one runs.
    private var teardownTimer: TeardownTimer?
    /// Signals asked for before the spawn, with the promises that say whether they went out.
    private var queuedSignals: [(UVSignal, Promise<Void>)] = []
    /// Standard input written while the child runs (``UVCommand/Input/writer``), or `nil`.
    let input: InputWriter?
    /// Where standard output and error go when they are streamed
    /// (``UVCommand/Output/stream(bufferLimit:)``), by index; `nil` for other outputs.
    private let streams: [OutputStreamChannel?]
    #if Tracing || Metrics
        /// The child's span and clock, when its command records them: set before it starts.
        var telemetry: TelemetryOperation?
    #endif

    init(
        core: LoopCore, promise: Promise<UVProcessResult>, plan: SpawnPlan, milestones: Milestones? = nil,
        streams: [OutputStreamChannel?] = [nil, nil]
    ) {
        self.core = core
        self.promise = promise
        self.plan = plan
        self.milestones = milestones
        self.streams = streams
        machine = ChildProcessStateMachine(teardown: plan.teardown)
        let transport: InputWriter.Transport = plan.terminal == nil ? .socket : .terminal
        input = plan.takeWriterDescriptor().map { InputWriter(core: core, descriptor: $0, program: plan.arguments[0], transport: transport) }
    }

    /// Rejects every promise of a child that was not spawned, with `error`.
    private func refuse(_ error: any Error) {
        recordOutcome(.failure(error))
        promise.reject(error)
        milestones?.started.reject(error)
        milestones?.reaped.reject(error)
        let signals = queuedSignals
        queuedSignals = []
        for (_, sent) in signals { sent.reject(error) }
        input?.end(error as? UVError ?? UVError(.brokenPipe, operation: "write", detail: "\(plan.arguments[0]) never started: \(error)"))
        for stream in streams {
            stream?.pipeEnded(error as? UVError ?? UVError(.loopClosed, operation: "read", detail: "\(plan.arguments[0]) never started: \(error)"))
        }
    }

    var id: ObjectIdentifier { ObjectIdentifier(self) }

    /// Whether the child has been spawned and not yet reaped.
    var awaitsExit: Bool {
        if case .none = exitWatch { return false }
        return true
    }

    /// Whether a stop was asked for (for the report of what a shutdown lost).
    var isStopping: Bool { machine.isStopping }

    // MARK: Starting

    /// Spawns the child (loop thread), or rejects the promise if the loop is shutting down,
    /// the promise was cancelled meanwhile, or the spawn fails.
    func start() {
        defer { plan.closeDescriptors() }
        switch machine.startRequested(loopShuttingDown: core.isShuttingDown) {
        case .spawn:
            break
        case .rejectCancelled:
            refuse(CancellationError())
            return
        case .rejectShutDown:
            refuse(UVError(.loopClosed, operation: "spawn", detail: "the UVLoop was shut down before the child was started"))
            return
        }
        // Descriptors 0, 1 and 2 of the child, from this process's descriptors (-1: /dev/null).
        // A piped output is a socket pair, as libuv's own pipes are: this process reads one end
        // through a `uv_pipe_t`, the child writes the other, which is closed here once the child
        // has its copy (so the pipe ends when the child and its descendants close theirs).
        var standard: [Int32] = [plan.inputDescriptor, -1, -1]
        var childEnds: [Int32] = []
        defer { for end in childEnds { SystemCall.close(end) } }
        for (index, output) in plan.outputs.enumerated() {
            switch output.storage {
            case .discard:
                standard[index + 1] = -1
            case .inherit, .file, .descriptor, .pipe:
                standard[index + 1] = plan.outputDescriptors[index]
            case .combinedWithOutput:
                standard[2] = standard[1]
            case .capture, .lines, .chunks, .stream:
                // With a terminal, standard output is what it shows: the loop reads its master.
                let terminal = index == 0 ? plan.terminal : nil
                let pipe = OutputPipe(
                    child: self, output: output, descriptor: Int32(index + 1), stream: streams[index],
                    source: terminal == nil ? .socketPair : .terminalMaster)
                pipes.append(pipe)
                if let terminal {
                    // The plan closes the slave once the child has its copies.
                    let status = pipe.open(terminal.takeMaster())
                    guard status == 0 else {
                        spawnFailed(UVError(UVError.Code(uvCode: status), operation: "uv_poll_init", detail: "reading the child's terminal"))
                        return
                    }
                    standard[1] = terminal.slave
                    continue
                }
                switch pipe.openSocketPair(for: index == 0 ? "standard output" : "standard error") {
                case .success(let childEnd):
                    childEnds.append(childEnd)
                    standard[index + 1] = childEnd
                case .failure(let failure):
                    spawnFailed(failure)
                    return
                }
            }
        }
        let request = ChildLauncher.Request(
            file: plan.file, arguments: plan.arguments, environment: plan.environment, workingDirectory: plan.workingDirectory,
            standard: standard, extra: plan.extraDescriptors, processGroup: plan.processGroup,
            controllingTerminal: plan.terminal?.slavePath)
        core.children[id] = self
        SignalOwner.beginChildProcess()
        switch ChildLauncher.launch(request) {
        case .success(let pid):
            processID = pid
        case .failure(let failure):
            SignalOwner.endChildProcess()
            core.children[id] = nil
            let code = failure.errno
            spawnFailed(
                UVError(
                    UVError.Code(uvCode: -code), operation: failure.operation,
                    detail: "starting \(plan.arguments[0]) (\(plan.file)): \(ErrnoText.describe(code))"))
            return
        }
        machine.spawned()
        input?.spawned()
        for pipe in pipes { pipe.startReading() }
        recordSpawn()
        milestones?.started.resolve(.success(processID))
        watchExit()
        let signals = queuedSignals
        queuedSignals = []
        for (signal, sent) in signals { deliver(signal, sent) }
    }

    // MARK: Signals

    /// Sends `signal` to the child (or its group) if it runs, and settles `sent` with whether
    /// it went out (loop thread). Asked before the spawn, it waits for it.
    func deliver(_ signal: UVSignal, _ sent: Promise<Void>) {
        switch machine.signalRequested() {
        case .wait:
            queuedSignals.append((signal, sent))
        case .send:
            let status = send(signal.rawValue)
            guard status == 0 else {
                let detail = "\(plan.arguments[0]) (pid \(processID)) was not sent \(signal): kill failed with \(ErrnoText.describe(status))"
                sent.resolve(.failure(UVError(UVError.Code(uvCode: -status), operation: "kill", detail: detail)))
                return
            }
            sent.resolve(.success(()))
        case .refuse:
            let detail =
                processID == 0
                ? "\(plan.arguments[0]) never started, so \(signal) was not sent"
                : "\(plan.arguments[0]) (pid \(processID)) has exited and been reaped, so \(signal) was not sent (the pid may be another process's by now)"
            sent.resolve(.failure(UVError(UVError.Code(uvCode: -ESRCH), operation: "kill", detail: detail)))
        }
    }

    // MARK: Terminal

    /// Sets the window size of the child's terminal (loop thread), and settles `done`: the
    /// kernel sends `SIGWINCH` to the terminal's foreground process group. Before the spawn,
    /// the terminal the plan holds is resized, and the child starts with the new size.
    func resizeTerminal(rows: UInt16, columns: UInt16, _ done: Promise<Void>) {
        guard plan.terminal != nil else {
            return done.resolve(
                .failure(
                    UVError(
                        .invalidArgument, operation: "ioctl",
                        detail: "\(plan.arguments[0]) has no terminal to resize: set the command's terminal to run it in one")))
        }
        guard let master = pipes.first(where: { $0.source == .terminalMaster })?.openDescriptor ?? plan.terminal?.heldMaster else {
            return done.resolve(
                .failure(
                    UVError(
                        UVError.Code(uvCode: -EBADF), operation: "ioctl",
                        detail: "the terminal of \(plan.arguments[0]) is closed: the child and what it started have closed it, or it never started")))
        }
        guard cuv_set_window_size(master, rows, columns) == 0 else {
            let code = errno
            return done.resolve(
                .failure(
                    UVError(
                        UVError.Code(uvCode: -code), operation: "ioctl",
                        detail: "resizing the terminal of \(plan.arguments[0]): \(ErrnoText.describe(code))")))
        }
        done.resolve(.success(()))
    }

    /// The child could not be started: closes the pipes made for it and rejects everything.
    private func spawnFailed(_ error: UVError) {
        machine.spawnFailed()
        for pipe in pipes {
            pipe.close()
            pipe.detach()
        }
        pipes = []
        refuse(error)
    }

    // MARK: Exit

    /// How the loop learns that the child exited (``ChildReaping``).
    private enum ExitWatch {
        /// Not spawned, or reaped.
        case none
        /// A poll of the child's pidfd; the descriptor is closed with the handle.
        case processDescriptor(UnsafeMutablePointer<uv_poll_t>, descriptor: Int32)
        /// The loop's SIGCHLD watch.
        case childSignal
    }

    /// Starts watching for the spawned child's exit (loop thread): its pidfd when the kernel
    /// has them and one can be opened, else the loop's SIGCHLD watch, checked once after it
    /// started so that an exit before it is not missed. When neither can be had, the child
    /// is killed and reaped at once, and its promise fails with the reason.
    private func watchExit() {
        if ChildReaping.current == .processDescriptor, let poll = pollExit() {
            exitWatch = poll
            return
        }
        let status = core.watchChildSignal()
        if status == 0 {
            exitWatch = .childSignal
            reapIfExited()
            return
        }
        // Nothing can tell the loop of this child's exit: stop it now rather than leave it.
        _ = kill(processID, SIGKILL)
        var raw: Int32 = 0
        _ = SystemCall.retryingInterrupts { waitpid(processID, &raw, 0) }
        SignalOwner.endChildProcess()
        lostExit(
            UVError(
                UVError.Code(uvCode: status), operation: "uv_signal_start",
                detail: "watching \(plan.arguments[0]) (pid \(processID)) for its exit; it was killed"))
    }

    /// A started poll of the child's pidfd, or `nil` when one cannot be had.
    private func pollExit() -> ExitWatch? {
        let descriptor = cuv_pidfd_open(processID)
        guard descriptor >= 0 else { return nil }
        let poll = UnsafeMutablePointer<uv_poll_t>.allocate(capacity: 1)
        poll.initialize(to: uv_poll_t())
        guard uv_poll_init(core.loop, poll, descriptor) == 0 else {
            poll.deallocate()
            SystemCall.close(descriptor)
            return nil
        }
        poll.pointee.data = Unmanaged.passRetained(self).toOpaque()
        core.handleOpened()
        guard uv_poll_start(poll, Int32(UV_READABLE.rawValue), ProcessTrampolines.exitReadable) == 0 else {
            closeExitPoll(poll, descriptor: descriptor)
            return nil
        }
        return .processDescriptor(poll, descriptor: descriptor)
    }

    /// Reaps the child if it has exited (loop thread): its pidfd became readable, or SIGCHLD
    /// arrived for some child of this process.
    func reapIfExited() {
        if case .none = exitWatch { return }
        var raw: Int32 = 0
        let reaped = SystemCall.retryingInterrupts { waitpid(processID, &raw, WNOHANG) }
        if reaped == 0 { return }
        let code = errno
        stopWatchingExit()
        guard reaped == processID else {
            lostExit(
                UVError(
                    UVError.Code(uvCode: -code), operation: "waitpid",
                    detail:
                        "\(plan.arguments[0]) (pid \(processID)) was reaped by something else in this program (waitpid(-1), or SIGCHLD set to SIG_IGN after the spawn); its exit status is lost"
                ))
            return
        }
        // `waitpid`'s status: the low 7 bits are the signal that ended the child (0 when it exited), the next 8 its exit status.
        let signal = raw & 0x7f
        exited(signal == 0 ? .exited((raw >> 8) & 0xff) : .signaled(signal))
    }

    /// Stops watching for the exit of the reaped child; the SIGCHLD lease ends once no watch
    /// of it remains (the pidfd poll's close callback, or now).
    private func stopWatchingExit() {
        switch exitWatch {
        case .none:
            return
        case .processDescriptor(let poll, let descriptor):
            closeExitPoll(poll, descriptor: descriptor)
        case .childSignal:
            // Closing the loop's watch, when this was its last child, stops libuv's handler
            // at once, before the lease puts back the action from before the first child.
            core.unwatchChildSignal()
            SignalOwner.endChildProcess()
        }
        exitWatch = .none
    }

    /// Closes a pidfd poll and its descriptor (`uv_close` stops the poll at once, so the
    /// descriptor can go now).
    private func closeExitPoll(_ poll: UnsafeMutablePointer<uv_poll_t>, descriptor: Int32) {
        uv_close(cuv_poll_as_handle(poll), ProcessTrampolines.exitPollClosed)
        SystemCall.close(descriptor)
    }

    /// The pidfd poll's close callback: the SIGCHLD lease ends.
    func exitPollClosed() {
        core.handleClosed()
        SignalOwner.endChildProcess()
    }

    // MARK: Stopping

    /// Stops the child for `reason` (loop thread), as the machine decides: the teardown's
    /// first signal, `SIGKILL`, closing the pipes of a child already reaped, or nothing.
    func requestStop(_ reason: StopReason) {
        if case .shutdown = reason {
            // What waits to be written is lost with the loop, whatever the child does next.
            input?.end(UVError(.loopClosed, operation: "write", detail: "the UVLoop was shut down; \(plan.arguments[0])'s standard input is closed"))
        }
        perform(machine.stopRequested(reason))
    }

    /// The wait of a teardown step ended with the child still running (loop thread).
    func teardownStepElapsed() {
        teardownTimer = nil
        perform(machine.teardownStepElapsed())
    }

    /// The loop's shutdown dropped the teardown's wait (loop thread).
    func teardownAbandoned() {
        teardownTimer = nil
        perform(machine.teardownAbandoned())
    }

    private func perform(_ action: ChildProcessStateMachine.StopAction) {
        switch action {
        case .signal(let signal, let wait):
            send(signal.rawValue)
            let timer = TeardownTimer(child: self)
            teardownTimer = timer
            if !core.startTimer(timer, after: wait) {
                teardownTimer = nil
                perform(machine.teardownAbandoned())
            }
        case .kill:
            stopTeardownTimer()
            send(SIGKILL)
        case .closePipes:
            for pipe in pipes { pipe.closeAfterReadingWhatIsThere() }
            settleIfDone()
        case .none:
            break
        }
    }

    /// Sends `signal` to the child, or to its process group when it leads one (loop thread,
    /// before the child is reaped, so the pid is still the child's).
    /// Returns 0, or the `errno` of a `kill` that failed (`EINVAL` for a number that is no
    /// signal, `EPERM` for a child this process may not signal).
    @discardableResult
    private func send(_ signal: Int32) -> Int32 {
        if case .none = exitWatch { return 0 }
        return kill(plan.processGroup.leadsGroup ? -processID : processID, signal) == 0 ? 0 : errno
    }

    private func stopTeardownTimer() {
        guard let teardownTimer else { return }
        self.teardownTimer = nil
        teardownTimer.child = nil
        core.cancelTimer(teardownTimer)
    }

    // MARK: libuv callbacks

    /// The child was reaped.
    private func exited(_ exit: UVProcessExit) {
        recordExit(exit)
        let action = machine.exited(exit)
        milestones?.reaped.resolve(.success(exit))
        stopTeardownTimer()
        for pipe in pipes { pipe.childReaped() }
        input?.end(inputEndedError(exit))
        finishExit(action)
    }

    /// The child is gone without its status, for `error`.
    private func lostExit(_ error: UVError) {
        let action = machine.exitLost(error)
        milestones?.reaped.reject(error)
        stopTeardownTimer()
        for pipe in pipes { pipe.childReaped() }
        input?.end(error)
        finishExit(action)
    }

    private func finishExit(_ action: ChildProcessStateMachine.ExitAction) {
        switch action {
        case .awaitPipes:
            break
        case .closePipesAfterStop:
            // A stopped child's pipes may be held open by its own children: do not wait for them.
            for pipe in pipes { pipe.closeAfterReadingWhatIsThere() }
        }
        settleIfDone()
    }

    /// What fails the writes to standard input still queued when the child is reaped.
    private func inputEndedError(_ exit: UVProcessExit) -> UVError {
        UVError(
            .brokenPipe, operation: "write",
            detail: "\(plan.arguments[0]) (pid \(processID)) \(exit) before reading all of its standard input")
    }

    /// The consumer of streamed output `descriptor` took from a full buffer, or is gone:
    /// read its pipe again (loop thread).
    func resumeReading(_ descriptor: Int32) {
        pipes.first { $0.descriptor == descriptor }?.resumeReading()
    }

    /// A pipe reached its end or was closed.
    func pipeFinished() {
        settleIfDone()
    }

    /// A pipe's output passed its limit: stop the child.
    func outputLimitPassed(_ error: UVError) {
        requestStop(.outputLimit(error))
    }

    /// Settles the promise once the machine says so: the child is reaped and every pipe is
    /// closed.
    private func settleIfDone() {
        let outcome: Result<UVProcessResult, any Error>
        func result(_ exit: UVProcessExit) -> UVProcessResult {
            let captured = pipes.reduce(into: [[UInt8]](repeating: [], count: 2)) { $0[Int($1.descriptor) - 1] = $1.captured }
            return UVProcessResult(processID: processID, exit: exit, standardOutput: captured[0], standardError: captured[1])
        }
        switch machine.pipeFinished(allPipesClosed: pipes.allSatisfy(\.isClosed)) {
        case .none:
            return
        case .fulfil(let exit):
            outcome = .success(result(exit))
        case .reject(.cancelled, _):
            outcome = .failure(CancellationError())
        case .reject(.outputLimit(let error), let exit):
            outcome = .failure(error.carrying(result(exit)))
        case .rejectLost(let error):
            outcome = .failure(error)
        case .reject(.shutdown, _):
            outcome = .failure(
                UVError(
                    .loopClosed, operation: "spawn",
                    detail: "the UVLoop was shut down before \(plan.arguments[0]) (pid \(processID)) was done; it was killed if running, and reaped"))
        }
        core.children[id] = nil
        for pipe in pipes { pipe.detach() }
        pipes = []
        let contextID = core.contextID
        recordOutcome(outcome)
        AdapterSupport.runTurn(contextID) { promise.resolveFromLibrary(outcome) }
    }
}
