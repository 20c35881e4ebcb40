import PromiseCore
import Dispatch
internal import Synchronization
internal import PromiseSystem

/// Starts counting promise work in flight, for ``waitForPromises(timeout:)``.
///
/// Counting is off, and costs nothing, until this or ``waitForPromises(timeout:)`` is first
/// called. Call it before creating the promises a test waits for (in a suite's `init` or an
/// XCTest `setUp`) so that the first wait also sees timers and work on queues other than the
/// default one. Once on, it stays on for the life of the process; it costs one atomic
/// increment and decrement per callback hop, timer and pending promise.
public func startTrackingPromises() {
    Tracking.enable()
}

/// Waits until every pending promise is resolved and no promise work is in flight: every
/// callback that was scheduled, and every callback those schedule in turn, has run
/// (google/promises' `waitForPromises`).
///
/// Pending promises are those made with `Promise.pending()`,
/// `Promise { fulfill, reject in … }` and `Promise { try await … }`, and the adapters' own (a request, a query, a timer),
/// from the moment counting is on; each counts until it settles or is deallocated, and a
/// settled one until its callbacks are handed to their contexts, where they count until they
/// have run. Pending timers (`delay`, `timeout`, `retry`) count as work in flight. Each call
/// also waits for `Promises.defaultQueue` to drain, which covers callbacks scheduled on the
/// default context before counting began; for anything else scheduled before then, call
/// ``startTrackingPromises()`` first. It returns as soon as the count reaches zero.
///
/// The count covers the whole process: when a test runner runs tests in parallel (Swift
/// Testing does by default), it includes the other tests' promise work too. Give a waiting
/// test a process of its own (an exit test) or run the tests one at a time.
///
/// Don't call it from a promise context: it blocks the calling thread.
///
/// - Parameter timeout: The longest to wait.
/// - Returns: `true` if everything finished, `false` if `timeout` passed first.
public func waitForPromises(timeout: Duration) -> Bool {
    startTrackingPromises()
    // Callbacks held for the end of this thread's batched turn would otherwise count as work
    // in flight until the wait gives up.
    AdapterSupport.handOverHeldHops()
    let deadline = ContinuousClock.now.advanced(saturatingBy: timeout)
    let drained = DispatchSemaphore(value: 0)
    Promises.defaultQueue.async { drained.signal() }
    guard drained.wait(timeout: .now() + timeout.dispatchInterval) == .success else { return false }
    return Tracking.waitUntilIdle(before: deadline)
}

extension Tracking {
    /// Blocks until no counted work is in flight, or until `deadline`. Returns whether the
    /// count reached zero.
    ///
    /// A waiter that misses a signal (the count dropped to zero between its look and its
    /// wait) looks again within a millisecond; a signal left over from an earlier wait only
    /// makes it look again sooner.
    static func waitUntilIdle(before deadline: ContinuousClock.Instant) -> Bool {
        Tracking.idleWaiters.add(1, ordering: .acquiringAndReleasing)
        defer { Tracking.idleWaiters.subtract(1, ordering: .relaxed) }
        while Tracking.pendingCount > 0 {
            let left = ContinuousClock.now.duration(to: deadline)
            if left <= .zero { return false }
            _ = Tracking.idle.wait(timeout: .now() + min(left, .milliseconds(1)).dispatchInterval)
        }
        return true
    }
}
