internal import CUV
internal import Glibc
import PromiseCore
internal import PromiseSystem

/// The parent's end of one output pipe of a child (its standard output or error): reads it
/// on the loop thread and captures, splits into lines or passes on the bytes as the
/// ``UVCommand/Output`` asks.
///
/// A socket pair is read through a `uv_pipe_t`. A terminal's master is read here, when a
/// `uv_poll_t` says it is readable, until it is empty: libuv's stream reading takes a short
/// read at a hang-up (`POLLHUP`, which the master reports once the child's side is closed) for
/// the end, while a terminal gives at most its line buffer (4 KiB) per read with more still
/// waiting, so libuv would drop the last few kilobytes.
///
/// Not `Sendable`: used on the loop thread only (created in ``ChildProcess/start()``, then by
/// libuv's callbacks); the handler calls it queues capture copies of the bytes.
final class OutputPipe {
    /// How many bytes one read may deliver.
    static let bufferSize = 64 << 10
    /// How many reads ``closeAfterReadingWhatIsThere()`` makes at most: 512 KiB.
    static let readsBeforeClosing = 8

    /// What this process reads.
    enum Source {
        /// One end of a socket pair whose other end the child writes: end-of-file ends it.
        case socketPair
        /// A pseudo-terminal's master (``UVCommand/terminal``): once every copy of the slave is
        /// closed, reading fails with `EIO`, which is its end, not an error.
        case terminalMaster
    }

    /// Where the pipe is in its life: unopened, read by libuv or by its poll, closed (with a
    /// terminal's master held until the child is reaped, or not).
    private enum Reader {
        /// Before ``open(_:)``.
        case unopened
        /// libuv reads the socket pair, and closes the descriptor with the handle.
        case stream(UnsafeMutablePointer<uv_pipe_t>)
        /// This pipe reads the terminal's master when the poll says so, and closes it.
        case poll(UnsafeMutablePointer<uv_poll_t>, descriptor: Int32)
        /// The terminal's output ended while the child still runs: its poll is closed, and the
        /// master stays open until the child has been reaped (``childReaped()``). Closing it
        /// hangs the terminal up, and a child that has closed its side but not yet exited
        /// (one flushing its output at exit) would die of the `SIGHUP`.
        case masterHeld(descriptor: Int32)
        /// Closed: ended, stopped, or never opened because its poll could not be made.
        case closed
    }

    private var reader = Reader.unopened
    /// 1 for standard output, 2 for standard error.
    let descriptor: Int32
    let core: LoopCore
    /// Cleared once the child has settled, which ends the cycle between the two.
    private var child: ChildProcess?
    private let output: UVCommand.Output
    private let buffer: UnsafeMutableRawPointer
    private(set) var captured: [UInt8] = []
    private var partialLine: [UInt8] = []
    /// Whether the pipe has ended or been closed: nothing more is read from it.
    var isClosed: Bool {
        switch reader {
        case .unopened, .stream, .poll: false
        case .masterHeld, .closed: true
        }
    }
    /// Where a streamed output goes (``UVCommand/Output/stream(bufferLimit:)``), or `nil`.
    private let stream: OutputStreamChannel?
    let source: Source

    init(child: ChildProcess, output: UVCommand.Output, descriptor: Int32, stream: OutputStreamChannel?, source: Source) {
        self.source = source
        self.child = child
        self.core = child.core
        self.output = output
        self.descriptor = descriptor
        self.stream = stream
        buffer = .allocate(byteCount: Self.bufferSize, alignment: 16)
    }

    deinit {
        buffer.deallocate()
        // A child that settled without being reaped (never, as the child machine goes).
        if case .masterHeld(let descriptor) = reader { SystemCall.close(descriptor) }
    }

    /// Reads `descriptor` from now on (loop thread), which it owns from here, whether this
    /// succeeds or not; returns libuv's error. Once opened, even when it failed, the pipe
    /// holds a handle until ``close()``.
    func open(_ descriptor: Int32) -> Int32 {
        switch source {
        case .socketPair:
            let handle = UnsafeMutablePointer<uv_pipe_t>.allocate(capacity: 1)
            handle.initialize(to: uv_pipe_t())
            uv_pipe_init(core.loop, handle, 0)  // cannot fail without IPC
            handle.pointee.data = Unmanaged.passRetained(self).toOpaque()
            core.handleOpened()
            reader = .stream(handle)
            let status = uv_pipe_open(handle, descriptor)
            if status != 0 { SystemCall.close(descriptor) }
            return status
        case .terminalMaster:
            // Non-blocking, so that reading until it is empty never waits.
            let flags = fcntl(descriptor, F_GETFL)
            if flags == -1 || fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == -1 {
                let code = errno
                SystemCall.close(descriptor)
                reader = .closed
                return -code
            }
            let handle = UnsafeMutablePointer<uv_poll_t>.allocate(capacity: 1)
            handle.initialize(to: uv_poll_t())
            let status = uv_poll_init(core.loop, handle, descriptor)
            guard status == 0 else {
                handle.deallocate()
                SystemCall.close(descriptor)
                reader = .closed
                return status
            }
            handle.pointee.data = Unmanaged.passRetained(self).toOpaque()
            core.handleOpened()
            reader = .poll(handle, descriptor: descriptor)
            return 0
        }
    }

