import Dispatch

/// Holds a `DispatchWorkItem` so a `ScheduledWork` can cancel it from any thread.
///
/// `@unchecked Sendable`: the box is immutable, and `DispatchWorkItem.cancel()` is documented
/// as thread-safe (it sets an atomic flag that the queue checks before running the item); the
/// corelibs overlay just doesn't mark the class `Sendable`.
struct WorkItemBox: @unchecked Sendable {
    let item: DispatchWorkItem

    /// Schedules `work` on `queue` after `delay` and returns a handle that cancels it.
    static func schedule(on queue: DispatchQueue, after delay: Duration, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        let box = WorkItemBox(item: DispatchWorkItem(block: work))
        queue.asyncAfter(deadline: .now() + delay.dispatchInterval, execute: box.item)
        return ScheduledWork { box.item.cancel() }
    }
}
