/// The phases of one child output read as a ``UVOutputStream``: the loop hands in what the pipe
/// delivers, one consumer takes it in order, and the buffer between them is bounded: once it
/// holds `limit` bytes the loop stops reading the pipe (so the child blocks on a full pipe, as
/// with a slow reader in a shell), and reads again once the consumer has taken some.
///
/// Pure: it never touches the pipe and never resumes a task; ``OutputStreamChannel`` performs
/// what each event returns. `Waiter` is what a consumer waits with (a continuation; a plain
/// value in tests).
struct OutputStreamStateMachine<Waiter> {
    enum State {
        /// The pipe is open. `waiter` waits for the next piece (only with an empty buffer);
        /// `paused` says the loop stopped reading because the buffer is full.
        case streaming(waiter: Waiter?, paused: Bool)
        /// The pipe ended, with `error` for a failed read; what is buffered is still given out.
        case ended(UVError?)
        /// The consumer is gone: what arrives is dropped, so the child is never held up.
        case discarding
        /// The end was given to the consumer.
        case finished
    }

    /// The buffered bytes at which the loop stops reading.
    let limit: Int
    private(set) var state: State = .streaming(waiter: nil, paused: false)
    /// Pieces not yet taken, oldest first, from `head` on.
    private var pieces: [[UInt8]] = []
    private var head = 0
    /// The bytes in `pieces[head...]`.
    private(set) var bufferedBytes = 0

    init(limit: Int) {
        precondition(limit >= 1, "an output stream needs room for a byte")
        self.limit = limit
    }

    // MARK: From the loop

    enum ReceiveAction {
        /// Give `piece` to `waiter`.
        case resume(Waiter, [UInt8])
        /// Buffered; stop reading the pipe until ``nextRequested(_:)`` says to read again.
        case pauseReading
        case none
    }

    /// The pipe delivered `piece` (never empty).
    mutating func received(_ piece: [UInt8]) -> ReceiveAction {
        switch state {
        case .streaming(let waiter?, _):
            state = .streaming(waiter: nil, paused: false)
            return .resume(waiter, piece)
        case .streaming(nil, let paused):
            pieces.append(piece)
            bufferedBytes += piece.count
            guard !paused, bufferedBytes >= limit else { return .none }
            state = .streaming(waiter: nil, paused: true)
            return .pauseReading
        case .discarding:
            return .none
        case .ended, .finished:
            preconditionFailure("output arrived after its pipe ended (\(state))")
        }
    }

    enum EndAction {
        /// Give `waiter` the end: `nil`, or the read's error.
        case finish(Waiter, UVError?)
        case none
    }

    /// The pipe ended (`error` for a failed read) or was closed. Later ends are ignored.
    mutating func pipeEnded(_ error: UVError?) -> EndAction {
        switch state {
        case .streaming(let waiter?, _):
            state = .finished
            return .finish(waiter, error)
        case .streaming(nil, _):
            state = .ended(error)
            return .none
        case .discarding:
            state = .finished
            return .none
        case .ended, .finished:
            return .none
        }
    }

    // MARK: From the consumer

    enum NextAction {
        /// Hand `piece` over; when `resumeReading`, the loop reads the pipe again.
        case piece([UInt8], resumeReading: Bool)
        /// Wait: `waiter` is kept until a piece or the end arrives.
        case wait
        /// Hand the end over: `nil`, or the read's error.
        case end(UVError?)
        /// Another consumer waits already: refuse `waiter`.
        case refuse(Waiter)
    }

    /// The consumer asks for the next piece, waiting with `waiter` if there is none.
    mutating func nextRequested(_ waiter: Waiter) -> NextAction {
        if head < pieces.count {
            let piece = pieces[head]
            pieces[head] = []
            head += 1
            bufferedBytes -= piece.count
            if head == pieces.count {
                pieces.removeAll(keepingCapacity: true)
                head = 0
            }
            guard case .streaming(nil, true) = state, bufferedBytes < limit else { return .piece(piece, resumeReading: false) }
            state = .streaming(waiter: nil, paused: false)
            return .piece(piece, resumeReading: true)
        }
        switch state {
        case .streaming(nil, let paused):
            state = .streaming(waiter: waiter, paused: paused)
            return .wait
        case .streaming(.some, _):
            return .refuse(waiter)
        case .ended(let error):
            state = .finished
            return .end(error)
        case .finished, .discarding:
            return .end(nil)
        }
    }

    /// The waiting consumer's task was cancelled: returns its waiter, to resume with the
    /// cancellation, or `nil` when none waits (a piece or the end reached it first).
    mutating func waiterCancelled() -> Waiter? {
        guard case .streaming(let waiter?, let paused) = state else { return nil }
        state = .streaming(waiter: nil, paused: paused)
        return waiter
    }

    /// The consumer is gone (its stream and iterators were released). Returns whether the
    /// loop must read the pipe again, which it stopped for a full buffer.
    mutating func consumerGone() -> Bool {
        pieces = []
        head = 0
        bufferedBytes = 0
        switch state {
        case .streaming(_, let paused):
            state = .discarding
            return paused
        case .ended, .finished:
            state = .finished
            return false
        case .discarding:
            return false
        }
    }
}
