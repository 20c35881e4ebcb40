import Dispatch
import PromiseCore
import Synchronization
import Testing

/// A serial queue that counts how often the library hands it work.
private final class CountingQueue: ExecutionContext {
    private let queue = DispatchQueue(label: "hop-count")
    private let count = Atomic<Int>(0)

    var hops: Int { count.load(ordering: .acquiring) }

    /// Holds the queue until the returned closure is called (not counted as a hop), so a chain
    /// built meanwhile is complete before its first link can run.
    func hold() -> @Sendable () -> Void {
        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() }
        return { gate.signal() }
    }

    func execute(_ work: @escaping @Sendable () -> Void) {
        count.add(1, ordering: .releasing)
        queue.async(execute: work)
    }

    var executionContextID: ObjectIdentifier? { ObjectIdentifier(self) }
}

/// Chains on one serial context are delivered in one hop: the links after the first run in
/// the same turn. Counted, not timed.
@Suite struct HopCountTests {
    /// The queue is held while the chain is built: without that, a busy machine may run the
    /// first link before the next is attached, and a link attached to a settled promise from
    /// off the queue needs a hop of its own.
    @Test(arguments: [1, 2, 3, 10])
    func aChainOnASettledPromiseTakesOneHop(links: Int) async throws {
        let context = CountingQueue()
        let release = context.hold()
        var promise = Promise(0)
        for _ in 0..<links {
            promise = promise.then(on: context) { $0 + 1 }
        }
        release()
        #expect(try await promise.get() == links)
        #expect(context.hops == 1, "\(links) links took \(context.hops) hops")
    }

    @Test func aChainOnAPendingPromiseTakesOneHopOnceFulfilled() async throws {
        let context = CountingQueue()
        let (source, sourceResolver) = Promise<Int>.pending()
        let end =
            source
            .then(on: context) { $0 + 1 }
            .then(on: context) { $0 * 2 }
            .then(on: context) { $0 - 3 }
        #expect(context.hops == 0)
        sourceResolver.fulfill(4)
        #expect(try await end.get() == 7)
        #expect(context.hops == 1)
    }

    @Test func aChainThatReturnsPromisesAndRecoversStaysInOneHop() async throws {
        let context = CountingQueue()
        let release = context.hold()
        let end = Promise(1)
            .then(on: context) { value -> Promise<Int> in Promise(value + 1) }
            .then(on: context) { (value: Int) throws -> Int in throw ChainError(value: value) }
            .recover(on: context) { error in (error as? ChainError)?.value ?? -1 }
            .then(on: context) { $0 * 10 }
        release()
        #expect(try await end.get() == 20)
        #expect(context.hops == 1)
    }
}

private struct ChainError: Error {
    let value: Int
}
