import Dispatch

/// A task executor that runs each job on Dispatch's global concurrent queue.
///
/// For work a library runs in a task on a caller's behalf (PromiseCurl's request body
/// producers): it goes on while the program keeps every thread of Swift's cooperative pool
/// busy, which has one thread per core, where Dispatch adds threads when its own block. A
/// task that prefers it (`Task(executorPreference:)`) resumes here after each `await`.
package final class GlobalQueueExecutor: TaskExecutor {
    /// The one instance; it holds nothing.
    package static let shared = GlobalQueueExecutor()

    private init() {}

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        DispatchQueue.global().async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
