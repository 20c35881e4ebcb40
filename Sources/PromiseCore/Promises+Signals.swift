extension Promises {
    /// A promise fulfilled with the number of the first of `signals` that the process
    /// receives: by default Ctrl-C (`SIGINT`) or a polite request to stop (`SIGTERM`).
    ///
    /// ```swift
    /// let stop = Promises.nextSignal()              // from here on, Ctrl-C and SIGTERM only fulfil it
    /// let backup = startBackup()                    // runs until it is done or cancelled
    /// stop.then { signal in
    ///     print("signal \(signal): stopping the backup")
    ///     backup.cancel()
    /// }
    /// _ = try? awaitPromise(backup)                 // returns once the backup is done or stopped
    /// stop.cancel()                                 // ended without a signal: Ctrl-C kills again
    /// ```
    ///
    /// While the promise is pending, the library's handler replaces the signals' actions, so
    /// Ctrl-C no longer kills the program: the program decides. The watch is one-shot: when
    /// one of the signals arrives, every signal's previous action is back before the promise's
    /// callbacks run, so a second Ctrl-C stops a program that is slow to wind down. When the
    /// promise settles any other way (you cancel it, or nothing waits for it any more), the
    /// watch ends and the previous actions are back too. Watches from several calls can share a
    /// signal: its previous action comes back when the last of them ends, and the signal
    /// fulfils every watch of it that is pending when it arrives.
    ///
    /// A signal that every thread blocks (a mask inherited from the parent process) is read
    /// from the kernel's queue of pending signals instead, so it fulfils the promise too. No
    /// thread's signal mask is changed.
    ///
    /// While the watch lasts, the library's handler also replaces any other handler of the
    /// same signals (a `DispatchSource` signal source, a `UVLoop.nextSignal` watch), which
    /// sees nothing until it ends. A pending watch does not keep the program running. Call
    /// `nextSignal` again after it fires to keep watching.
    ///
    /// `nextSignal()` waits for `SIGINT` and `SIGTERM`; pass a list for other signals.
    ///
    /// - Parameter signals: The signals to wait for, such as `[SIGINT, SIGTERM, SIGHUP]`.
    ///   `SIGKILL` and `SIGSTOP` cannot be caught, and the fault signals (`SIGSEGV`, `SIGBUS`,
    ///   `SIGFPE`, `SIGILL`, `SIGTRAP`, `SIGSYS`) cannot be watched.
    /// - Returns: A promise fulfilled with the number of the signal that arrived, from a
    ///   private queue (the callbacks chained on it run on their own contexts, as usual).
    ///   It is rejected at once with ``PromiseError/Code-swift.struct/invalidArgument`` when
    ///   `signals` is empty or holds a signal that cannot be watched, or when the process had
    ///   no file descriptor to spare at the first call (which is not retried); the message
    ///   says which.
    public static func nextSignal(_ signals: [Int32]) -> Promise<Int32> {
        SignalWatches.watch(signals)
    }

    /// A promise fulfilled with `SIGINT` (Ctrl-C) or `SIGTERM`, whichever the process receives
    /// first: ``nextSignal(_:)`` with its usual pair.
    ///
    /// - Returns: A promise fulfilled with the number of the signal that arrived.
    public static func nextSignal() -> Promise<Int32> {
        SignalWatches.watch(SignalWatches.stopSignals)
    }
}
