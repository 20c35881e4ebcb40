internal import CUV
internal import Glibc
import PromiseCore
internal import PromiseSignals
internal import Synchronization

/// One child process of a loop: owns its `uv_process_t` and the pipes of its captured or
/// streamed output, and settles the spawn's promise once the child is reaped and its pipes
/// are closed.
///
/// `@unchecked Sendable`: everything but ``cancelRequested`` is read and written on the loop
/// thread only (``start()`` and the libuv callbacks run there); ``cancelRequested`` is atomic.
final class ChildProcess: @unchecked Sendable {
    /// Why the loop is stopping the child, which decides how its promise settles.
    enum StopReason {
        case cancelled
        case outputLimit(UVError)
        case shutdown
    }

    let core: LoopCore
    let promise: Promise<UVProcessResult>
    private let plan: SpawnPlan
    /// Set by a cancellation request from any thread; ``start()`` checks it.
    let cancelRequested = Atomic<Bool>(false)

    // Loop thread only.
    private var handle: UnsafeMutablePointer<uv_process_t>?
    private var pipes: [OutputPipe] = []
    private(set) var processID: Int32 = 0
    private(set) var exit: UVProcessExit?
    private(set) var stopReason: StopReason?
    private var killTimer: KillTimer?
    private var settled = false

    init(core: LoopCore, promise: Promise<UVProcessResult>, plan: SpawnPlan) {
        self.core = core
        self.promise = promise
        self.plan = plan
    }

    var id: ObjectIdentifier { ObjectIdentifier(self) }

    // MARK: Starting

