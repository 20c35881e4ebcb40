import Dispatch
import Glibc
import PromiseCore
import Synchronization
import Testing

/// `get()` returns only after the callbacks registered before it were handed over: code after
/// `await promise.get()` sees what an earlier inline callback did.
@Suite struct GetOrderTests {
    @Test func getWaitsForTheInlineCallbacksRegisteredBeforeIt() async throws {
        for _ in 0..<5 {
            let (promise, resolver) = Promise<Int>.pending()
            let recorded = Flag()
            promise.always(on: .inline) {
                // Long enough that a get() called meanwhile would return first without the wait.
                usleep(50_000)
                recorded.set()
            }
            let fulfiller = Thread(resolver)
            fulfiller.start()
            // The result is set as soon as fulfil begins; the callback still sleeps.
            while !promise.isFulfilled { usleep(100) }
            #expect(try await promise.get() == 7)
            let ranFirst = recorded.isSet
            #expect(ranFirst, "get() returned before the earlier inline callback ran")
            fulfiller.join()
        }
    }

    private final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        func set() { value.store(true, ordering: .releasing) }
        var isSet: Bool { value.load(ordering: .acquiring) }
    }

    /// Fulfils the promise with 7 on a thread of its own.
    private final class Thread: Sendable {
        let resolver: PromiseResolver<Int>
        let done = DispatchSemaphore(value: 0)
        init(_ resolver: PromiseResolver<Int>) { self.resolver = resolver }
        func start() {
            DispatchQueue.global().async { [self] in
                resolver.fulfill(7)
                done.signal()
            }
        }
        func join() { done.wait() }
    }
}
