public import Dispatch

extension Duration {
    // One rule for every conversion to a coarser unit: a wait is never shorter than asked, so
    // the conversion rounds up; zero and negative durations become 0; a duration past `cap`
    // becomes `cap`. Callers for which 0 means "no limit" (libcurl's timeouts) raise it to 1.
    // Every `Duration` converts, up to the longest one (`Duration(attoseconds: .max)`), and
    // every deadline is computed with `advanced(saturatingBy:)`: these are the library's only
    // conversions and deadline sums (DurationConversionTests enumerates the sources).

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
        Double(attoseconds) / 1e18
    }

    @_alwaysEmitIntoClient
    package func roundedUp(unitsPerSecond: Int64, cappedAt cap: Int64) -> Int64 {
        guard self > .zero else { return 0 }
        // Compared as a whole first: `components` traps for a duration of more than
        // `Int64.max` seconds, which `Duration` can hold, and every such duration is past
        // the cap. Below it, `components` keeps both parts positive.
        guard self < .seconds(cap / unitsPerSecond) else { return cap }
        let (seconds, attoseconds) = components
        let attosecondsPerUnit = 1_000_000_000_000_000_000 / unitsPerSecond
        let whole = seconds * unitsPerSecond + (attoseconds + attosecondsPerUnit - 1) / attosecondsPerUnit
        return min(whole, cap)
    }

    /// The longest wait a deadline is computed for: about 139 000 years. Adding it to any
    /// clock's instant cannot overflow, and no wait reaches it.
    @_alwaysEmitIntoClient
    package static var longestWait: Duration { .seconds(Int64(1) << 42) }

    /// This duration within ``longestWait`` either side of zero, for adding to an instant.
    @_alwaysEmitIntoClient
    package var clampedForDeadline: Duration {
        min(max(self, .zero - Duration.longestWait), Duration.longestWait)
    }
}

extension InstantProtocol where Duration == Swift.Duration {
    /// The instant `duration` after this one, with `duration` held within
    /// ``Swift/Duration/longestWait``: `advanced(by:)` traps when the sum leaves what an
    /// instant can hold, and a caller may give any `Duration`.
    ///
    /// - Parameter duration: How far to advance; negative goes back.
    /// - Returns: The instant.
    @_alwaysEmitIntoClient
    package func advanced(saturatingBy duration: Duration) -> Self {
        advanced(by: duration.clampedForDeadline)
    }
}
