package import Testing

/// The one way a test checks a time limit: it records an issue that says it is a time limit,
/// what was timed, the measured figure and the limit, so that a failure on a busy machine can
/// be told from a regression at a glance.
///
/// Measure what the library did, not when the test task resumed: take the start just before
/// the operation under test begins, and the end with ``SettleTime`` (on the thread that
/// settles the promise) rather than after an `await`.
///
/// - Parameters:
///   - measured: The time taken; `nil` (the operation has not finished) fails the check.
///   - limit: The most it may take.
///   - what: What was timed and why the limit holds, as a clause: "the cancelled query
///     settling (uninterrupted, it runs for minutes)".
///   - sourceLocation: Where the check is, for the issue.
package func expectTimeLimit(
    _ measured: Duration?,
    under limit: Duration,
    _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let measured else {
        Issue.record("time limit: \(what) had not finished (limit \(limit))", sourceLocation: sourceLocation)
        return
    }
    #expect(measured < limit, "time limit: \(what) took \(measured), limit \(limit)", sourceLocation: sourceLocation)
}
