import PromiseCore

/// The ticks of a repeating loop timer as an asynchronous sequence of tick numbers; made by
/// ``UVLoop/every(_:keepsLoopAlive:)``.
///
/// Each iterator starts its own timer when it is made and stops it when it is dropped, when
/// the iterating task is cancelled, or when the loop shuts down; the sequence then ends (it
/// never throws). Only the newest tick waits for a slow consumer.
public struct UVTicks: AsyncSequence, Sendable {
    /// A tick number: how many intervals have passed since the timer started.
    public typealias Element = Int

    let loop: UVLoop
    let interval: Duration
    let keepsLoopAlive: Bool

    /// Starts a timer and returns the iterator that reads its ticks.
    public func makeAsyncIterator() -> Iterator {
        Iterator(TickMailbox(loop: loop, interval: interval, keepsLoopAlive: keepsLoopAlive))
    }

    /// Reads one timer's ticks.
    public struct Iterator: AsyncIteratorProtocol {
        private let mailbox: TickMailbox

        init(_ mailbox: TickMailbox) {
            self.mailbox = mailbox
        }

        /// The next tick number, waiting for it if none is ready; `nil` once the sequence has
        /// ended (the task was cancelled or the loop shut down).
        public mutating func next() async -> Int? {
            await mailbox.next()
        }
    }
}

/// Where one iterator's timer leaves ticks: the newest one, or the continuation of a waiting
/// `next()`. Stops the timer when the iterator is dropped.
final class TickMailbox: Sendable {
    private struct State {
        var ready: Int?
        var waiter: CheckedContinuation<Int?, Never>?
        var ended = false
    }

    private let state = Lock(State())
    private let timer = Lock<ScheduledWork?>(nil)

    init(loop: UVLoop, interval: Duration, keepsLoopAlive: Bool) {
        // Weak: the timer must not keep the mailbox (and so itself) alive once the iterator
        // is gone; the mailbox's deinit stops it.
        let handle = loop.startRepeating(
            interval,
            keepsLoopAlive: keepsLoopAlive,
            onTick: { [weak self] tick in self?.deliver(tick) },
            onEnd: { [weak self] in self?.end() }
        )
        timer.withLock { $0 = handle }
    }

    deinit {
        timer.withLock { $0 }?.cancel()
    }

    func next() async -> Int? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Int?, Never>) in
                let immediate: Int?? = state.withLock { state in
                    if let tick = state.ready {
                        state.ready = nil
                        return .some(tick)
                    }
                    if state.ended { return .some(nil) }
                    state.waiter = continuation
                    return .none
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            end()
            timer.withLock { $0 }?.cancel()
        }
    }

    private func deliver(_ tick: Int) {
        let waiter: CheckedContinuation<Int?, Never>? = state.withLock { state in
            guard !state.ended else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.ready = tick
            return nil
        }
        waiter?.resume(returning: tick)
    }

    private func end() {
        let waiter: CheckedContinuation<Int?, Never>? = state.withLock { state in
            state.ended = true
            state.ready = nil
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }
}
