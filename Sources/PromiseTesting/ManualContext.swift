public import PromiseCore
internal import PromiseSystem

/// An execution context that runs nothing until you tell it to, with a clock you advance
/// by hand: deterministic tests of ordering, `delay`, `timeout` and `retry`.
///
/// ```swift
/// let context = ManualContext()
/// let promise = Promise(1).delay(on: context, .seconds(5))
/// context.runUntilIdle()              // nothing: the timer has not fired
/// context.advance(by: .seconds(5))    // fires the timer and runs what it unblocks
/// #expect(promise.value == 1)
/// ```
///
/// Work runs on the thread that calls ``runNext()``, ``runUntilIdle()`` or ``advance(by:)``.
public final class ManualContext: ExecutionContext {
    private struct Timer {
        let deadline: Duration
        let sequence: Int
        let work: @Sendable () -> Void
    }
    private struct State {
        var queue = FIFO<@Sendable () -> Void>()
        var timers: [Int: Timer] = [:]
        var now: Duration = .zero
        var sequence = 0
    }
    private let state = Lock(State())

    /// Creates a context with an empty queue and its clock at zero.
    public init() {}

    /// The context's clock: the total of every ``advance(by:)``.
    public var now: Duration { state.withLock { $0.now } }

    /// How many work items wait to run (timers not included).
    public var pendingCount: Int { state.withLock { $0.queue.count } }

    /// How many timers wait for their deadline.
    public var pendingTimerCount: Int { state.withLock { $0.timers.count } }

    /// Queues `work`; it runs when you call ``runNext()`` or ``runUntilIdle()``.
    ///
    /// - Parameter work: The work.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        state.withLock { $0.queue.append(work) }
    }

    /// Queues `work` once the clock reaches `now + delay`.
    ///
    /// - Parameters:
    ///   - delay: How far the clock must advance.
    ///   - work: The work.
    /// - Returns: A handle that removes the timer.
    public func executeAfter(_ delay: Duration, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        let id = state.withLock { state in
            state.sequence += 1
            state.timers[state.sequence] = Timer(deadline: state.now + max(delay, .zero).clampedForDeadline, sequence: state.sequence, work: work)
            return state.sequence
        }
        return ScheduledWork { [weak self] in
            self?.state.withLock { _ = $0.timers.removeValue(forKey: id) }
        }
    }

    /// This context's identity, so same-context callbacks share a turn as on a serial queue.
    public var executionContextID: ObjectIdentifier? { ObjectIdentifier(self) }

    /// Runs the oldest queued work item.
    ///
    /// - Returns: `false` if nothing was queued.
    @discardableResult
    public func runNext() -> Bool {
        let work: (@Sendable () -> Void)? = state.withLock { state in
            state.queue.popFirst()
        }
        guard let work else { return false }
        work()
        return true
    }

    /// Runs queued work, including work queued meanwhile, until the queue is empty.
    ///
    /// - Returns: How many work items ran.
    @discardableResult
    public func runUntilIdle() -> Int {
        var count = 0
        while runNext() { count += 1 }
        return count
    }

    /// Moves the clock forward by `interval`, firing due timers in deadline order and running
    /// the queue after each.
    ///
    /// - Parameter interval: How far to move the clock.
    public func advance(by interval: Duration) {
        let target = state.withLock { $0.now + interval.clampedForDeadline }
        runUntilIdle()
        while true {
            let due: Timer? = state.withLock { state in
                let next = state.timers.values.min { ($0.deadline, $0.sequence) < ($1.deadline, $1.sequence) }
                guard let next, next.deadline <= target else { return nil }
                state.timers[next.sequence] = nil
                state.now = max(state.now, next.deadline)
                return next
            }
            guard let due else { break }
            state.withLock { $0.queue.append(due.work) }
            runUntilIdle()
        }
        state.withLock { $0.now = target }
    }
}
