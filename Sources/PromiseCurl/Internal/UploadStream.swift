internal import CCurl
@_spi(ContextContract) import PromiseCore
internal import PromiseSystem

/// A request body produced while it is sent: the producer task writes through
/// ``CurlBodyWriter``, libcurl's read callback reads on the driver thread. The decisions are
/// ``UploadStreamStateMachine``'s; this class holds it under a lock, wakes the producer, asks
/// the driver to resume a transfer the read callback paused, and cancels the producer task
/// when the transfer ends first.
final class UploadStream: Sendable {
    typealias Machine = UploadStreamStateMachine<UnsafeContinuation<Void, Never>>

    private struct Shared {
        var machine: Machine
        /// The transfer while it runs (for resuming it); let go when it ends.
        var transfer: Transfer?
        var producer: Task<Void, Never>?
    }

    private let shared: Lock<Shared>
    private let driver: Driver

    /// The most bytes buffered before the producer waits.
    static let bufferLimit = 256 << 10

    init(length: Int?, driver: Driver) {
        shared = Lock(Shared(machine: Machine(limit: Self.bufferLimit, length: length)))
        self.driver = driver
    }

    /// Links the transfer, before it is submitted, so that a write can ask the driver to
    /// resume it.
    func link(_ transfer: Transfer) {
        shared.withLock { $0.transfer = transfer }
    }

    /// Starts the producer, once the driver took the transfer: a request refused before it
    /// starts never runs it. A transfer that ended meanwhile cancels it at once, and its first
    /// write throws.
    func startProducer(_ produce: @escaping @Sendable (CurlBodyWriter) async throws -> Void) {
        let writer = CurlBodyWriter(upload: self)
        // Off the cooperative pool: a program that keeps the pool busy must not stall the
        // upload until libcurl's stall limit ends it.
        let task = Task(executorPreference: GlobalQueueExecutor.shared) { [self] in
            do {
                try await produce(writer)
                finished(failure: nil)
            } catch {
                finished(failure: error)
            }
        }
        let ended = shared.withLock { shared in
            shared.producer = task
            return shared.transfer == nil
        }
        if ended { task.cancel() }
    }

    // MARK: The producer

    func write(_ bytes: [UInt8]) async throws(CurlError) {
        let (action, transfer) = shared.withLock { ($0.machine.write(bytes), $0.transfer) }
        switch action {
        case .proceed(let resume):
            if resume, let transfer { driver.resume(transfer) }
        case .fail(let failure, let resume):
            if resume, let transfer { driver.resume(transfer) }
            throw failure
        case .waitForRoom(let resume):
            if resume, let transfer { driver.resume(transfer) }
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                if shared.withLock({ $0.machine.waitForRoom(continuation) }) == .proceed { continuation.resume() }
            }
        }
    }

    private func finished(failure: (any Error)?) {
        let (resume, transfer) = shared.withLock { shared in
            let resume = failure.map { shared.machine.producerFailed($0) } ?? shared.machine.producerFinished()
            return (resume, shared.transfer)
        }
        if resume, let transfer { driver.resume(transfer) }
    }

    // MARK: The driver thread

    /// `CURLOPT_READFUNCTION`: fills `buffer`; returns the count, 0 at the end, or the pause
    /// or abort code.
    func read(into buffer: UnsafeMutableRawBufferPointer, failed: (CurlError) -> Void) -> Int {
        let capacity = buffer.count
        let action = shared.withLock { $0.machine.read(capacity: capacity) }
        switch action {
        case .bytes(let bytes, let wake):
            bytes.withUnsafeBytes { buffer.copyMemory(from: $0) }
            wake?.resume()
            return bytes.count
        case .pause:
            return ccurl_readfunc_pause()
        case .end:
            return 0
        case .abort(let failure):
            failed(failure)
            return ccurl_readfunc_abort()
        }
    }

    /// The transfer ended: a waiting producer wakes (its next write fails) and the producer
    /// task is cancelled.
    func transferEnded() {
        let (waiter, producer) = shared.withLock { shared in
            shared.transfer = nil
            return (shared.machine.transferEnded(), shared.producer)
        }
        waiter?.resume()
        producer?.cancel()
    }
}

extension UploadStreamStateMachine.WaitAction: Equatable {}
