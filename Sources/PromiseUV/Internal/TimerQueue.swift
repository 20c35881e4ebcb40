internal import Synchronization
internal import PromiseSystem

/// One timer waiting in a ``TimerQueue``. Subclasses say what firing does.
///
/// `@unchecked Sendable`: handles to it (a `ScheduledWork`, an `onCancel` handler) cross
/// threads, but those only touch ``cancelled`` (an atomic); every other field is read and
/// written on the loop thread alone. It is not split into a loop-owned entry behind a
/// ``LoopOwned`` and a `Sendable` cancellation, as ``FileWatch`` is: every `after`,
/// `executeAfter` and PromiseCore `delay`, `timeout` and `retry` on a loop makes one, and the
/// split would add an object to each.
class TimerEntry: @unchecked Sendable {
    /// When it is due, in loop milliseconds (`uv_now`).
    final var expiry: UInt64 = 0
    /// Scheduling order: timers due at the same millisecond fire in this order.
    final var sequence: UInt64 = 0
    final var next: TimerEntry?
    // The list holds its entries strongly through `next`; these back links do not own.
    final unowned(unsafe) var previous: TimerEntry?
    final unowned(unsafe) var list: TimerList?
    /// Set (from any thread) when the timer is cancelled; a cancelled timer never fires.
    final let cancelled = Atomic<Bool>(false)
    /// Whether this timer keeps `UVLoop.run()` going while it is pending. Set before the
    /// timer is first inserted, never changed afterwards.
    final var keepsLoopAlive = true

    /// Runs the timer's work on the loop thread.
    func fire() {}
    /// The loop is shutting down and the timer will never fire: fail whatever waits for it.
    func abandon() {}

    final var isCancelled: Bool { cancelled.load(ordering: .acquiring) }
}

/// The timers of one duration, in the order they were started, so in expiry order: Node's
/// timer list. Only the head's expiry matters to the heap.
final class TimerList {
    let duration: UInt64
    var head: TimerEntry?
    unowned(unsafe) var tail: TimerEntry?
    /// Position in ``TimerQueue``'s heap; -1 once removed.
    var heapIndex = -1

    init(duration: UInt64) {
        self.duration = duration
    }

    func append(_ entry: TimerEntry) {
        entry.list = self
        entry.next = nil
        entry.previous = tail
        if let tail { tail.next = entry } else { head = entry }
        tail = entry
    }

    func remove(_ entry: TimerEntry) {
        let next = entry.next
        if let previous = entry.previous { previous.next = next } else { head = next }
        if let next { next.previous = entry.previous } else { tail = entry.previous }
        entry.next = nil
        entry.previous = nil
        entry.list = nil
    }

    /// Whether `self` fires before `other`: earlier head expiry, then earlier scheduling.
    func firesBefore(_ other: TimerList) -> Bool {
        let mine = head!, theirs = other.head!
        if mine.expiry != theirs.expiry { return mine.expiry < theirs.expiry }
        return mine.sequence < theirs.sequence
    }
}

/// Every pending timer of a loop, behind one `uv_timer_t`: a list per duration and a binary
/// min-heap of those lists ordered by their first expiry (Node's design). Starting or
/// cancelling a timer costs O(1) plus O(log d) for d distinct durations, and a million
/// pending timers cost a million small objects, not a million libuv handles.
///
/// Loop thread only.
final class TimerQueue {
    private var lists: [UInt64: TimerList] = [:]
    private var heap: [TimerList] = []
    private var lastList: TimerList?
    private var nextSequence: UInt64 = 0
    /// Timers pending (not fired, not removed).
    private(set) var count = 0
    /// How many of the pending timers do not keep the loop alive.
    private(set) var unreferencedCount = 0

    /// Whether every pending timer is one that does not keep the loop alive.
    var onlyUnreferenced: Bool { count == unreferencedCount }

    /// When the first timer is due, in loop milliseconds.
    var nextExpiry: UInt64? { heap.first?.head?.expiry }

