// PromiseSignals re-exports PromiseCore, like every product of this package, so
// `import PromiseSignals` alone gives promises and `Promises.nextSignal`.
@_exported public import PromiseCore

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
    /// callbacks run, so a second Ctrl-C stops a program that is slow to wind down.
    ///
    /// Every signal watch of the process, this one and PromiseUV's `UVLoop.nextSignal(_:)`
    /// alike, goes through one owner of the signals' actions (<doc:Signals> gives its rules):
    /// - the action from before the first watch of a signal comes back when the last one ends;
    /// - one delivery fulfils every live watch of the signal;
    /// - the watch is live while the promise is pending and something holds it or is chained
    ///   to it. `_ = Promises.nextSignal()` is dead at once; the owner ends a dead watch when
    ///   it next looks (a watch starting or ending, or a signal arriving), and a signal that
    ///   finds only dead watches is raised again under the restored action;
    /// - cancelling the promise ends the watch before `cancel()` returns.
    ///
    /// A signal that every thread blocks (a mask inherited from the parent process) is read
    /// from the kernel's queue of pending signals instead, so it fulfils the promise too. No
    /// thread's signal mask is changed. A pending watch does not keep the program running.
    /// Call `nextSignal` again after it fires to keep watching.
    ///
    /// `nextSignal()` waits for `SIGINT` and `SIGTERM`; pass a list for other signals.
    ///
    /// - Parameter signals: The signals to wait for, such as `[SIGINT, SIGTERM, SIGHUP]`.
    ///   `SIGKILL` and `SIGSTOP` cannot be caught, and the fault signals (`SIGSEGV`, `SIGBUS`,
    ///   `SIGFPE`, `SIGILL`, `SIGTRAP`, `SIGSYS`) cannot be watched, nor can `SIGCHLD`, which
    ///   belongs to PromiseUV's child processes (<doc:Signals> says why).
    /// - Returns: A promise fulfilled with the number of the signal that arrived, from a
    ///   private queue (the callbacks chained on it run on their own contexts, as usual).
    ///   It is rejected at once with `PromiseError.Code.invalidArgument` when `signals` is
    ///   empty or holds a signal that cannot be watched, or when the process had no file
    ///   descriptor to spare at the first call (which is not retried); the message says which.
    public static func nextSignal(_ signals: [Int32]) -> Promise<Int32> {
        watchSignals(signals)
    }

    /// A promise fulfilled with `SIGINT` (Ctrl-C) or `SIGTERM`, whichever the process receives
    /// first: ``nextSignal(_:)`` with its usual pair.
    ///
    /// - Returns: A promise fulfilled with the number of the signal that arrived.
    public static func nextSignal() -> Promise<Int32> {
        watchSignals(SignalOwner.stopSignals)
    }
}
