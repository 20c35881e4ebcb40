import Dispatch
internal import PromiseSystem

/// A ``FileIOPool``'s job queue and the threads that run it.
///
/// The threads hold this object, never the ``FileIOPool``: the pool is deallocated as soon as
/// its users let go, and its `deinit` shuts this down, which ends the threads once the queue
/// is empty.
final class PoolThreads: Sendable {
    private struct State {
        var jobs = FIFO<@Sendable () -> Void>()
        var lifecycle = Lifecycle<Promise<Void>, FSError>(
            refusal: FSError(.poolUnavailable, operation: "submit", path: "", activity: "the FileIOPool was shut down"))
        /// Threads that started.
        var started = 0
        /// Threads that have not ended.
        var running = 0
    }

    /// How many jobs may wait at once.
    let queueLimit: Int
    private let state: Lock<State>
    private let available = DispatchSemaphore(value: 0)

    /// Starts up to `threads` threads named `threadName`; when none starts, the queue is
    /// closed from the outset and refuses every job with the reason (``startFailure``).
    init(starting threads: Int, queueLimit: Int, threadName: String) {
        self.queueLimit = queueLimit
        state = Lock(State())
        var started = 0
        var lastError: Int32 = 0
        for _ in 0..<threads {
            // Named like the other products' threads, so `top -H` and debuggers tell them apart.
            let status = NamedThread.start(name: threadName) { [self] in work() }
            guard status == 0 else {
                // The system refuses threads now (EAGAIN): asking again refuses again.
                lastError = status
                break
            }
            started += 1
        }
        state.withLock { state in
            state.started = started
            state.running = started
            if started == 0 {
                state.lifecycle.failedToStart(
                    FSError(
                        FSError.Code(errno: lastError), operation: "pthread_create", path: "",
                        activity: "starting the FileIOPool's threads (none of \(threads) started)"))
            }
        }
    }

    /// How many threads started.
    var threadCount: Int { state.withLock { $0.started } }

    /// Why every job is refused from the outset, if it is.
    var startFailure: FSError? {
        state.withLock { $0.running == 0 && $0.lifecycle.isClosed ? $0.lifecycle.refusal : nil }
    }

    /// Why jobs are refused, once a shutdown began; `nil` while jobs are accepted.
    var refusal: FSError? {
        state.withLock { $0.lifecycle.isAccepting ? nil : $0.lifecycle.refusal }
    }

    /// Stops accepting jobs, lets the queued ones finish, and ends the threads.
    ///
    /// - Returns: A promise fulfilled once every thread has ended.
    func shutdown() -> Promise<Void> {
        let waiter = Promise<Void>.pending(resolvedOn: nil)
        let (step, wake) = state.withLock { state in (state.lifecycle.shutdown(waiter), state.running) }
        switch step {
        case .begin:
            // Each thread wakes once more than there are jobs, finds none, and ends; the last
            // one to end closes the queue.
            for _ in 0..<wake { available.signal() }
        case .wait:
            break
        case .settled(let result):
            waiter.resolve(result.mapError { $0 as any Error })
        }
        return waiter
    }

    /// Queues `job`; `false` when the pool is shut down or its queue is full.
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        let accepted = state.withLock { state in
            guard state.lifecycle.isAccepting, state.jobs.count < queueLimit else { return false }
            state.jobs.append(job)
            return true
        }
        if accepted { available.signal() }
        return accepted
    }

    /// What each thread runs: jobs until the queue is empty and the pool is shut down.
    private func work() {
        while true {
            available.wait()
            let job: (@Sendable () -> Void)? = state.withLock { state in
                state.jobs.popFirst()
            }
            if let job {
                job()
                continue
            }
            // Woken with nothing to do: only shutdown does that.
            let waiters = state.withLock { state in
                state.running -= 1
                return state.running == 0 ? state.lifecycle.finish(.success(())) : []
            }
            for waiter in waiters { waiter.fulfill(()) }
            return
        }
    }
}