    /// Opens a close-on-exec socket pair (what libuv makes for its own pipes) and reads its
    /// first end (loop thread); returns the other, for the child.
    func openSocketPair(for name: String) -> Result<Int32, UVError> {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            let code = errno
            return .failure(UVError(UVError.Code(uvCode: -code), operation: "socketpair", detail: "a pipe for the child's \(name)"))
        }
        let status = open(ends[0])
        guard status == 0 else {
            SystemCall.close(ends[1])
            return .failure(UVError(UVError.Code(uvCode: status), operation: "uv_pipe_open", detail: "the child's \(name)"))
        }
        return .success(ends[1])
    }

    /// Starts reading (after a successful spawn).
    func startReading() {
        let status =
            switch reader {
            case .unopened, .masterHeld, .closed: UV_EBADF.rawValue
            case .stream(let handle): uv_read_start(Self.stream(handle), ProcessTrampolines.allocate, ProcessTrampolines.read)
            case .poll(let handle, _): uv_poll_start(handle, Int32(UV_READABLE.rawValue), ProcessTrampolines.terminalReadable)
            }
        if status != 0 { close() }
    }

    /// Stops reading until ``resumeReading()`` (a full stream buffer).
    private func pauseReading() {
        switch reader {
        case .unopened, .masterHeld, .closed: break
        case .stream(let handle): uv_read_stop(Self.stream(handle))
        case .poll(let handle, _): uv_poll_stop(handle)
        }
    }

    private static func stream(_ handle: UnsafeMutablePointer<uv_pipe_t>) -> UnsafeMutablePointer<uv_stream_t> {
        UnsafeMutableRawPointer(handle).assumingMemoryBound(to: uv_stream_t.self)
    }

    /// The terminal's master is readable, or its poll failed (`status` < 0): reads it until it
    /// is empty, at its end, or paused (loop thread).
    func terminalReadable(status: Int32) {
        guard case .poll(_, let descriptor) = reader else { return }
        guard status >= 0 else {
            received(Int(status))
            return
        }
        // A bounded number of reads per wake-up, so that a child writing without pause
        // cannot keep the loop here; the poll wakes it again for the rest.
        for _ in 0..<Self.readsBeforeClosing where !isClosed {
            let count = SystemCall.retryingInterrupts { read(descriptor, buffer, Self.bufferSize) }
            if count > 0 {
                if received(count) == .pause { return }
                continue
            }
            let code = errno
            if count < 0, code == EAGAIN || code == EWOULDBLOCK { return }
            // The end (0 bytes, or `EIO` once the child's side is closed), or a failed read.
            received(count == 0 ? Int(UV_EOF.rawValue) : Int(-code))
            return
        }
    }

    /// Reads again after a full stream buffer stopped it (loop thread).
    func resumeReading() {
        guard !isClosed else { return }
        startReading()
    }

    /// The buffer for the next read.
    func readBuffer() -> uv_buf_t {
        uv_buf_init(buffer.assumingMemoryBound(to: CChar.self), UInt32(Self.bufferSize))
    }

    /// What reading does after a read was taken in.
    enum AfterRead {
        case readOn
        /// A streamed output's buffer is full: reading stopped until the consumer takes some.
        case pause
    }

    /// `count` bytes arrived in the buffer, or the pipe ended (`count` < 0).
    @discardableResult
    func received(_ count: Int) -> AfterRead {
        guard !isClosed else { return .readOn }
        guard count >= 0 else {
            finishLines()
            if !isEnd(Int32(count)) {
                let name = descriptor == 1 ? "standard output" : "standard error"
                stream?.pipeEnded(UVError(UVError.Code(uvCode: Int32(count)), operation: "read", detail: "reading the child's \(name)"))
            }
            close()
            return .readOn
        }
        guard count > 0 else { return .readOn }
        let bytes = UnsafeRawBufferPointer(start: buffer, count: count)
        switch output.storage {
        case .capture(let limit):
            guard captured.count + count <= limit else {
                // The error carries exactly the limit's bytes.
                captured.append(contentsOf: bytes.prefix(limit - captured.count))
                passedLimit("wrote more than its limit of \(limit) bytes")
                return .readOn
            }
            captured.append(contentsOf: bytes)
        case .chunks(let context, let handler):
            let chunk = [UInt8](bytes)
            deliver(context) { handler(chunk) }
        case .stream:
            if stream?.received([UInt8](bytes)) == false {
                // A full buffer: the child waits on the pipe until the consumer takes some.
                pauseReading()
                return .pause
            }
        case .lines(let context, let maxLength, let handler):
            var start = 0
            while let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
                var line = partialLine
                partialLine = []
                line.append(contentsOf: bytes[start..<newline])
                start = newline + 1
                guard line.count <= maxLength else {
                    passedLimit("wrote a line longer than its limit of \(maxLength) bytes")
                    return .readOn
                }
                let complete = line
                deliver(context) { handler(complete) }
            }
            partialLine.append(contentsOf: bytes[start...])
            if partialLine.count > maxLength {
                passedLimit("wrote a line longer than its limit of \(maxLength) bytes")
            }
        case .discard, .inherit, .file, .descriptor, .pipe, .combinedWithOutput:
            break  // never read through a pipe
        }
        return .readOn
    }

    /// Whether a failed read's `status` is the end of the output.
    private func isEnd(_ status: Int32) -> Bool {
        switch source {
        case .socketPair: status == UV_EOF.rawValue
        case .terminalMaster: status == UV_EOF.rawValue || status == UV_EIO.rawValue
        }
    }

    /// This process's descriptor of the pipe (loop thread), or `nil` once it is closed.
    var openDescriptor: Int32? {
        guard !isClosed else { return nil }
        switch reader {
        case .unopened, .masterHeld, .closed:
            return nil
        case .stream(let handle):
            var descriptor: uv_os_fd_t = -1
            guard uv_fileno(UnsafeMutableRawPointer(handle).assumingMemoryBound(to: uv_handle_t.self), &descriptor) == 0 else { return nil }
            return descriptor
        case .poll(_, let descriptor):
            return descriptor
        }
    }

    /// At end of output: the last line, if it had no newline.
    private func finishLines() {
        guard case .lines(let context, _, let handler) = output.storage, !partialLine.isEmpty else { return }
        let line = partialLine
        partialLine = []
        deliver(context) { handler(line) }
    }

    private func deliver(_ context: (any ExecutionContext)?, _ work: @escaping @Sendable () -> Void) {
        AdapterSupport.submit(context ?? Promises.defaultContext, work)
    }

    private func passedLimit(_ what: String) {
        let name = descriptor == 1 ? "standard output" : "standard error"
        close()
        child?.outputLimitPassed(
            UVError(.outputLimitExceeded, operation: "spawn", detail: "the child's \(name) \(what); it was stopped"))
    }

    /// Reads what the pipe holds now, without waiting for more, then closes it (loop thread):
    /// what a stopped child wrote before it exited is kept, while the descendants that may
    /// still hold the pipe open are not waited for.
    func closeAfterReadingWhatIsThere() {
        if let descriptor = openDescriptor {
            // At most what a socket pair holds (about 200 KiB by default), so that a descendant
            // that keeps writing cannot keep the loop here.
            for _ in 0..<Self.readsBeforeClosing where !isClosed {
                let count = SystemCall.retryingInterrupts { read(descriptor, buffer, Self.bufferSize) }
                guard count > 0 else { break }  // empty for now (EAGAIN), or its end
                received(count)
            }
        }
        close()
    }

    /// Stops reading and closes the pipe (loop thread); the child is told once every pipe is
    /// closed.
    func close() {
        guard !isClosed else { return }
        stream?.pipeEnded(nil)
        switch reader {
        case .unopened, .masterHeld, .closed:
            reader = .closed
        case .stream(let handle):
            uv_close(UnsafeMutableRawPointer(handle).assumingMemoryBound(to: uv_handle_t.self), ProcessTrampolines.pipeClosed)
            reader = .closed
        case .poll(let handle, let descriptor):
            // `uv_close` stops the poll at once, so the descriptor can go now, or once the
            // child is reaped.
            uv_close(UnsafeMutableRawPointer(handle).assumingMemoryBound(to: uv_handle_t.self), ProcessTrampolines.pipeClosed)
            if child?.awaitsExit == true {
                reader = .masterHeld(descriptor: descriptor)
            } else {
                SystemCall.close(descriptor)
                reader = .closed
            }
        }
        child?.pipeFinished()
    }

    /// The child has been reaped (loop thread): a terminal's master held open for it closes.
    func childReaped() {
        guard case .masterHeld(let descriptor) = reader else { return }
        SystemCall.close(descriptor)
        reader = .closed
    }

    /// The child has settled: drop it.
    func detach() {
        child = nil
    }
}
