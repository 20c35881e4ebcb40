internal import CUV
internal import Glibc
import PromiseCore
internal import PromiseSystem

/// A child's standard input written while it runs (``UVCommand/Input/writer``): owns this
/// process's end of a socket pair whose other end is the child's descriptor 0 (or a copy of
/// the master of the child's terminal), the writes queued on it, and the `uv_poll_t` that
/// waits for room while the child is behind. Performs what its ``InputWriterStateMachine``
/// decides.
///
/// Writes to a socket go out with `send(…, MSG_NOSIGNAL | MSG_DONTWAIT)`: a child that has
/// closed its end fails the write with `EPIPE`, never raises `SIGPIPE` in this process, and a
/// full pipe never blocks the loop. A terminal's master, which is not a socket and never
/// raises `SIGPIPE`, is written with `write` (non-blocking: libuv set its reading copy so,
/// and the flag belongs to the open file both copies share).
///
/// Not `Sendable`: made with its ``ChildProcess`` on the calling thread, then used on the loop
/// thread only.
final class InputWriter {
    /// One write: its bytes, how many went out, and its promise.
    private struct PendingWrite {
        let bytes: [UInt8]
        var sent = 0
        let promise: Promise<Void>
    }

    /// What the writer writes to.
    enum Transport {
        /// One end of a socket pair, the other the child's standard input: ``finish()`` closes it.
        case socket
        /// A copy of the master of the child's terminal: ``finish()`` types the end-of-file
        /// character, and closes the copy (the loop still reads the master).
        case terminal
    }

    let core: LoopCore
    /// The program as given, for messages.
    private let program: String
    private let transport: Transport
    /// The last byte queued, which says whether a terminal's line is unfinished.
    private var lastQueuedByte: UInt8?
    private var machine = InputWriterStateMachine<UVError>()
    /// This process's end; -1 once closed.
    private var descriptor: Int32
    private var queue: [PendingWrite] = []
    private var queueHead = 0
    /// The promises of `finish()` calls, fulfilled when the pipe closes after the last write.
    private var finishing: [Promise<Void>] = []
    /// Made at the first full pipe, closed with the writer.
    private var poll: UnsafeMutablePointer<uv_poll_t>?
    /// The error the poll reported with its last wake-up, if any.
    private var pollError: Int32?
    /// Promises to fulfil once the current request is done with the writer's state: a
    /// promise's callbacks chained on the loop run as it is fulfilled, and may write or
    /// finish again.
    private var done: [Promise<Void>] = []

    init(core: LoopCore, descriptor: Int32, program: String, transport: Transport) {
        self.core = core
        self.transport = transport
        self.descriptor = descriptor
        self.program = program
    }

    deinit {
        // A writer whose child never reached the loop still owns its descriptor.
        if descriptor >= 0 { _ = close(descriptor) }
    }

    private var hasQueuedWrites: Bool { queueHead < queue.count }

    // MARK: Requests (loop thread)

    /// Queues `bytes`; `promise` is fulfilled once they are all in the pipe.
    func write(_ bytes: [UInt8], _ promise: Promise<Void>) {
        switch machine.writeRequested() {
        case .queue(let sendNow):
            queue.append(PendingWrite(bytes: bytes, promise: promise))
            lastQueuedByte = bytes.last ?? lastQueuedByte
            if sendNow { perform(sendQueued()) }
            fulfilDone()
        case .refuseFinished:
            promise.reject(
                UVError(.invalidArgument, operation: "write", detail: "\(program)'s standard input was finished with finish(); write before finishing"))
        case .refuse(let failure):
            promise.reject(failure)
        }
    }

    /// Closes the pipe once every queued write is out; `promise` is fulfilled then. A
    /// terminal is typed its end-of-file character first.
    func finish(_ promise: Promise<Void>) {
        if case .terminal = transport {
            // Its own promise: how it ends (refused after an earlier finish, failed with the
            // child) is `promise`'s news too.
            let typed = Promise<Void>.pending(resolvedOn: core.contextID)
            typed.catch(on: .inline) { _ in }
            write(endOfFileCharacters(), typed)
        }
        switch machine.finishRequested(hasQueuedWrites: hasQueuedWrites) {
        case .wait:
            finishing.append(promise)
        case .close:
            finishing.append(promise)
            closePipe()
            fulfilDone()
        case .fulfil:
            done.append(promise)
            fulfilDone()
        case .refuse(let failure):
            promise.reject(failure)
        }
    }

    /// What a terminal is typed to make its reader see end-of-file: its `VEOF` character
    /// (Ctrl-D unless the child changed it), which in canonical mode hands over the line typed
    /// so far, so a second one when that line is unfinished.
    private func endOfFileCharacters() -> [UInt8] {
        var settings = termios()
        // The master answers with the slave's settings.
        guard tcgetattr(descriptor, &settings) == 0 else { return [4] }
        let character = withUnsafeBytes(of: settings.c_cc) { $0[Int(VEOF)] }
        let canonical = settings.c_lflag & tcflag_t(ICANON) != 0
        let lineUnfinished = lastQueuedByte.map { $0 != UInt8(ascii: "\n") && $0 != character } ?? false
        return canonical && lineUnfinished ? [character, character] : [character]
    }

