/// How long ``retry(on:attempts:backoff:condition:_:)`` waits before each retry.
///
/// ```swift
/// .constant(.seconds(1))                                       // 1 s, 1 s, 1 s, …
/// .exponential(initial: .milliseconds(100), maximum: .seconds(10))
/// // about 100 ms, 200 ms, 400 ms, … up to 10 s, each shortened by up to half at random
/// ```
///
/// Random jitter spreads out the retries of many clients that failed together, so they do not
/// come back at the same moment.
public struct Backoff: Sendable, Hashable, CustomStringConvertible {
    /// The delay before the first retry.
    public let initial: Duration
    /// What each delay is multiplied by to get the next one; 1 for a constant delay.
    public let multiplier: Double
    /// The longest delay, reached after enough retries.
    public let maximum: Duration
    /// The fraction of each delay that is random, from 0 (none) to 1: a delay `d` becomes a
    /// uniform pick from `d × (1 - jitter)` up to `d`.
    public let jitter: Double

    @_alwaysEmitIntoClient
    init(initial: Duration, multiplier: Double, maximum: Duration, jitter: Double) {
        self.initial = initial
        self.multiplier = multiplier
        self.maximum = maximum
        self.jitter = jitter
    }

    /// The same delay before every retry, without jitter.
    ///
    /// - Parameter delay: The delay; a negative one counts as zero.
    /// - Returns: The backoff.
    @_alwaysEmitIntoClient
    public static func constant(_ delay: Duration) -> Backoff {
        let delay = max(delay, .zero)
        return Backoff(initial: delay, multiplier: 1, maximum: delay, jitter: 0)
    }

    /// A delay that grows by `multiplier` after each retry up to `maximum`, shortened at random
    /// by up to `jitter` of itself.
    ///
    /// The default jitter of 0.5 keeps every delay at least half of its exponential value
    /// ("equal jitter"); 1 picks anywhere from zero ("full jitter"). No value of any parameter
    /// traps: each is brought into range as described below.
    ///
    /// - Parameters:
    ///   - initial: The delay before the first retry; a negative one counts as zero.
    ///   - multiplier: The growth per retry; values below 1, and NaN, count as 1. Infinity
    ///     goes from `initial` straight to `maximum`.
    ///   - maximum: The cap on the delay; a value below `initial` counts as `initial`.
    ///   - jitter: The random fraction, clamped to 0...1; NaN counts as 0.
    /// - Returns: The backoff.
    @_alwaysEmitIntoClient
    public static func exponential(
        initial: Duration = .milliseconds(100),
        multiplier: Double = 2,
        maximum: Duration = .seconds(30),
        jitter: Double = 0.5
    ) -> Backoff {
        let initial = max(initial, .zero)
        return Backoff(
            initial: initial,
            multiplier: multiplier.isNaN ? 1 : max(1, multiplier),
            maximum: max(maximum, initial),
            jitter: jitter.isNaN ? 0 : min(1, max(0, jitter))
        )
    }

    /// The delay before retry number `retry` (1 for the first retry), with `generator`
    /// supplying the jitter.
    ///
    /// Any retry number and any durations give a delay between zero and ``maximum``, the
    /// longest `Duration` included, without trapping. Below ``maximum`` the delay is in whole
    /// nanoseconds, computed with `Double`'s 53-bit precision.
    ///
    /// - Complexity: O(log `retry`), at most 63 multiplications, whether or not the delay
    ///   ever reaches ``maximum``.
    /// - Parameters:
    ///   - retry: Which retry; values below 1 count as 1.
    ///   - generator: The source of randomness for the jitter; called once when ``jitter``
    ///     is above zero.
    /// - Returns: `min(initial × multiplier^(retry - 1), maximum)`, less a random part of up
    ///   to `jitter` of it.
    @_alwaysEmitIntoClient
    public func delay(beforeRetry retry: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        let cap = Double(maximum.attoseconds)
        var attoseconds = Self.grow(Double(initial.attoseconds), by: multiplier, steps: max(retry, 1) - 1, upTo: cap)
        if jitter > 0 {
            // 53 random bits as a fraction in [0, 1): one draw, no rejection loop.
            let unit = Double(generator.next() >> 11) * 0x1p-53
            attoseconds *= 1 - jitter * unit
        }
        guard attoseconds < cap else { return maximum }
        // Below `cap`, which is at most 2^127: the whole nanoseconds fit in an `Int128`, and
        // only rounding can take them back to attoseconds past `maximum`.
        let nanoseconds = Int128(max(0, attoseconds / 1e9).rounded(.down))
        let (exact, overflow) = nanoseconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? maximum : min(Duration(attoseconds: exact), maximum)
    }

    /// `value × multiplier^steps`, or `cap` once that reaches it: exponentiation by squaring,
    /// one round per bit of `steps`, stopping early at the cap (the product never shrinks, as
    /// `multiplier` is at least 1).
    @_alwaysEmitIntoClient
    static func grow(_ value: Double, by multiplier: Double, steps: Int, upTo cap: Double) -> Double {
        var value = value
        var factor = multiplier
        var steps = steps
        while steps > 0, value > 0, value < cap {
            if steps & 1 == 1 { value *= factor }
            factor *= factor
            steps >>= 1
        }
        return min(value, cap)
    }

    /// `constant(1.0 seconds)` or `exponential(initial: …, multiplier: …, maximum: …, jitter: …)`.
    @_alwaysEmitIntoClient
    public var description: String {
        multiplier == 1 && jitter == 0 && initial == maximum
            ? "constant(\(initial))"
            : "exponential(initial: \(initial), multiplier: \(multiplier), maximum: \(maximum), jitter: \(jitter))"
    }
}
