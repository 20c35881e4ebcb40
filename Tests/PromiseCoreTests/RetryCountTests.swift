import Dispatch
import PromiseCore
import Testing

@Suite struct RetryCountTests {
    /// With no delay on a concurrent queue, a retry's next attempt can start, fail and come
    /// back before the retry that started it has been counted: the work still runs exactly
    /// `attempts + 1` times.
    @Test func aRetryWithoutDelayOnAConcurrentQueueRunsAttemptsPlusOneTimes() async throws {
        for _ in 0..<300 {
            let runs = AttemptCounter()
            let retried = retry(on: DispatchQueue.global(), attempts: 1, delay: .zero) { () -> Promise<Int> in
                runs.increment()
                return Promise<Int>(CountedFailure())
            }
            await #expect(throws: CountedFailure.self) { try await retried.get() }
            #expect(runs.value == 2)
        }
    }
}

private struct CountedFailure: Error {}
