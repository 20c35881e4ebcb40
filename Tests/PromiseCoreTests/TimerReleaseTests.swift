import Dispatch
import PromiseCore
import Synchronization
import Testing

/// An object whose deallocation a test can watch.
private final class Payload: Sendable {}

/// A weak reference readable from any thread.
private final class Watch: Sendable {
    private let reference = Lock<WeakReference>(WeakReference())
    private struct WeakReference { weak var object: Payload? }

    init(_ object: Payload) { reference.withLock { $0.object = object } }
    var isReleased: Bool { reference.withLock { $0.object == nil } }
}

private struct Refused: Error {}

/// Timers on a dispatch queue release what they hold as soon as they are cancelled or no
/// longer needed, not at their original deadline (30 s here, far past the test's wait).
@Suite struct TimerReleaseTests {
    let queue = DispatchQueue(label: "timer-release")

    @Test func aSettledTimeoutReleasesItsPromiseAndValueAtOnce() async throws {
        let watch = try await settledTimeout()
        #expect(try await waitUntil { watch.isReleased }, "the timer still holds the response 30 s after delivery")
    }

    private func settledTimeout() async throws -> Watch {
        let payload = Payload()
        let (source, sourceResolver) = Promise<Payload>.pending()
        let limited = source.timeout(on: queue, .seconds(30))
        sourceResolver.fulfill(payload)
        let delivered = try await limited.get()
        #expect(delivered === payload)
        return Watch(payload)
    }

    @Test func aCancelledDelayReleasesItsValueAtOnce() async throws {
        let watch = cancelledDelay()
        #expect(try await waitUntil { watch.isReleased })
    }

    private func cancelledDelay() -> Watch {
        let payload = Payload()
        let delayed = Promise(payload).delay(on: queue, .seconds(30))
        delayed.cancel()
        return Watch(payload)
    }

    @Test func aStoppedRetryReleasesItsWorkAtOnce() async throws {
        let watch = try await stoppedRetry()
        #expect(try await waitUntil { watch.isReleased })
    }

    private func stoppedRetry() async throws -> Watch {
        let payload = Payload()
        let (attempted, attemptedResolver) = Promise<Int>.pending()
        let retrying = retry(on: queue, attempts: 3, delay: .seconds(30)) { () -> Promise<Int> in
            withExtendedLifetime(payload) {}
            attemptedResolver.fulfill(1)
            return Promise<Int>(Refused())
        }
        _ = try await attempted.get()
        // The first attempt ran; its rejection sets the 30 s retry timer on the queue.
        try await Task.sleep(for: .milliseconds(20))
        retrying.cancel()
        return Watch(payload)
    }
}

/// Polls `condition` for up to 5 s.
private func waitUntil(_ condition: () -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + .seconds(5)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}
