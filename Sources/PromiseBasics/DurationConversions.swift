public import Dispatch

extension Duration {
    // One rule for every conversion to a coarser unit: a wait is never shorter than asked, so
    // the conversion rounds up; zero and negative durations become 0; a duration past `cap`
    // becomes `cap`. Callers for which 0 means "no limit" (libcurl's timeouts) raise it to 1.

    /// Whole seconds, rounded up; 0 for zero or negative; at most `cap`.
    ///
    /// - Parameter cap: The largest result.
    /// - Returns: The seconds.
    @_alwaysEmitIntoClient
    package func secondsRoundedUp(cappedAt cap: Int64) -> Int64 {
        roundedUp(unitsPerSecond: 1, cappedAt: cap)
    }

    /// Whole milliseconds, rounded up; 0 for zero or negative; at most `cap`.
    ///
    /// - Parameter cap: The largest result.
    /// - Returns: The milliseconds.
    @_alwaysEmitIntoClient
    package func millisecondsRoundedUp(cappedAt cap: Int64) -> Int64 {
        roundedUp(unitsPerSecond: 1_000, cappedAt: cap)
    }

    /// Whole nanoseconds, rounded up; 0 for zero or negative; at most `cap`.
    ///
    /// - Parameter cap: The largest result.
    /// - Returns: The nanoseconds.
    @_alwaysEmitIntoClient
    package func nanosecondsRoundedUp(cappedAt cap: Int64) -> Int64 {
        roundedUp(unitsPerSecond: 1_000_000_000, cappedAt: cap)
    }

    /// This duration as a dispatch interval: whole nanoseconds rounded up, 0 for a negative
    /// duration, `.never` past what dispatch can represent.
    @_alwaysEmitIntoClient
    package var dispatchInterval: DispatchTimeInterval {
        let cap = Int64.max / 2
        let nanoseconds = nanosecondsRoundedUp(cappedAt: cap)
        return nanoseconds == cap ? .never : .nanoseconds(Int(nanoseconds))
    }

    /// The duration in seconds as a `Double` (to the nearest representable value), for
    /// arithmetic such as a backoff's growth.
    @_alwaysEmitIntoClient
    package var secondsAsDouble: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    @_alwaysEmitIntoClient
    package func roundedUp(unitsPerSecond: Int64, cappedAt cap: Int64) -> Int64 {
        // `components` keeps both parts on the same side of zero.
        let (seconds, attoseconds) = components
        if seconds < 0 || (seconds == 0 && attoseconds <= 0) { return 0 }
        if seconds >= cap / unitsPerSecond { return cap }
        let attosecondsPerUnit = 1_000_000_000_000_000_000 / unitsPerSecond
        let whole = seconds * unitsPerSecond + (attoseconds + attosecondsPerUnit - 1) / attosecondsPerUnit
        return min(whole, cap)
    }
}