    /// Adds `entry`, due `duration` milliseconds after `now`.
    func insert(_ entry: TimerEntry, duration: UInt64, now: UInt64) {
        entry.expiry = now &+ duration
        if entry.expiry < now { entry.expiry = .max }
        entry.sequence = nextSequence
        nextSequence &+= 1
        count += 1
        if !entry.keepsLoopAlive { unreferencedCount += 1 }
        if let list = lastList, list.duration == duration, list.heapIndex >= 0 {
            list.append(entry)
            return
        }
        if let list = lists[duration] {
            lastList = list
            list.append(entry)
            return
        }
        let list = TimerList(duration: duration)
        list.append(entry)
        lists[duration] = list
        lastList = list
        list.heapIndex = heap.count
        heap.append(list)
        siftUp(list.heapIndex)
    }

    /// Removes `entry` if it is still queued; returns whether it was.
    @discardableResult
    func remove(_ entry: TimerEntry) -> Bool {
        guard let list = entry.list else { return false }
        let wasHead = list.head === entry
        list.remove(entry)
        count -= 1
        if !entry.keepsLoopAlive { unreferencedCount -= 1 }
        if list.head == nil {
            removeList(list)
        } else if wasHead {
            siftDown(list.heapIndex)
        }
        return true
    }

    /// The sequence number the next started timer gets: timers started from now on have a
    /// sequence at or above it.
    var sequenceLimit: UInt64 { nextSequence }

    /// Removes and returns the first timer due at or before `now` and started before the
    /// sequence `limit`, leaving the queue consistent before the caller runs it (it may start
    /// or cancel other timers).
    func popExpired(now: UInt64, startedBefore limit: UInt64 = .max) -> TimerEntry? {
        guard let list = heap.first, let entry = list.head, entry.expiry <= now, entry.sequence < limit else { return nil }
        list.remove(entry)
        count -= 1
        if !entry.keepsLoopAlive { unreferencedCount -= 1 }
        if list.head == nil {
            removeList(list)
        } else {
            siftDown(list.heapIndex)
        }
        return entry
    }

    /// Removes every timer and returns them in firing order within each duration.
    func removeAll() -> [TimerEntry] {
        var all: [TimerEntry] = []
        all.reserveCapacity(count)
        for list in heap {
            var entry = list.head
            while let current = entry {
                entry = current.next
                current.next = nil
                current.previous = nil
                current.list = nil
                all.append(current)
            }
            list.head = nil
            list.tail = nil
            list.heapIndex = -1
        }
        heap.removeAll()
        lists.removeAll()
        lastList = nil
        count = 0
        unreferencedCount = 0
        return all
    }

    // MARK: Heap of lists

    private func removeList(_ list: TimerList) {
        let index = list.heapIndex
        lists[list.duration] = nil
        if lastList === list { lastList = nil }
        list.heapIndex = -1
        let last = heap.removeLast()
        guard index < heap.count else { return }
        heap[index] = last
        last.heapIndex = index
        if index > 0, last.firesBefore(heap[(index - 1) / 2]) {
            siftUp(index)
        } else {
            siftDown(index)
        }
    }

    private func siftUp(_ start: Int) {
        var index = start
        let item = heap[index]
        while index > 0 {
            let parent = (index - 1) / 2
            guard item.firesBefore(heap[parent]) else { break }
            heap[index] = heap[parent]
            heap[index].heapIndex = index
            index = parent
        }
        heap[index] = item
        item.heapIndex = index
    }

    private func siftDown(_ start: Int) {
        var index = start
        let item = heap[index]
        let count = heap.count
        while true {
            let left = 2 * index + 1
            guard left < count else { break }
            var child = left
            if left + 1 < count, heap[left + 1].firesBefore(heap[left]) { child = left + 1 }
            guard heap[child].firesBefore(item) else { break }
            heap[index] = heap[child]
            heap[index].heapIndex = index
            index = child
        }
        heap[index] = item
        item.heapIndex = index
    }
}

extension Duration {
    /// This duration in whole milliseconds, rounded up (libuv's timer resolution), never
    /// negative, capped far beyond any real wait.
    var uvMilliseconds: UInt64 {
        UInt64(millisecondsRoundedUp(cappedAt: 1 << 50))
    }
}
