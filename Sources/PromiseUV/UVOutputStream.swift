import PromiseCore

/// A running child's standard output (or error) as an asynchronous sequence of byte pieces,
/// for a command started by ``UVLoop/start(_:)`` with ``UVCommand/Output/stream(bufferLimit:)``.
///
/// ```swift
/// let server = loop.start(UVCommand("my-server", standardOutput: .stream()))
/// for try await piece in server.standardOutput! {
///     log.append(contentsOf: piece)              // as the child writes it
/// }
/// ```
///
/// The pieces come in the order the child wrote them, each as the pipe delivered it (at most
/// 64 KiB); the sequence ends when the pipe does: the child and whatever it started have
/// closed it, or the child was stopped. A failed read ends it with the ``UVError``.
///
/// **Backpressure.** The loop stops reading the pipe once the pieces not yet taken hold
/// `bufferLimit` bytes, so a child that writes faster than the sequence is consumed blocks on
/// a full pipe, as it would writing into a shell's `|`, and reads again as soon as some are
/// taken. ``UVChildProcess/result`` settles once the pipe has ended, so it waits for the
/// consumer too.
///
/// One consumer reads it: a second iterator waiting at the same time is refused with
/// ``UVError/Code-swift.struct/invalidArgument``. Cancelling the waiting task throws
/// `CancellationError` from `next()` and keeps what was buffered for the next call. When the
/// sequence and its iterators are all released, the loop reads on and drops the rest, so the
/// child is never left blocked on output nobody reads.
public struct UVOutputStream: AsyncSequence, Sendable {
    /// A piece of output, as the pipe delivered it.
    public typealias Element = [UInt8]
    public typealias Failure = any Error

    let consumer: Consumer

    /// The one object the stream and its iterators share: its release tells the loop that
    /// nobody reads any more.
    final class Consumer: Sendable {
        let channel: OutputStreamChannel
        let child: LoopOwned<ChildProcess>?
        let descriptor: Int32

        init(channel: OutputStreamChannel, child: LoopOwned<ChildProcess>?, descriptor: Int32) {
            self.channel = channel
            self.child = child
            self.descriptor = descriptor
        }

        deinit {
            guard channel.consumerGone() else { return }
            let descriptor = self.descriptor
            _ = child?.run(.late) { $0.resumeReading(descriptor) }
        }

        /// Reads the pipe again after a full buffer was taken from (on the loop thread).
        func resumeReading() {
            let descriptor = self.descriptor
            _ = child?.run(.late) { $0.resumeReading(descriptor) }
        }
    }

    init(consumer: Consumer) {
        self.consumer = consumer
    }

    /// Takes the pieces in order.
    public struct AsyncIterator: AsyncIteratorProtocol {
        public typealias Element = [UInt8]
        public typealias Failure = any Error

        let consumer: Consumer

        /// The next piece, or `nil` once the pipe has ended and everything was taken.
        ///
        /// - Throws: The ``UVError`` of a failed read; `CancellationError` when the task is
        ///   cancelled while waiting; ``UVError/Code-swift.struct/invalidArgument`` while
        ///   another iterator waits.
        public mutating func next() async throws -> [UInt8]? {
            try await consumer.channel.next(resumeReading: consumer.resumeReading)
        }
    }

    /// An iterator over the pieces; iterate once, from one task at a time.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(consumer: consumer)
    }
}

/// Where the loop leaves a child's streamed output and its consumer takes it: an
/// ``OutputStreamStateMachine`` behind a lock, which also resumes the waiting task.
final class OutputStreamChannel: Sendable {
    typealias Waiter = CheckedContinuation<[UInt8]?, any Error>
    private let machine: Lock<OutputStreamStateMachine<Waiter>>

    init(limit: Int) {
        machine = Lock(OutputStreamStateMachine(limit: limit))
    }

    /// The loop read `piece`; returns `false` when the loop must stop reading (full buffer).
    func received(_ piece: [UInt8]) -> Bool {
        switch machine.withLock({ $0.received(piece) }) {
        case .resume(let waiter, let piece):
            waiter.resume(returning: piece)
            return true
        case .pauseReading:
            return false
        case .none:
            return true
        }
    }

    /// The pipe ended or was closed.
    func pipeEnded(_ error: UVError?) {
        guard case .finish(let waiter, let error) = machine.withLock({ $0.pipeEnded(error) }) else { return }
        if let error {
            waiter.resume(throwing: error)
        } else {
            waiter.resume(returning: nil)
        }
    }

    /// Nobody reads any more; returns whether the loop must read the pipe again.
    func consumerGone() -> Bool {
        machine.withLock { $0.consumerGone() }
    }

    /// The next piece for the consumer.
    func next(resumeReading: () -> Void) async throws -> [UInt8]? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: Waiter) in
                let action = machine.withLock { machine -> OutputStreamStateMachine<Waiter>.NextAction in
                    // A cancellation before this point found no waiter to resume.
                    if Task.isCancelled { return .refuse(waiter) }
                    return machine.nextRequested(waiter)
                }
                switch action {
                case .piece(let piece, let resume):
                    if resume { resumeReading() }
                    waiter.resume(returning: piece)
                case .wait:
                    break
                case .end(let error):
                    if let error { waiter.resume(throwing: error) } else { waiter.resume(returning: nil) }
                case .refuse(let waiter):
                    if Task.isCancelled {
                        waiter.resume(throwing: CancellationError())
                    } else {
                        waiter.resume(
                            throwing: UVError(
                                .invalidArgument, operation: "read", detail: "another task is waiting on this output already: read it from one task"))
                    }
                }
            }
        } onCancel: {
            machine.withLock { $0.waiterCancelled() }?.resume(throwing: CancellationError())
        }
    }
}