    // MARK: The child's lifecycle (loop thread)

    /// The child was spawned and has the other end: what is queued goes out.
    func spawned() {
        perform(machine.spawned(hasQueuedWrites: hasQueuedWrites))
        fulfilDone()
    }

    /// The child never started, was reaped, or the loop shut down: what is queued fails with
    /// `error`, and so does every later write.
    func end(_ error: UVError) {
        switch machine.failed(error) {
        case .fail(let failure):
            let writes = queue[queueHead...].map(\.promise)
            queue = []
            queueHead = 0
            let waiting = finishing
            finishing = []
            closeDescriptor()
            // Writes that went out before are fulfilled first, in order.
            fulfilDone()
            for promise in writes { promise.reject(failure) }
            for promise in waiting { promise.reject(failure) }
        case .none:
            break
        }
    }

    /// The poll found room in the pipe, or an error: libuv reports a socket whose other end
    /// closed as `UV_EBADF`, so the next send, which gets the real `errno`, says which.
    func writable(status: Int32) {
        if let poll { uv_poll_stop(poll) }
        pollError = status < 0 ? status : nil
        perform(machine.roomAvailable())
        fulfilDone()
    }

    // MARK: Sending

    private func perform(_ action: InputWriterStateMachine<UVError>.SendAction) {
        switch action {
        case .send: perform(sendQueued())
        case .close: closePipe()
        case .waitForRoom: waitForRoom()
        case .none: break
        }
    }

    /// Sends queued writes until the queue is empty or the pipe is full, and returns the
    /// machine's answer to that. A write cancelled meanwhile is dropped, with what of it was
    /// not sent yet.
    private func sendQueued() -> InputWriterStateMachine<UVError>.SendAction {
        while queueHead < queue.count {
            let write = queue[queueHead]
            guard write.promise.isPending, write.sent < write.bytes.count else {
                queueHead += 1
                if write.promise.isPending { done.append(write.promise) }
                // A queue that never empties (a child always a little behind) lets go of the
                // bytes of the writes that are out.
                if queueHead >= 32, queueHead * 2 >= queue.count {
                    queue.removeFirst(queueHead)
                    queueHead = 0
                }
                continue
            }
            let result = write.bytes.withUnsafeBytes { bytes in
                SystemCall.retryingInterrupts {
                    let start = bytes.baseAddress! + write.sent
                    let count = bytes.count - write.sent
                    return switch transport {
                    case .socket: send(descriptor, start, count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                    case .terminal: Glibc.write(descriptor, start, count)
                    }
                }
            }
            if result > 0 {
                queue[queueHead].sent += result
                continue
            }
            // A stream socket takes at least one byte or fails; nothing taken is a full pipe.
            if result == 0 { return machine.pipeFull() }
            let code = errno
            switch code {
            case EAGAIN, EWOULDBLOCK:
                if let pollError {
                    end(UVError(UVError.Code(uvCode: pollError), operation: "write", detail: "waiting for room in \(program)'s standard input"))
                    return .none
                }
                return machine.pipeFull()
            case EPIPE, ECONNRESET, EIO:
                end(
                    UVError(
                        .brokenPipe, operation: "write",
                        detail: "\(program) closed its standard input (it exited, or stopped reading) before reading all that was written"))
                return .none
            default:
                end(UVError(UVError.Code(uvCode: -code), operation: "write", detail: "\(program)'s standard input: \(ErrnoText.describe(code))"))
                return .none
            }
        }
        queue.removeAll(keepingCapacity: queue.capacity <= 64)
        queueHead = 0
        return machine.queueEmptied()
    }

    private func waitForRoom() {
        if poll == nil {
            let handle = UnsafeMutablePointer<uv_poll_t>.allocate(capacity: 1)
            handle.initialize(to: uv_poll_t())
            let status = uv_poll_init(core.loop, handle, descriptor)
            guard status == 0 else {
                handle.deallocate()
                return end(UVError(UVError.Code(uvCode: status), operation: "uv_poll_init", detail: "waiting for room in \(program)'s standard input"))
            }
            handle.pointee.data = Unmanaged.passRetained(self).toOpaque()
            core.handleOpened()
            poll = handle
        }
        uv_poll_start(poll, Int32(UV_WRITABLE.rawValue), ProcessTrampolines.inputWritable)
    }

    /// Everything is out: the child reads end-of-file, and `finish()` is fulfilled.
    private func closePipe() {
        closeDescriptor()
        done += finishing
        finishing = []
    }

    /// Closes the poll (stopping it) and then the descriptor.
    private func closeDescriptor() {
        if let poll {
            self.poll = nil
            uv_close(UnsafeMutableRawPointer(poll).assumingMemoryBound(to: uv_handle_t.self), ProcessTrampolines.inputClosed)
        }
        if descriptor >= 0 {
            _ = close(descriptor)
            descriptor = -1
        }
    }

    /// Fulfils the promises of the writes and finishes that are done, in order, in one turn.
    private func fulfilDone() {
        guard !done.isEmpty else { return }
        let promises = done
        done = []
        AdapterSupport.runTurn(core.contextID) {
            for promise in promises { promise.resolveFromLibrary(.success(())) }
        }
    }
}
