internal import CUV
internal import Glibc
import PromiseCore
internal import PromiseSystem

/// The parent's end of one output pipe of a child (its standard output or error): reads it
/// on the loop thread and captures, splits into lines or passes on the bytes as the
/// ``UVCommand/Output`` asks.
///
/// Not `Sendable`: used on the loop thread only (created in ``ChildProcess/start()``, then by
/// libuv's callbacks); the handler calls it queues capture copies of the bytes.
final class OutputPipe {
    /// How many bytes one read may deliver.
    static let bufferSize = 64 << 10
    /// How many reads ``closeAfterReadingWhatIsThere()`` makes at most: 512 KiB.
    static let readsBeforeClosing = 8

    let handle: UnsafeMutablePointer<uv_pipe_t>
    /// 1 for standard output, 2 for standard error.
    let descriptor: Int32
    let core: LoopCore
    /// Cleared once the child has settled, which ends the cycle between the two.
    private var child: ChildProcess?
    private let output: UVCommand.Output
    private let buffer: UnsafeMutableRawPointer
    private(set) var captured: [UInt8] = []
    private var partialLine: [UInt8] = []
    private(set) var isClosed = false
    /// Where a streamed output goes (``UVCommand/Output/stream(bufferLimit:)``), or `nil`.
    private let stream: OutputStreamChannel?

    init(child: ChildProcess, output: UVCommand.Output, descriptor: Int32, stream: OutputStreamChannel?) {
        self.child = child
        self.core = child.core
        self.output = output
        self.descriptor = descriptor
        self.stream = stream
        handle = .allocate(capacity: 1)
        handle.initialize(to: uv_pipe_t())
        buffer = .allocate(byteCount: Self.bufferSize, alignment: 16)
    }

    deinit {
        buffer.deallocate()
    }

    var streamHandle: UnsafeMutablePointer<uv_stream_t> {
        UnsafeMutableRawPointer(handle).assumingMemoryBound(to: uv_stream_t.self)
    }

    /// Starts reading (after a successful spawn).
    func startReading() {
        let status = uv_read_start(streamHandle, ProcessTrampolines.allocate, ProcessTrampolines.read)
        if status != 0 { close() }
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

    /// `count` bytes arrived in the buffer, or the pipe ended (`count` < 0).
    func received(_ count: Int) {
        guard !isClosed else { return }
        guard count >= 0 else {
            finishLines()
            if Int32(count) != UV_EOF.rawValue {
                let name = descriptor == 1 ? "standard output" : "standard error"
                stream?.pipeEnded(UVError(UVError.Code(uvCode: Int32(count)), operation: "read", detail: "reading the child's \(name)"))
            }
            close()
            return
        }
        guard count > 0 else { return }
        let bytes = UnsafeRawBufferPointer(start: buffer, count: count)
        switch output.storage {
        case .capture(let limit):
            guard captured.count + count <= limit else {
                // The error carries exactly the limit's bytes.
                captured.append(contentsOf: bytes.prefix(limit - captured.count))
                return passedLimit("wrote more than its limit of \(limit) bytes")
            }
            captured.append(contentsOf: bytes)
        case .chunks(let context, let handler):
            let chunk = [UInt8](bytes)
            deliver(context) { handler(chunk) }
        case .stream:
            if stream?.received([UInt8](bytes)) == false {
                // A full buffer: the child waits on the pipe until the consumer takes some.
                uv_read_stop(streamHandle)
            }
        case .lines(let context, let maxLength, let handler):
            var start = 0
            while let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
                var line = partialLine
                partialLine = []
                line.append(contentsOf: bytes[start..<newline])
                start = newline + 1
                guard line.count <= maxLength else {
                    return passedLimit("wrote a line longer than its limit of \(maxLength) bytes")
                }
                let complete = line
                deliver(context) { handler(complete) }
            }
            partialLine.append(contentsOf: bytes[start...])
            if partialLine.count > maxLength {
                return passedLimit("wrote a line longer than its limit of \(maxLength) bytes")
            }
        case .discard, .inherit, .file, .descriptor, .pipe, .combinedWithOutput:
            break  // never read through a pipe
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
        var descriptor: uv_os_fd_t = -1
        if !isClosed, uv_fileno(UnsafeMutableRawPointer(handle).assumingMemoryBound(to: uv_handle_t.self), &descriptor) == 0 {
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
        isClosed = true
        stream?.pipeEnded(nil)
        uv_close(UnsafeMutableRawPointer(handle).assumingMemoryBound(to: uv_handle_t.self), ProcessTrampolines.pipeClosed)
        child?.pipeFinished()
    }

    /// The child has settled: drop it.
    func detach() {
        child = nil
    }
}
