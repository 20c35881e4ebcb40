/// The body of a streamed response between the driver thread, which adds each chunk libcurl
/// delivers, and the one consumer that reads them: what is buffered, whether the transfer is
/// paused for the consumer, and how the stream ends.
///
/// A pure value. ``ResponseStream`` holds one under its lock and performs what each event
/// returns: pause libcurl (`CURL_WRITEFUNC_PAUSE`), ask the driver to resume it, hand a chunk
/// or the end to a waiting consumer, stop the transfer. `Waiter` is how a waiting consumer is
/// woken (a closure in the library, a number in the tests).
///
/// The bound: a chunk is refused (the transfer pauses and libcurl delivers it again on
/// resume) when the buffer holds something and the chunk would take it past `limit` bytes, so
/// the buffer never holds more than `limit` bytes, or one chunk when a single chunk is larger.
/// The transfer resumes once the consumer has taken the buffer down to half the limit.
struct BodyStreamStateMachine<Waiter> {
    /// Whether libcurl may deliver more.
    enum Flow: Equatable {
        case flowing
        /// The last chunk was refused; libcurl holds it until the driver resumes the transfer.
        case paused
    }

    /// How the body ended, as the transfer's outcome said.
    enum Ending {
        /// The whole body arrived.
        case complete
        /// The transfer failed, was cancelled or the client shut down.
        case failed(any Error)
    }

    enum State {
        /// The transfer runs and nobody waits: `buffer` holds what the consumer has not read.
        case buffering(ChunkBuffer, Flow)
        /// The transfer runs, the buffer is empty and the consumer waits for the next chunk.
        case consumerWaiting(Waiter)
        /// The consumer waits, and chunks arrived during this call into libcurl: they are
        /// handed over together once libcurl returns (``passEnded()``), one wake-up for all of
        /// them instead of one a chunk.
        case waking(ChunkBuffer, Flow, Waiter)
        /// The transfer is over; the consumer reads what is buffered, then `ending`.
        case ended(ChunkBuffer, Ending)
        /// The consumer gave up: chunks that still arrive are dropped, and its next read
        /// throws `CancellationError` (a cut body never reads as a complete one).
        case cancelled
        /// The consumer has read the ending: nothing more is delivered or kept.
        case finished
    }

    /// The most bytes buffered, unless one chunk alone is larger.
    let limit: Int
    private(set) var state: State = .buffering(ChunkBuffer(), .flowing)
    /// How often the transfer was paused because the consumer was behind.
    private(set) var pauses = 0
    /// The most bytes the buffer held at any moment.
    private(set) var mostBuffered = 0

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// The bytes buffered now.
    var bufferedBytes: Int {
        switch state {
        case .buffering(let buffer, _), .ended(let buffer, _), .waking(let buffer, _, _): buffer.bytes
        case .consumerWaiting, .cancelled, .finished: 0
        }
    }

    // MARK: The driver thread

    /// What the write callback does with a chunk.
    enum ChunkAction {
        /// It was buffered: take it (return its length to libcurl).
        case buffered
        /// It was buffered for the waiting consumer: take it, and call ``passEnded()`` once
        /// libcurl has returned.
        case wakeAfterPass
        /// Refuse it (`CURL_WRITEFUNC_PAUSE`): libcurl keeps it and delivers it again when
        /// the transfer resumes.
        case pause
        /// Take it and drop it: the consumer gave up, and the transfer is being stopped.
        case discard
    }

    /// `chunk` arrived.
    mutating func chunkArrived(_ chunk: [UInt8]) -> ChunkAction {
        switch state {
        case .buffering(var buffer, let flow):
            if flow == .paused || (buffer.bytes > 0 && buffer.bytes + chunk.count > limit) {
                if flow == .flowing { pauses += 1 }
                state = .buffering(buffer, .paused)
                return .pause
            }
            state = .finished  // the buffer's storage stays uniquely referenced while it grows
            buffer.append(chunk)
            mostBuffered = max(mostBuffered, buffer.bytes)
            state = .buffering(buffer, .flowing)
            return .buffered
        case .consumerWaiting(let waiter):
            var buffer = ChunkBuffer()
            buffer.append(chunk)
            mostBuffered = max(mostBuffered, chunk.count)
            state = .waking(buffer, .flowing, waiter)
            return .wakeAfterPass
        case .waking(var buffer, let flow, let waiter):
            if flow == .paused || buffer.bytes + chunk.count > limit {
                if flow == .flowing { pauses += 1 }
                state = .waking(buffer, .paused, waiter)
                return .pause
            }
            state = .finished
            buffer.append(chunk)
            mostBuffered = max(mostBuffered, buffer.bytes)
            state = .waking(buffer, .flowing, waiter)
            return .buffered
        case .cancelled, .finished:
            return .discard
        case .ended:
            preconditionFailure("a chunk arrived after the transfer ended")
        }
    }

    /// What happens once libcurl has returned from the call that delivered chunks to a waiting
    /// consumer.
    enum PassAction {
        case none
        /// Wake the consumer with this chunk (the rest stays buffered for its next reads);
        /// `resume` asks the driver to resume the paused transfer.
        case wake(Waiter, [UInt8], resume: Bool)
    }

