#if NIO
    internal import NIOCore
    @_spi(ContextContract) internal import PromiseCore

    /// A `ContextJob` handed to an event loop, which runs it, or refuses it once the loop has
    /// let it go without running it.
    ///
    /// SwiftNIO drops a task submitted to a loop that has shut down (it prints an error), and
    /// cancels the timers still scheduled when a loop shuts down. A dropped task's closure, or
    /// timer's handler, holds this box alone, so its release is the box's: the deinitializer
    /// refuses the job still held, as a timer cancelled by the shutdown does, and the promise
    /// waiting for it is rejected with `contextInvalidated` instead of staying pending. A job
    /// withdrawn by cancelling its timer is neither run nor refused.
    final class LoopJob: Sendable {
        private let job: Lock<ContextJob?>

        init(_ job: ContextJob) {
            self.job = Lock(job)
        }

        /// Runs the job, unless it was withdrawn.
        func run() {
            job.withLock { $0.take() }?.run()
        }

        /// Forgets the job: its timer was cancelled.
        func withdraw() {
            _ = job.withLock { $0.take() }
        }

        /// Refuses the job, unless it ran or was withdrawn.
        func refuse() {
            job.withLock { $0.take() }?.refuse()
        }

        deinit {
            refuse()
        }
    }

    /// A loop timer (`scheduleCallback`) that runs a job, or refuses it when the loop's
    /// shutdown cancels the timer. A timer rather than `scheduleTask`: a task scheduled on a
    /// loop that has shut down leaves its promise unfulfilled, which a debug build of SwiftNIO
    /// reports as a leak by stopping the program.
    struct JobTimer: NIOScheduledCallbackHandler, Sendable {
        let held: LoopJob

        func handleScheduledCallback(eventLoop: some EventLoop) {
            held.run()
        }

        /// Cancelled by the loop's shutdown; a cancellation through the job's handle has
        /// withdrawn the job first (and SwiftNIO calls this under its own lock then, where
        /// nothing may run).
        func didCancelScheduledCallback(eventLoop: some EventLoop) {
            held.refuse()
        }
    }

    /// A loop timer that runs a closure, and drops it when cancelled.
    struct WorkTimer: NIOScheduledCallbackHandler, Sendable {
        let work: @Sendable () -> Void

        func handleScheduledCallback(eventLoop: some EventLoop) {
            work()
        }

        func didCancelScheduledCallback(eventLoop: some EventLoop) {}
    }
#endif
