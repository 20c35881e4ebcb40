@_spi(ContextContract) import PromiseCore
internal import PromiseSystem

/// The shared end of a streamed response's body: the driver thread adds chunks and the end,
/// the one consumer (an async iterator or a callback consumer) takes them. The decisions are
/// ``BodyStreamStateMachine``'s; this class holds it under a lock and performs its actions:
/// it wakes the consumer, and it asks the driver to resume or stop the transfer.
final class ResponseStream: Sendable {
    /// A consumer waiting for the next chunk, the end (`nil`) or the failure.
    enum Waiter {
        /// A task suspended in ``CurlBodyStream/AsyncIterator/next()``.
        case task(UnsafeContinuation<[UInt8]?, any Error>)
        /// ``CurlBodyStream/forEach(on:_:)``'s consumer, run on its context.
        case callback(CallbackConsumer)
    }

    typealias Machine = BodyStreamStateMachine<Waiter>

    /// Where a consumer is woken from. Never inside a libcurl callback: chunks for a waiting
    /// consumer are handed over once libcurl has returned, so a callback consumer never runs
    /// inside one, even on the inline context.
    enum WakeSite {
        /// The driver's turn, outside libcurl.
        case driverTurn
        /// The consumer's own thread.
        case consumer
    }

    private struct Shared {
        var machine: Machine
        /// The transfer while it runs; let go when it ends, which ends the reference cycle
        /// with `Transfer.stream`.
        var transfer: Transfer?
        var reader = Reader.none
    }

    /// Whether a consumer took the body.
    private enum Reader {
        case none
        case taken
    }

    private let shared: Lock<Shared>
    private let driver: Driver

    init(limit: Int, driver: Driver) {
        shared = Lock(Shared(machine: Machine(limit: limit)))
        self.driver = driver
    }

    /// Links the transfer, before it is submitted.
    func attach(_ transfer: Transfer) {
        shared.withLock { $0.transfer = transfer }
    }

    /// How often the transfer paused for the consumer, and the most bytes buffered at once.
    var statistics: CurlBodyStream.Statistics {
        shared.withLock { CurlBodyStream.Statistics(pauses: $0.machine.pauses, mostBufferedBytes: $0.machine.mostBuffered, limit: $0.machine.limit) }
    }

    // MARK: The driver thread

    /// `CURLOPT_WRITEFUNCTION` for a streamed body. Returns `false` to pause the transfer
    /// (the chunk stays with libcurl).
    func chunkArrived(_ bytes: UnsafeRawBufferPointer, outbox: ProgressOutbox) -> Bool {
        // Copied before the lock is taken; a refused chunk (once per pause) is copied for nothing.
        let chunk = Array(bytes)
        let action = shared.withLock { $0.machine.chunkArrived(chunk) }
        switch action {
        case .buffered, .discard: return true
        case .pause: return false
        case .wakeAfterPass:
            outbox.add(InlineContext()) { [self] in passEnded() }
            return true
        }
    }

    /// libcurl returned from the call that delivered chunks to the waiting consumer.
    private func passEnded() {
        let (action, transfer) = shared.withLock { ($0.machine.passEnded(), $0.transfer) }
        guard case .wake(let waiter, let chunk, let resume) = action else { return }
        if resume, let transfer { driver.resume(transfer) }
        wake(waiter, .success(chunk), from: .driverTurn)
    }

    /// The driver settled the transfer with `result`.
    func transferEnded(_ result: Result<CurlResponse, any Error>) {
        let action = shared.withLock { shared in
            shared.transfer = nil
            switch result {
            case .success: return shared.machine.transferEnded(.complete)
            case .failure(let error): return shared.machine.transferEnded(.failed(error))
            }
        }
        switch action {
        case .none: break
        case .wake(let waiter, .complete): wake(waiter, .success(nil), from: .driverTurn)
        case .wake(let waiter, .failed(let error)): wake(waiter, .failure(error), from: .driverTurn)
        case .wakeWithChunk(let waiter, let chunk): wake(waiter, .success(chunk), from: .driverTurn)
        }
    }

    // MARK: The consumer

    /// Claims the body for one consumer; `false` when one took it already.
    func claim() -> Bool {
        shared.withLock { shared in
            guard case .none = shared.reader else { return false }
            shared.reader = .taken
            return true
        }
    }

    /// The next chunk, the end (`nil`) or the failure, or `nil` when the consumer must wait:
    /// then `waiter`, if given, is woken later.
    func next(orWait waiter: Waiter?) -> Result<[UInt8]?, any Error>? {
        let (action, transfer) = shared.withLock { ($0.machine.next(orWait: waiter), $0.transfer) }
        switch action {
        case .chunk(let chunk):
            return .success(chunk)
        case .chunkAndResume(let chunk):
            if let transfer { driver.resume(transfer) }
            return .success(chunk)
        case .wait:
            return nil
        case .end:
            return .success(nil)
        case .fail(let error):
            return .failure(error)
        }
    }

    /// The consumer gave up: the transfer stops and what is buffered is dropped.
    func cancel() {
        let (action, transfer) = shared.withLock { ($0.machine.consumerCancelled(), $0.transfer) }
        switch action {
        case .none:
            return
        case .stopTransfer:
            if let transfer { driver.cancel(transfer) }
        case .stopTransferAndWake(let waiter):
            if let transfer { driver.cancel(transfer) }
            wake(waiter, .failure(CancellationError()), from: .consumer)
        }
    }

    private func wake(_ waiter: Waiter, _ result: Result<[UInt8]?, any Error>, from site: WakeSite) {
        switch waiter {
        case .task(let continuation):
            continuation.resume(with: result)
        case .callback(let consumer):
            let context = consumer.context
            switch site {
            case .driverTurn: AdapterSupport.submit(context) { consumer.received(result) }
            case .consumer: context.execute { consumer.received(result) }
            }
        }
    }
}

/// ``CurlBodyStream/forEach(on:_:)``: hands each chunk to `body` on `context`, one at a time,
/// and settles `done` with the end of the body.
final class CallbackConsumer: Sendable {
    let context: any ExecutionContext
    /// The body, kept while the consumer runs: the caller may let go of every copy of it.
    private let owner: CurlBodyStream.Owner
    private let stream: ResponseStream
    private let body: @Sendable ([UInt8]) throws -> Void
    let done: Promise<Void>

    init(owner: CurlBodyStream.Owner, context: any ExecutionContext, body: @escaping @Sendable ([UInt8]) throws -> Void) {
        self.owner = owner
        let stream = owner.stream
        self.stream = stream
        self.context = context
        self.body = body
        done = Promise<Void>.pending(resolvedOn: nil)
        done.onCancelFromLibrary { [stream] in stream.cancel() }
    }

    /// Takes what is there, on the context: each chunk in turn, until the consumer must wait.
    func run() {
        while let result = stream.next(orWait: .callback(self)) {
            guard deliver(result) else { return }
        }
    }

    /// What the stream woke the consumer with, on the context; then the rest.
    func received(_ result: Result<[UInt8]?, any Error>) {
        if deliver(result) { run() }
    }

    /// Hands `result` on; `false` once the body ended, failed or `body` threw.
    private func deliver(_ result: Result<[UInt8]?, any Error>) -> Bool {
        switch result {
        case .success(let chunk?):
            do {
                try body(chunk)
                return true
            } catch {
                stream.cancel()
                done.resolve(.failure(error))
                return false
            }
        case .success(nil):
            done.resolve(.success(()))
            return false
        case .failure(let error):
            done.resolve(.failure(error))
            return false
        }
    }
}