    /// libcurl returned: the waiting consumer gets the first chunk that arrived meanwhile.
    mutating func passEnded() -> PassAction {
        guard case .waking(var buffer, let flow, let waiter) = state else { return .none }
        state = .finished
        let chunk = buffer.removeFirst()
        let resume = flow == .paused && buffer.bytes <= limit / 2
        state = .buffering(buffer, resume ? .flowing : flow)
        return .wake(waiter, chunk, resume: resume)
    }

    /// What happens once the transfer's outcome is known.
    enum EndAction {
        case none
        /// Wake the waiting consumer with the ending.
        case wake(Waiter, Ending)
        /// Wake the waiting consumer with this chunk; the ending follows what is buffered.
        case wakeWithChunk(Waiter, [UInt8])
    }

    /// The transfer ended with `ending`. The first ending counts; a later one is ignored.
    mutating func transferEnded(_ ending: Ending) -> EndAction {
        switch state {
        case .buffering(let buffer, _):
            state = .ended(buffer, ending)
            return .none
        case .consumerWaiting(let waiter):
            state = .finished
            return .wake(waiter, ending)
        case .waking(var buffer, _, let waiter):
            state = .finished
            let chunk = buffer.removeFirst()
            state = .ended(buffer, ending)
            return .wakeWithChunk(waiter, chunk)
        case .ended, .cancelled, .finished:
            return .none
        }
    }

    // MARK: The consumer

    /// What the consumer gets when it asks for the next chunk.
    enum NextAction {
        /// The next chunk.
        case chunk([UInt8])
        /// The next chunk; the transfer was paused and the buffer is low, so ask the driver to
        /// resume it.
        case chunkAndResume([UInt8])
        /// Nothing yet: the consumer waits (``next(orWait:)`` stored its waiter).
        case wait
        /// The body is complete: no more chunks.
        case end
        /// The transfer failed with this error; the consumer sees it once, then the end.
        case fail(any Error)
    }

    /// Takes the next chunk, or the end; when there is neither yet, stores `waiter` (if given)
    /// and returns ``NextAction/wait``.
    mutating func next(orWait waiter: Waiter?) -> NextAction {
        switch state {
        case .buffering(var buffer, let flow):
            guard !buffer.isEmpty else {
                guard let waiter else { return .wait }
                precondition(flow == .flowing, "a transfer was paused with an empty buffer")
                state = .consumerWaiting(waiter)
                return .wait
            }
            state = .finished
            let chunk = buffer.removeFirst()
            if flow == .paused, buffer.bytes <= limit / 2 {
                state = .buffering(buffer, .flowing)
                return .chunkAndResume(chunk)
            }
            state = .buffering(buffer, flow)
            return .chunk(chunk)
        case .ended(var buffer, let ending):
            guard buffer.isEmpty else {
                state = .finished
                let chunk = buffer.removeFirst()
                state = .ended(buffer, ending)
                return .chunk(chunk)
            }
            state = .finished
            switch ending {
            case .complete: return .end
            case .failed(let error): return .fail(error)
            }
        case .cancelled:
            state = .finished
            return .fail(CancellationError())
        case .finished:
            return .end
        case .consumerWaiting, .waking:
            return .fail(CurlError(.invalidArgument, message: "a streamed response body was read by two consumers at once; it has one reader"))
        }
    }

    /// What happens when the consumer gives up.
    enum CancelAction {
        case none
        /// Stop the transfer.
        case stopTransfer
        /// Stop the transfer and wake the waiting consumer with the reason.
        case stopTransferAndWake(Waiter)
    }

    /// The consumer gave up (its task was cancelled, it called `cancel()`, or it dropped the
    /// body): what is buffered is dropped, a transfer still running is stopped, and a waiting
    /// consumer is woken with `CancellationError`. Once the ending was read, nothing happens.
    mutating func consumerCancelled() -> CancelAction {
        switch state {
        case .buffering:
            state = .cancelled
            return .stopTransfer
        case .consumerWaiting(let waiter), .waking(_, _, let waiter):
            state = .finished
            return .stopTransferAndWake(waiter)
        case .ended:
            state = .cancelled
            return .none
        case .cancelled, .finished:
            return .none
        }
    }
}

/// The chunks of a body not read yet, first in first out, and their total size.
struct ChunkBuffer {
    private var chunks: [[UInt8]] = []
    private var first = 0
    /// The bytes held.
    private(set) var bytes = 0

    var isEmpty: Bool { first == chunks.count }

    mutating func append(_ chunk: [UInt8]) {
        chunks.append(chunk)
        bytes += chunk.count
    }

    /// The oldest chunk; the buffer must not be empty.
    mutating func removeFirst() -> [UInt8] {
        let chunk = chunks[first]
        chunks[first] = []
        first += 1
        bytes -= chunk.count
        if first == chunks.count {
            chunks.removeAll(keepingCapacity: true)
            first = 0
        } else if first >= 64, first * 2 >= chunks.count {
            chunks.removeFirst(first)
            first = 0
        }
        return chunk
    }
}
