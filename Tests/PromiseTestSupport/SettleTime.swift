package import PromiseCore

/// When a promise settled, read on the thread that settled it.
///
/// A test task that awaits a promise can resume well after the promise settled: on two cores
/// the cooperative pool runs the run's queued test bodies first in, first out, so a resumption
/// can wait seconds behind them. A time limit checked after the `await` then measures the test
/// runner, not the library. Time limits use this instead: its callback runs on the inline
/// context, on whichever thread settles the promise.
///
/// Like any consumer, it counts as interested in the promise it watches: watch the promise a
/// test awaits or cancels itself, not a source whose upward cancellation the test checks.
package final class SettleTime: Sendable {
    private let settled = Lock<ContinuousClock.Instant?>(nil)

    /// Starts watching `promise`.
    package init<Value: Sendable>(of promise: Promise<Value>) {
        promise
            .always(on: .inline) { [self] in settled.withLock { $0 = ContinuousClock.now } }
            .catch(on: .inline) { _ in }
    }

    /// When the promise settled, or `nil` while it is pending.
    package var instant: ContinuousClock.Instant? { settled.withLock { $0 } }

    /// How long after `start` the promise settled, or `nil` while it is pending.
    package func since(_ start: ContinuousClock.Instant) -> Duration? {
        instant.map { $0 - start }
    }
}
