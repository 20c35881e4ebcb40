import Foundation
import PromiseUV
import Synchronization
import Testing

/// State touched only on one loop's thread, so it needs no lock.
///
/// `@unchecked Sendable`: every test that uses it reads and writes it from loop callbacks
/// only, and reads it from the test after awaiting a promise the loop resolved last.
final class LoopConfined<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// A loop running on a thread of its own, as a server would have it.
func startedLoop(_ name: String = "uv-test") throws -> UVLoop {
    let loop = try UVLoop()
    try loop.startThread(named: name)
    return loop
}

/// Runs `body` on a new thread (never on Swift's cooperative pool) and returns a promise
/// fulfilled with its result when it returns.
func onNewThread<T: Sendable>(_ body: @escaping @Sendable () -> T) -> Promise<T> {
    let done = Promise<T>.pending()
    Thread.detachNewThread { done.fulfill(body()) }
    return done
}

/// Monotonic milliseconds.
func nowMilliseconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) * 1000 + Double(now.tv_nsec) / 1_000_000
}

/// Waits up to `timeout` for `condition`, polling without blocking the cooperative pool.
func eventually(_ timeout: Duration = .seconds(10), _ condition: @Sendable () -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(2))
    }
    return condition()
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
