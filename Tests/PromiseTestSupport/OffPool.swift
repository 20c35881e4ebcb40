import Dispatch
internal import PromiseSystem

/// Runs `body`, which blocks (waits for a child process, a semaphore, `awaitPromise`) or
/// computes for long, on a Dispatch thread instead of the test task's thread, and returns
/// what it returns.
///
/// Swift Testing runs test bodies on the cooperative pool, which has one thread per core: two
/// on a two-core machine. A body that holds one of them for seconds holds up every other test
/// of the run, and on a busy machine their own time-sensitive steps (a cancel after a short
/// sleep) come tens of seconds late. Keep `#expect` out of `body`: check what it returns.
///
/// - Parameter body: The blocking work.
/// - Returns: What `body` returns; rethrows what it throws.
package func offCooperativePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result { try body() })
        }
    }
}

/// A task that runs `body` off the cooperative pool (on Dispatch's global queue, resuming there
/// after each `await`): for a test's background reader or writer that must make progress while
/// the full parallel run keeps the pool's threads busy for tens of seconds.
///
/// - Parameter body: The task's work.
/// - Returns: The task.
@discardableResult
package func offPoolTask<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> Task<T, any Error> {
    Task(executorPreference: GlobalQueueExecutor.shared) { try await body() }
}
