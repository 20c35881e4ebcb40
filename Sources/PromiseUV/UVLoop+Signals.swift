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
    /// While the promise is pending, libuv's handler replaces the signal's default action, so
    /// Ctrl-C no longer kills the program: the program decides. The watch is one-shot
    /// (`uv_signal_start_oneshot`): once the signal arrives, its default action is back, so a
    /// second Ctrl-C stops a program that is slow to wind down. Cancelling the promise stops
    /// watching and restores the default action too (unless another watch for the same
    /// signal is pending, on this loop or another).
    ///
    /// The signal is unblocked on the loop thread (`pthread_sigmask`), so a blocked mask
    /// inherited from a parent process cannot swallow it.
    ///
    /// A pending watch does not keep ``run()`` going: a program that is done exits even if
    /// nobody pressed Ctrl-C. Call `nextSignal` again after it fires to keep watching.
    ///
    /// - Parameter signal: The signal to wait for. `SIGKILL` and `SIGSTOP` cannot be watched.
    /// - Returns: A promise fulfilled with `signal` on the loop thread. Rejected with a
    ///   ``UVError`` when libuv cannot watch the signal (`invalidArgument` for `SIGKILL`,
    ///   `SIGSTOP` or a number out of range), or with
    ///   ``UVError/Code-swift.struct/loopClosed`` when the loop is shut down first.
    public func nextSignal(_ signal: UVSignal) -> Promise<UVSignal> {
        let core = self.core
        let promise = Promise<UVSignal>.pending(resolvedOn: core.contextID)
        let watcher = SignalWatcher(core: core, signal: signal, promise: promise)
        if core.isOnLoopThread {
            core.startSignal(watcher)
        } else if !core.submit(.user, { core.startSignal(watcher) }) {
            watcher.abandon()
            return promise
        }
        promise.onCancelFromLibrary { core.cancelSignal(watcher) }
        return promise
    }
}
