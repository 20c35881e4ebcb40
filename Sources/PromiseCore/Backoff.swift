internal import PromiseBasics
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

    /// The same delay before every retry, without jitter.
    ///
    /// - Parameter delay: The delay; a negative one counts as zero.
    /// - Returns: The backoff.
    public static func constant(_ delay: Duration) -> Backoff {
        let delay = max(delay, .zero)
        return Backoff(initial: delay, multiplier: 1, maximum: delay, jitter: 0)
    }

    /// A delay that grows by `multiplier` after each retry up to `maximum`, shortened at random
    /// by up to `jitter` of itself.
    ///
    /// The default jitter of 0.5 keeps every delay at least half of its exponential value
    /// ("equal jitter"); 1 picks anywhere from zero ("full jitter").
    ///
    /// - Parameters:
    ///   - initial: The delay before the first retry; a negative one counts as zero.
    ///   - multiplier: The growth per retry; values below 1 count as 1.
    ///   - maximum: The cap on the delay; a value below `initial` counts as `initial`.
    ///   - jitter: The random fraction, clamped to 0...1.
    /// - Returns: The backoff.
    public static func exponential(
        initial: Duration = .milliseconds(100),
        multiplier: Double = 2,
        maximum: Duration = .seconds(30),
        jitter: Double = 0.5
    ) -> Backoff {
        let initial = max(initial, .zero)
        return Backoff(
            initial: initial,
            multiplier: multiplier.isFinite ? max(1, multiplier) : 1,
            maximum: max(maximum, initial),
            jitter: jitter.isFinite ? min(1, max(0, jitter)) : 0
        )
    }

    /// The delay before retry number `retry` (1 for the first retry), with `generator`
    /// supplying the jitter.
    ///
    /// - Parameters:
    ///   - retry: Which retry; values below 1 count as 1.
    ///   - generator: The source of randomness for the jitter.
    /// - Returns: `min(initial × multiplier^(retry - 1), maximum)`, less a random part of up
    ///   to `jitter` of it.
    public func delay(beforeRetry retry: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        let cap = Self.seconds(maximum)
        var seconds = Self.seconds(initial)
        var step = 1
        while step < retry, seconds < cap {
            seconds *= multiplier
            step += 1
        }
        seconds = min(seconds, cap)
        if jitter > 0 {
            // 53 random bits as a fraction in [0, 1): one draw, no rejection loop.
            let unit = Double(generator.next() >> 11) * 0x1p-53
            seconds *= 1 - jitter * unit
        }
        return .nanoseconds(Int64((seconds * 1e9).rounded(.down)))
    }

    /// `constant(1.0 seconds)` or `exponential(initial: …, multiplier: …, maximum: …, jitter: …)`.
    public var description: String {
        multiplier == 1 && jitter == 0 && initial == maximum
            ? "constant(\(initial))"
            : "exponential(initial: \(initial), multiplier: \(multiplier), maximum: \(maximum), jitter: \(jitter))"
    }

    private static func seconds(_ duration: Duration) -> Double {
        duration.secondsAsDouble
    }
}
