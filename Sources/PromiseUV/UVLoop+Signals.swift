extension UVLoop {
    /// A promise fulfilled on the loop thread the next time the process receives `signal`.
    ///
    /// ```swift
    /// let mirror = mirrorEverything()
    /// loop.nextSignal(.interrupt).then(on: loop) { _ in
    ///     print("interrupted: cancelling")
    ///     mirror.cancel()
    /// }
    /// try loop.run(until: mirror)
    /// ```
    ///
    /// The watch goes through the process's one owner of signal dispositions, in the
    /// PromiseSignals product, the same as `Promises.nextSignal(_:)`, so the two never undo
    /// each other: the handler is installed before this returns, the action that was there
    /// before the first watch of a signal comes back when the last watch ends, and one
    /// delivery fulfils every live watch of the signal, on every loop and through
    /// `Promises.nextSignal` alike. The watch is one-shot: once the signal arrives, the
    /// previous action is back before the promise's callbacks run, so a second Ctrl-C stops a
    /// program that is slow to wind down. Cancelling the promise ends the watch at once. A
    /// watch whose promise nothing holds and nothing is chained to ends too: the article
    /// <doc:RunningPromisesOnALibuvLoop> and the PromiseSignals article "Signals" give the
    /// rules.
    ///
    /// A signal that every thread blocks (a mask inherited from a parent process) is read from
    /// the kernel's queue of pending signals, so it fulfils the watch too.
    ///
    /// A pending watch does not keep ``run()`` going: a program that is done exits even if
    /// nobody pressed Ctrl-C. Call `nextSignal` again after it fires to keep watching.
    ///
    /// - Parameter signal: The signal to wait for. `SIGKILL` and `SIGSTOP` cannot be caught,
    ///   and the fault signals (`SIGSEGV`, `SIGBUS`, `SIGFPE`, `SIGILL`, `SIGTRAP`, `SIGSYS`)
    ///   cannot be watched, nor can `SIGCHLD`, which belongs to child processes
    ///   (<doc:ChildProcesses>).
    /// - Returns: A promise fulfilled with `signal` on the loop thread. Rejected at once with
    ///   ``UVError/Code-swift.struct/invalidArgument`` when the signal cannot be watched (the
    ///   message says why), or with ``UVError/Code-swift.struct/loopClosed`` when the loop is
    ///   shut down first.
    public func nextSignal(_ signal: UVSignal) -> Promise<UVSignal> {
        let promise = Promise<UVSignal>.pending(resolvedOn: core.contextID)
        core.watchSignal(signal, promise)
        return promise
    }
}
