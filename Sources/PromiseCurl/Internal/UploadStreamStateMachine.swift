/// A request body produced while it is sent, between the producer (a task running the body's
/// closure, which writes) and libcurl's read callback on the driver thread (which reads):
/// what is buffered, whether the read callback paused the transfer for want of bytes, whether
/// the producer waits for room, and how the body ends.
///
/// A pure value. ``UploadStream`` holds one under its lock and performs what each event
/// returns. `Waiter` is how a producer waiting for room is woken.
///
/// The bound: a write is always taken whole, and the producer then waits while more than
/// `limit` bytes are buffered, until the read callback has taken them down to half of it.
struct UploadStreamStateMachine<Waiter> {
    /// Whether libcurl waits for bytes.
    enum Reader: Equatable {
        case reading
        /// The read callback found nothing and paused the transfer (`CURL_READFUNC_PAUSE`).
        case paused
    }

    enum State {
        /// The producer writes; `waiting` is a producer that waits for room.
        case producing(buffer: [UInt8], reader: Reader, waiting: Waiter?)
        /// The producer finished; the reader takes what is left, then the end.
        case produced(buffer: [UInt8])
        /// The producer failed, or wrote more or less than the declared length: the transfer
        /// fails with this error.
        case failed(CurlError)
        /// The transfer is over: nothing more is sent, and a write fails.
        case closed
    }

    /// Buffered bytes past which the producer waits.
    let limit: Int
    /// The declared length, or `nil` when it is unknown (sent chunked).
    let length: Int?
    private(set) var state: State = .producing(buffer: [], reader: .reading, waiting: nil)
    /// Bytes written so far.
    private(set) var written = 0

    init(limit: Int, length: Int?) {
        self.limit = max(1, limit)
        self.length = length
    }

    // MARK: The producer

    /// What a write leads to.
    enum WriteAction {
        /// Go on writing; `resumeReader` asks the driver to resume the paused transfer.
        case proceed(resumeReader: Bool)
        /// The buffer is over the limit: wait for room (``waitForRoom(_:)``).
        case waitForRoom(resumeReader: Bool)
        /// The write failed: the transfer is over or the body went past its declared length.
        case fail(CurlError, resumeReader: Bool)
    }

    mutating func write(_ bytes: [UInt8]) -> WriteAction {
        switch state {
        case .producing(_, _, .some):
            // A writer escaped its closure, or two tasks write at once: this write fails,
            // the one waiting goes on.
            return .fail(
                CurlError(
                    .invalidArgument,
                    message: "the request body producer wrote while an earlier write waited for room; write from one task at a time"),
                resumeReader: false)
        case .producing(var buffer, let reader, .none):
            written += bytes.count
            if let length, written > length {
                let failure = CurlError(
                    .invalidArgument, message: "the request body producer wrote \(written) bytes, more than the declared length of \(length)")
                state = .failed(failure)
                return .fail(failure, resumeReader: reader == .paused)
            }
            state = .closed  // the buffer stays uniquely referenced while it grows
            buffer += bytes
            let full = buffer.count > limit
            state = .producing(buffer: buffer, reader: .reading, waiting: nil)
            return full ? .waitForRoom(resumeReader: reader == .paused) : .proceed(resumeReader: reader == .paused)
        case .failed(let failure):
            return .fail(failure, resumeReader: false)
        case .closed:
            return .fail(CurlError(.invalidArgument, message: "the request ended before its body was sent"), resumeReader: false)
        case .produced:
            // A writer kept past the end of its closure: the body was complete without this.
            return .fail(
                CurlError(.invalidArgument, message: "the request body producer wrote after its closure returned, when the body was complete"),
                resumeReader: false)
        }
    }

    /// What a producer that must wait for room does.
    enum WaitAction {
        /// Go on: there is room already (or the transfer is over, and the next write says so).
        case proceed
        /// Wait: the waiter is woken when there is room, or the transfer ends.
        case stored
    }

    mutating func waitForRoom(_ waiter: Waiter) -> WaitAction {
        guard case .producing(let buffer, let reader, .none) = state, buffer.count > limit / 2 else { return .proceed }
        state = .producing(buffer: buffer, reader: reader, waiting: waiter)
        return .stored
    }

    /// The producer returned: the body is complete, unless it is shorter than its declared
    /// length. Returns whether to resume the paused transfer.
    mutating func producerFinished() -> Bool {
        guard case .producing(let buffer, let reader, _) = state else { return false }
        if let length, written < length {
            state = .failed(CurlError(.invalidArgument, message: "the request body producer finished after \(written) of the declared \(length) bytes"))
        } else {
            state = .produced(buffer: buffer)
        }
        return reader == .paused
    }

    /// The producer threw `error`: the transfer fails with it. Returns whether to resume the
    /// paused transfer (its read callback then aborts it).
    mutating func producerFailed(_ error: any Error) -> Bool {
        guard case .producing(_, let reader, _) = state else { return false }
        state = .failed(CurlError(.readError, message: "the request body producer failed: \(error)", underlying: error))
        return reader == .paused
    }

    // MARK: The driver thread

    /// What the read callback gives libcurl.
    enum ReadAction {
        /// These bytes; `wake` is a producer that now has room.
        case bytes([UInt8], wake: Waiter?)
        /// Nothing yet: pause the transfer (`CURL_READFUNC_PAUSE`) until the producer writes.
        case pause
        /// The body is complete: return 0.
        case end
        /// Abort the transfer (`CURL_READFUNC_ABORT`) with this error.
        case abort(CurlError)
    }

    /// libcurl asks for up to `capacity` bytes.
    mutating func read(capacity: Int) -> ReadAction {
        switch state {
        case .producing(var buffer, _, let waiting):
            guard !buffer.isEmpty else {
                state = .producing(buffer: buffer, reader: .paused, waiting: waiting)
                return .pause
            }
            let count = min(capacity, buffer.count)
            let taken = Array(buffer[..<count])
            state = .closed
            buffer.removeFirst(count)
            let wake = buffer.count <= limit / 2 ? waiting : nil
            state = .producing(buffer: buffer, reader: .reading, waiting: wake == nil ? waiting : nil)
            return .bytes(taken, wake: wake)
        case .produced(var buffer):
            guard !buffer.isEmpty else { return .end }
            let count = min(capacity, buffer.count)
            let taken = Array(buffer[..<count])
            state = .closed
            buffer.removeFirst(count)
            state = .produced(buffer: buffer)
            return .bytes(taken, wake: nil)
        case .failed(let failure):
            return .abort(failure)
        case .closed:
            return .abort(CurlError(.readError, message: "the request body was read after the request ended"))
        }
    }

    /// The transfer ended (sent, failed or cancelled): what is buffered is dropped, and a
    /// waiting producer is woken (its next write fails).
    mutating func transferEnded() -> Waiter? {
        defer { state = .closed }
        if case .producing(_, _, let waiting) = state { return waiting }
        return nil
    }
}