    /// Spawns the child (loop thread), or rejects the promise if the loop is shutting down,
    /// the promise was cancelled meanwhile, or `uv_spawn` fails.
    func start() {
        defer { plan.closeInput() }
        if core.shuttingDown {
            promise.reject(UVError(.loopClosed, operation: "spawn", detail: "the UVLoop was shut down before the child was started"))
            return
        }
        if cancelRequested.load(ordering: .acquiring) {
            promise.reject(CancellationError())
            return
        }
        var containers = [uv_stdio_container_t](repeating: uv_stdio_container_t(), count: 3)
        switch plan.inputDescriptor {
        case -1: containers[0].flags = UV_IGNORE
        default:
            containers[0].flags = UV_INHERIT_FD
            containers[0].data.fd = plan.inputDescriptor
        }
        for (index, output) in plan.outputs.enumerated() {
            let descriptor = Int32(index + 1)
            switch output.storage {
            case .discard:
                containers[index + 1].flags = UV_IGNORE
            case .inherit:
                containers[index + 1].flags = UV_INHERIT_FD
                containers[index + 1].data.fd = descriptor
            case .capture, .lines, .chunks:
                let pipe = OutputPipe(child: self, output: output, descriptor: descriptor)
                uv_pipe_init(core.loop, pipe.handle, 0)  // cannot fail without IPC
                pipe.handle.pointee.data = Unmanaged.passRetained(pipe).toOpaque()
                core.openHandles += 1
                pipes.append(pipe)
                containers[index + 1].flags = uv_stdio_flags(rawValue: UV_CREATE_PIPE.rawValue | UV_WRITABLE_PIPE.rawValue)
                containers[index + 1].data.stream = pipe.stream
            }
        }
        let process = UnsafeMutablePointer<uv_process_t>.allocate(capacity: 1)
        process.initialize(to: uv_process_t())
        process.pointee.data = Unmanaged.passRetained(self).toOpaque()
        handle = process
        core.openHandles += 1
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
                            return uv_spawn(core.loop, process, &options)
                        }
                    }
                }
            }
        }
        guard status == 0 else {
            handle = nil
            settled = true
            closeProcessHandle(process)
            for pipe in pipes {
                pipe.close()
                pipe.detach()
            }
            pipes = []
            core.children[id] = nil
            promise.reject(
                UVError(UVError.Code(uvCode: status), operation: "uv_spawn", detail: "starting \(plan.arguments[0]) (\(plan.file))"))
            return
        }
        processID = process.pointee.pid
        for pipe in pipes { pipe.startReading() }
        // A cancellation that arrived while this job waited is handled by `requestStop`, which
        // it queued behind this job; one that raced with it is caught here.
        if cancelRequested.load(ordering: .acquiring) { requestStop(.cancelled) }
    }

    /// `uv_close` of the process handle, then the SIGCHLD lease ends (libuv has stopped its
    /// handler if this was its last child).
    private func closeProcessHandle(_ process: UnsafeMutablePointer<uv_process_t>) {
        uv_close(UnsafeMutableRawPointer(process).assumingMemoryBound(to: uv_handle_t.self), ProcessTrampolines.closed)
        SignalOwner.endChildProcess()
    }

    // MARK: Stopping

    /// Stops the child for `reason` (loop thread): `SIGTERM`, then `SIGKILL` after the grace
    /// period; at once `SIGKILL` for a zero grace period or a shutdown. Repeated requests do
    /// not restart the grace period.
    func requestStop(_ reason: StopReason) {
        guard !settled, let handle else { return }  // not started: `start()` sees the flag
        if exit != nil {
            // Reaped already, waiting for its pipes: a cancellation stops the wait, and the
            // promise gets the child's real outcome with the output read so far.
            if case .cancelled = reason {
                for pipe in pipes { pipe.close() }
                finishIfDone()
            } else if stopReason == nil {
                stopReason = reason
                for pipe in pipes { pipe.close() }
                finishIfDone()
            }
            return
        }
        let first = stopReason == nil
        if first { stopReason = reason }
        if case .shutdown = reason {
            killNow()
            return
        }
        guard first else { return }
        if plan.grace == .zero {
            killNow()
            return
        }
        _ = uv_process_kill(handle, SIGTERM)
        let timer = KillTimer(child: self)
        killTimer = timer
        if !core.startTimer(timer, after: plan.grace) { killNow() }
    }

    /// Sends `SIGKILL` if the child has not been reaped (loop thread).
    func killNow() {
        guard let handle, exit == nil else { return }
        _ = uv_process_kill(handle, SIGKILL)
    }

    // MARK: libuv callbacks

    /// The exit callback: libuv reaped the child.
    func exited(status: Int64, signal: Int32) {
        exit = signal != 0 ? .signaled(signal) : .exited(Int32(truncatingIfNeeded: status))
        if let killTimer {
            self.killTimer = nil
            killTimer.child = nil
            core.cancelTimer(killTimer)
        }
        if let handle { closeProcessHandle(handle) }
        // A stopped child's pipes may be held open by its own children: do not wait for them.
        if stopReason != nil {
            for pipe in pipes { pipe.close() }
        }
        finishIfDone()
    }

    /// A pipe reached its end or was closed.
    func pipeFinished() {
        finishIfDone()
    }

    /// A pipe's output passed its limit: stop the child.
    func outputLimitPassed(_ error: UVError) {
        requestStop(.outputLimit(error))
    }

    /// Settles the promise once the child is reaped and every pipe is closed.
    private func finishIfDone() {
        guard !settled, exit != nil, pipes.allSatisfy(\.isClosed) else { return }
        settled = true
        core.children[id] = nil
        let outcome: Result<UVProcessResult, any Error>
        switch stopReason {
        case .none:
            let captured = pipes.reduce(into: [[UInt8]](repeating: [], count: 2)) { $0[Int($1.descriptor) - 1] = $1.captured }
            outcome = .success(UVProcessResult(processID: processID, exit: exit!, standardOutput: captured[0], standardError: captured[1]))
        case .cancelled:
            outcome = .failure(CancellationError())
        case .outputLimit(let error):
            outcome = .failure(error)
        case .shutdown:
            outcome = .failure(
                UVError(
                    .loopClosed, operation: "spawn",
                    detail: "the UVLoop was shut down before \(plan.arguments[0]) (pid \(processID)) was done; it was killed if running, and reaped"))
        }
        for pipe in pipes { pipe.detach() }
        pipes = []
        let contextID = core.contextID
        AdapterSupport.runTurn(contextID) { promise.resolveFromLibrary(outcome) }
    }
}

/// The timer that sends `SIGKILL` when a stopped child outlives its grace period; a shutdown
/// that abandons it sends `SIGKILL` at once.
///
/// `@unchecked Sendable`: as for ``TimerEntry``; `child` is read and cleared on the loop thread.
final class KillTimer: TimerEntry, @unchecked Sendable {
    var child: ChildProcess?

    init(child: ChildProcess) {
        self.child = child
    }

    override func fire() {
        child?.killNow()
        child = nil
    }

    override func abandon() {
        child?.killNow()
        child = nil
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
