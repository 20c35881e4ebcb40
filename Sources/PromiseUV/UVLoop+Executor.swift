extension UVLoop: SerialExecutor, TaskExecutor {
    /// Runs a Swift concurrency job on the loop thread, in the order jobs arrive.
    ///
    /// This is what makes `Task(executorPreference: loop) { … }` and actors whose
    /// `unownedExecutor` is `loop.asUnownedSerialExecutor()` run on the loop thread. Jobs are
    /// still taken while ``shutdown()`` waits for pool work. A job resumed on the loop thread
    /// by the shutdown itself (a task awaiting the loop's own shutdown) runs there as the
    /// loop's last turn. A job that arrives after the loop has closed still runs, so its task
    /// is never left hanging: once the loop thread is done, on a serial queue of the loop's
    /// own, one job at a time and counting as the loop thread while it runs
    /// (``UVLoop/isOnLoopThread`` is true, isolation checks pass), but any loop work it starts
    /// is refused as after ``shutdown()``.
    ///
    /// - Parameter job: The job.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let run: @Sendable () -> Void = { [self] in
            job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
        }
        if !core.submit(.late, run), !core.adoptAfterClose(run) {
            reportDroppedJob()
        }
    }

    /// This loop as a serial executor, for an actor's `unownedExecutor`.
    ///
    /// ```swift
    /// actor Session {
    ///     let loop: UVLoop
    ///     nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }
    /// }
    /// ```
    ///
    /// - Returns: An unowned reference to this loop as a serial executor.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// This loop as a task executor, for `Task(executorPreference:)`.
    ///
    /// - Returns: An unowned reference to this loop as a task executor.
    public func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }

    /// Stops the program with a message unless the calling thread is running this loop
    /// (`assumeIsolated` and isolation checks call it).
    public func checkIsolated() {
        precondition(isOnLoopThread, "UVLoop: code isolated to the loop ran on another thread")
    }

    /// Whether the calling thread is the one running this loop (what Swift asks before
    /// trusting an actor's isolation).
    ///
    /// - Returns: ``isOnLoopThread``.
    public func isIsolatingCurrentContext() -> Bool? {
        isOnLoopThread
    }

    private func reportDroppedJob() {
        Promises.reportDroppedWork(
            UVError(
                .loopClosed,
                operation: "enqueue",
                detail:
                    "a Swift concurrency job arrived after the loop shut down; its task will not resume. Finish the tasks and actors that use a loop before calling shutdown()"
            ))
    }
}
