import PromiseCore

extension UVLoop {
    /// Runs `body` on the loop thread every `interval`, until the returned handle is
    /// cancelled or the loop shuts down.
    ///
    /// ```swift
    /// let heartbeat = loop.every(.seconds(5)) { tick in log("alive, tick \(tick)") }
    /// // …
    /// heartbeat.cancel()
    /// ```
    ///
    /// Ticks are counted from the moment the timer starts: tick `n` fires `n × interval` after
    /// it, never earlier (to libuv's millisecond resolution, like ``after(_:)``), so the
    /// schedule does not drift however long `body` takes. When the loop was too busy to fire
    /// for more than an interval, the missed ticks are skipped rather than fired in a burst,
    /// and the next tick number says how many intervals have passed. Intervals under one
    /// millisecond count as one.
    ///
    /// - Parameters:
    ///   - interval: The time between ticks.
    ///   - keepsLoopAlive: Whether the pending timer keeps ``run()`` going (the default, like
    ///     every other timer). Pass `false` for background work such as a heartbeat or a
    ///     status line, which must not keep a program alive once its real work is done
    ///     (libuv's `uv_unref`).
    ///   - body: Runs on the loop thread with the tick number: 1, 2, 3, …
    /// - Returns: A handle whose `cancel()` stops the timer; no tick starts after it returns
    ///   when called on the loop thread, or after the loop has processed it otherwise.
    @discardableResult
    public func every(
        _ interval: Duration,
        keepsLoopAlive: Bool = true,
        _ body: @escaping @Sendable (Int) -> Void
    ) -> ScheduledWork {
        startRepeating(interval, keepsLoopAlive: keepsLoopAlive, onTick: body, onEnd: {})
    }

    /// The ticks of a timer that fires every `interval`, as an asynchronous sequence.
    ///
    /// ```swift
    /// for await tick in loop.every(.seconds(1)) {
    ///     print("tick \(tick)")
    ///     if tick == 3 { break }
    /// }
    /// ```
    ///
    /// The timer starts when iteration starts and stops when the iterator is dropped (a
    /// `break`), when the iterating task is cancelled, or when the loop shuts down; the
    /// sequence then ends. A consumer slower than the timer does not pile ticks up: only the
    /// newest tick waits to be read, and its number says how many intervals have passed.
    /// Scheduling and skipping are as for ``every(_:keepsLoopAlive:_:)``.
    ///
    /// - Parameters:
    ///   - interval: The time between ticks.
    ///   - keepsLoopAlive: Whether the pending timer keeps ``run()`` going.
    /// - Returns: A sequence of tick numbers: 1, 2, 3, …
    public func every(_ interval: Duration, keepsLoopAlive: Bool = true) -> UVTicks {
        UVTicks(loop: self, interval: interval, keepsLoopAlive: keepsLoopAlive)
    }

    func startRepeating(
        _ interval: Duration,
        keepsLoopAlive: Bool,
        onTick: @escaping @Sendable (Int) -> Void,
        onEnd: @escaping @Sendable () -> Void
    ) -> ScheduledWork {
        let core = self.core
        let timer = RepeatingTimer(core: core, interval: interval, keepsLoopAlive: keepsLoopAlive, onTick: onTick, onEnd: onEnd)
        if core.isOnLoopThread {
            if !timer.start() { timer.abandon() }
        } else if !core.submit(.user, { timer.startIfNotCancelled() }) {
            timer.abandon()
        }
        return ScheduledWork { timer.stop() }
    }
}
