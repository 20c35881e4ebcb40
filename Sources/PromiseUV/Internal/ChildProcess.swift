internal import CUV
internal import Glibc
import PromiseCore
internal import PromiseSignals

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
    private var handle: UnsafeMutablePointer<uv_process_t>?
    private var pipes: [OutputPipe] = []
    private(set) var processID: Int32 = 0
    /// The wait of the current teardown step, while one runs.
    private var teardownTimer: TeardownTimer?
    /// Signals asked for before the spawn, with the promises that say whether they went out.
    private var queuedSignals: [(UVSignal, Promise<Void>)] = []
    /// Standard input written while the child runs (``UVCommand/Input/writer``), or `nil`.
    let input: InputWriter?

    init(core: LoopCore, promise: Promise<UVProcessResult>, plan: SpawnPlan, milestones: Milestones? = nil) {
        self.core = core
        self.promise = promise
        self.plan = plan
        self.milestones = milestones
        machine = ChildProcessStateMachine(teardown: plan.teardown)
        input = plan.takeWriterDescriptor().map { InputWriter(core: core, descriptor: $0, program: plan.arguments[0]) }
    }

    /// Rejects every promise of a child that was not spawned, with `error`.
    private func refuse(_ error: any Error) {
        promise.reject(error)
        milestones?.started.reject(error)
        milestones?.reaped.reject(error)
        let signals = queuedSignals
        queuedSignals = []
        for (_, sent) in signals { sent.reject(error) }
        input?.end(error as? UVError ?? UVError(.brokenPipe, operation: "write", detail: "\(plan.arguments[0]) never started: \(error)"))
    }

    var id: ObjectIdentifier { ObjectIdentifier(self) }

    /// Whether a stop was asked for (for the report of what a shutdown lost).
    var isStopping: Bool { machine.isStopping }

    // MARK: Starting

    /// Spawns the child (loop thread), or rejects the promise if the loop is shutting down,
    /// the promise was cancelled meanwhile, or `uv_spawn` fails.
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
        var containers = [uv_stdio_container_t](repeating: uv_stdio_container_t(), count: 3)
        switch plan.inputDescriptor {
        case -1: containers[0].flags = UV_IGNORE
        default:
            containers[0].flags = UV_INHERIT_FD
            containers[0].data.fd = plan.inputDescriptor
        }
        // Standard error combined with a piped standard output shares a pipe made here, whose
        // write end both get; libuv's own pipes cannot be shared.
        let combinedPipe = plan.outputs[0].isPipe && plan.outputs[1].storage.isCombinedWithOutput
        var sharedWriteEnd: Int32 = -1
        defer { if sharedWriteEnd >= 0 { _ = close(sharedWriteEnd) } }
        for (index, output) in plan.outputs.enumerated() {
            let descriptor = Int32(index + 1)
            switch output.storage {
            case .discard:
                containers[index + 1].flags = UV_IGNORE
            case .inherit, .file, .descriptor:
                containers[index + 1].flags = UV_INHERIT_FD
                containers[index + 1].data.fd = plan.outputDescriptors[index]
            case .combinedWithOutput:
                containers[2] = containers[1]
            case .capture, .lines, .chunks:
                let pipe = OutputPipe(child: self, output: output, descriptor: descriptor)
                uv_pipe_init(core.loop, pipe.handle, 0)  // cannot fail without IPC
                pipe.handle.pointee.data = Unmanaged.passRetained(pipe).toOpaque()
                core.handleOpened()
                pipes.append(pipe)
                if combinedPipe {
                    switch Self.openSharedPipe(pipe) {
                    case .success(let writeEnd): sharedWriteEnd = writeEnd
                    case .failure(let failure):
                        machine.spawnFailed()
                        for pipe in pipes {
                            pipe.close()
                            pipe.detach()
                        }
                        pipes = []
                        refuse(failure)
                        return
                    }
                    containers[index + 1].flags = UV_INHERIT_FD
                    containers[index + 1].data.fd = sharedWriteEnd
                } else {
                    containers[index + 1].flags = uv_stdio_flags(rawValue: UV_CREATE_PIPE.rawValue | UV_WRITABLE_PIPE.rawValue)
                    containers[index + 1].data.stream = pipe.stream
                }
            }
        }
        let process = UnsafeMutablePointer<uv_process_t>.allocate(capacity: 1)
        process.initialize(to: uv_process_t())
        process.pointee.data = Unmanaged.passRetained(self).toOpaque()
        handle = process
        core.handleOpened()
        core.children[id] = self
        SignalOwner.beginChildProcess()
        let status = CStrings.with(plan.arguments) { argv in
            CStrings.with(plan.environment ?? []) { envp in
                containers.withUnsafeMutableBufferPointer { stdio in
                    plan.file.withCString { file in
                        withOptionalCString(plan.workingDirectory) { cwd in
                            var options = uv_process_options_t()
                            options.exit_cb = ProcessTrampolines.exited
                            options.file = file
                            options.args = argv
                            options.env = plan.environment == nil ? nil : envp
                            options.cwd = cwd
                            options.stdio_count = 3
                            options.stdio = stdio.baseAddress
                            if plan.processGroup == .ownSession { options.flags = UInt32(UV_PROCESS_DETACHED.rawValue) }
                            return uv_spawn(core.loop, process, &options)
                        }
                    }
                }
            }
        }
        guard status == 0 else {
            machine.spawnFailed()
            handle = nil
            closeProcessHandle(process)
            for pipe in pipes {
                pipe.close()
                pipe.detach()
            }
            pipes = []
            core.children[id] = nil
            refuse(UVError(UVError.Code(uvCode: status), operation: "uv_spawn", detail: "starting \(plan.arguments[0]) (\(plan.file))"))
            return
        }
        machine.spawned()
        processID = process.pointee.pid
        input?.spawned()
        for pipe in pipes { pipe.startReading() }
        milestones?.started.resolve(.success(processID))
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
            send(signal.rawValue)
            sent.resolve(.success(()))
        case .refuse:
            let detail =
                processID == 0
                ? "\(plan.arguments[0]) never started, so \(signal) was not sent"
                : "\(plan.arguments[0]) (pid \(processID)) has exited and been reaped, so \(signal) was not sent (the pid may be another process's by now)"
            sent.resolve(.failure(UVError(UVError.Code(uvCode: -ESRCH), operation: "kill", detail: detail)))
        }
    }

    /// A close-on-exec socket pair (what libuv makes for its own pipes) whose first end
    /// `pipe` reads; returns the other, which the child gets as its standard output and error.
    private static func openSharedPipe(_ pipe: OutputPipe) -> Result<Int32, UVError> {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            return .failure(
                UVError(UVError.Code(uvCode: -errno), operation: "socketpair", detail: "a pipe for the child's combined output"))
        }
        let status = uv_pipe_open(pipe.handle, ends[0])
        guard status == 0 else {
            _ = close(ends[0])
            _ = close(ends[1])
            return .failure(UVError(UVError.Code(uvCode: status), operation: "uv_pipe_open", detail: "the child's combined output"))
        }
        return .success(ends[1])
    }

    /// `uv_close` of the process handle, then the SIGCHLD lease ends (libuv has stopped its
    /// handler if this was its last child).
    private func closeProcessHandle(_ process: UnsafeMutablePointer<uv_process_t>) {
        uv_close(UnsafeMutableRawPointer(process).assumingMemoryBound(to: uv_handle_t.self), ProcessTrampolines.closed)
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
            for pipe in pipes { pipe.close() }
            settleIfDone()
        case .none:
            break
        }
    }

    /// Sends `signal` to the child, or to its process group when it leads one (loop thread,
    /// before the child is reaped, so the pid is still the child's).
    private func send(_ signal: Int32) {
        guard let handle else { return }
        if plan.processGroup == .ownSession {
            _ = kill(-processID, signal)
        } else {
            _ = uv_process_kill(handle, signal)
        }
    }

    private func stopTeardownTimer() {
        guard let teardownTimer else { return }
        self.teardownTimer = nil
        teardownTimer.child = nil
        core.cancelTimer(teardownTimer)
    }

    // MARK: libuv callbacks

    /// The exit callback: libuv reaped the child.
    func exited(status: Int64, signal: Int32) {
        let exit: UVProcessExit = signal != 0 ? .signaled(signal) : .exited(Int32(truncatingIfNeeded: status))
        let action = machine.exited(exit)
        milestones?.reaped.resolve(.success(exit))
        stopTeardownTimer()
        input?.end(inputEndedError(exit))
        if let handle {
            self.handle = nil
            closeProcessHandle(handle)
        }
        switch action {
        case .awaitPipes:
            break
        case .closePipesAfterStop:
            // A stopped child's pipes may be held open by its own children: do not wait for them.
            for pipe in pipes { pipe.close() }
        }
        settleIfDone()
    }

    /// What fails the writes to standard input still queued when the child is reaped.
    private func inputEndedError(_ exit: UVProcessExit) -> UVError {
        UVError(
            .brokenPipe, operation: "write",
            detail: "\(plan.arguments[0]) (pid \(processID)) \(exit) before reading all of its standard input")
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
        AdapterSupport.runTurn(contextID) { promise.resolveFromLibrary(outcome) }
    }
}

/// The wait of one teardown step; when it ends with the child still running, the next step
/// goes. A shutdown that abandons it sends `SIGKILL` at once.
///
/// `@unchecked Sendable`: as for ``TimerEntry``; `child` is read and cleared on the loop thread.
final class TeardownTimer: TimerEntry, @unchecked Sendable {
    var child: ChildProcess?

    init(child: ChildProcess) {
        self.child = child
    }

    override func fire() {
        let child = self.child
        self.child = nil
        child?.teardownStepElapsed()
    }

    override func abandon() {
        let child = self.child
        self.child = nil
        child?.teardownAbandoned()
    }
}

/// Calls `body` with a C string for `text`, or with `nil`.
private func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
}

/// A NULL-terminated `char**` for C, valid during one call.
enum CStrings {
    static func with<R>(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        pointers.append(nil)
        defer { for pointer in pointers { free(pointer) } }
        return pointers.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
    }
}
