import Glibc
import PromiseCore
import Testing

private struct Miss: Error {}

/// Recursion through inline callbacks on settled promises: each level's callback chains onto
/// another settled promise from inside the previous one. Past a small depth the callbacks wait
/// for the drain loop instead of nesting, so no depth overflows the stack.
@Suite struct InlineRecursionTests {
    /// A million levels; a tenth of that under ThreadSanitizer (`make test-tsan` sets
    /// `TSAN_OPTIONS`), where each level costs about ten times as much. Either is far past
    /// the depth that overflowed the stack when inline callbacks nested without limit.
    static let depth = getenv("TSAN_OPTIONS") == nil ? 1_000_000 : 100_000

    @Test func recursionThroughThenOnSettledPromisesReachesAMillionLevels() {
        @Sendable func countDown(_ n: Int) -> Promise<Int> {
            n == 0 ? Promise(0) : Promise(n).then(on: .inline) { (value: Int) -> Promise<Int> in countDown(value - 1) }
        }
        let result = countDown(Self.depth)
        #expect(result.value == 0)
    }

    @Test func recursionThroughRecoverOnSettledPromisesReachesAMillionLevels() {
        @Sendable func retryDown(_ n: Int) -> Promise<Int> {
            n == 0 ? Promise(0) : Promise<Int>(Miss()).recover(on: .inline) { (_: any Error) -> Promise<Int> in retryDown(n - 1) }
        }
        let result = retryDown(Self.depth)
        #expect(result.value == 0)
    }

    @Test func shallowInlineCallbacksOnASettledPromiseStillRunBeforeThenReturns() {
        let (ran, ranResolver) = Promise<Int>.pending()
        _ = Promise(1).then(on: .inline) { value in
            _ = Promise(value + 1).then(on: .inline) { ranResolver.fulfill($0) }
            #expect(ran.value == 2, "a nested inline callback on a settled promise runs before then returns")
        }
        #expect(ran.value == 2)
    }
}
