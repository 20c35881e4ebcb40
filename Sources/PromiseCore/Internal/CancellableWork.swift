public import Dispatch

/// Work scheduled on a dispatch queue's timer that a ``ScheduledWork`` can cancel from any
/// thread, releasing the work (and what it captures: a promise, its value) at once.
///
/// `asyncAfter` keeps the block it was given until the deadline, also after a
/// `DispatchWorkItem` is cancelled; here that block holds only this small box, and
/// cancelling empties it.
@usableFromInline
final class CancellableWork: Sendable {
    private let work: Lock<(@Sendable () -> Void)?>

    private init(_ work: @escaping @Sendable () -> Void) {
        self.work = Lock(work)
    }

    /// Schedules `work` on `queue` after `delay` and returns a handle that cancels it.
    @usableFromInline
    static func schedule(on queue: DispatchQueue, after delay: Duration, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        let box = CancellableWork(work)
        queue.asyncAfter(deadline: .now() + delay.dispatchInterval) { box.take()?() }
        return ScheduledWork { _ = box.take() }
    }

    /// The work, once: later calls (and calls after a cancel) get `nil`.
    private func take() -> (@Sendable () -> Void)? {
        work.withLock { work in
            let taken = work
            work = nil
            return taken
        }
    }
}
