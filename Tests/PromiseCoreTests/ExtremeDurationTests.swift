import Dispatch
import PromiseCore
import Testing

/// Durations past what `Duration.components` can give (more than `Int64.max` seconds) wait
/// as long as anything can, and never crash: every operator that takes a duration converts
/// it through PromiseBasics' conversions, which DurationConversionTests enumerates.
@Suite struct ExtremeDurationTests {
    static let longest = Duration(attoseconds: .max)

    @Test(arguments: [ExtremeDurationTests.longest, .seconds(1e20)])
    func aTimeoutOrDelayThatLongWaitsAndCancels(_ interval: Duration) async throws {
        let (source, resolver) = Promise<Int>.pending()
        let timed = source.timeout(interval)
        let delayed = Promise(1).delay(interval)
        let queueDelayed = Promise(1).delay(on: DispatchQueue(label: "extreme"), interval)
        for promise in [timed, delayed, queueDelayed] {
            #expect(promise.isPending)
            promise.cancel()
            await #expect(throws: CancellationError.self) { try await promise.get() }
        }
        resolver.fulfill(1)
    }

    @Test func aRetryWhoseBackoffIsTheLongestDurationWaitsAndCancels() async throws {
        let attempts = AttemptCounter()
        let (firstFailed, firstFailedResolver) = Promise<Void>.pending()
        let retried = retry(attempts: 2, backoff: .constant(Self.longest)) { _ -> Promise<Int> in
            attempts.increment()
            defer { firstFailedResolver.fulfill(()) }
            return Promise<Int>(ExtremeFailure())
        }
        try await firstFailed.get()
        try await Promise(()).delay(.milliseconds(20)).get()
        #expect(retried.isPending)
        #expect(attempts.value == 1)
        retried.cancel()
        await #expect(throws: CancellationError.self) { try await retried.get() }
    }

    @Test func aBlockingWaitWithTheLongestTimeoutReturnsTheValue() async throws {
        let (source, resolver) = Promise<Int>.pending()
        let waiter = Promise<Int>(on: DispatchQueue(label: "waiter"), work: { try awaitPromise(source, timeout: Self.longest) })
        resolver.fulfill(7)
        #expect(try await waiter.get() == 7)
        let settled = Promise<Int>(on: DispatchQueue(label: "settled"), work: { try awaitPromise(Promise(8), timeout: .zero - Self.longest) })
        #expect(try await settled.get() == 8)
    }
}

private struct ExtremeFailure: Error {}

final class AttemptCounter: Sendable {
    private let count = Lock(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
