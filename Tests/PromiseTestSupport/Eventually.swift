/// Polls `condition` every 2 ms until it holds or `timeout` passes, sleeping in between rather
/// than blocking a thread of the cooperative pool. Checks once more after the deadline, so a
/// test task that resumes late still sees a condition that came true in time.
package func eventually(_ timeout: Duration = .seconds(30), _ condition: () -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(2))
    }
    return condition()
}
