import Dispatch
import PromiseCore
import Testing

/// Many threads resolving, cancelling and chaining the same promises at once.
@Suite struct ConcurrencyTests {
    static let rounds = 2_000

    @Test func exactlyOneOutcomeWhenThreadsRaceToResolve() throws {
        for _ in 0..<Self.rounds / 4 {
            let (promise, resolver) = Promise<Int>.pending()
            let callbackRuns = Counter()
            let done = promise.always(on: .inline) { callbackRuns.increment() }
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                switch index % 4 {
                case 0: resolver.fulfill(index)
                case 1: resolver.reject(SampleError(tag: index))
                case 2: promise.cancel()
                default: resolver.resolve(.success(-index))
                }
            }
            _ = outcome(of: done)
            #expect(callbackRuns.value == 1)
            let first = outcome(of: promise)
            // The outcome never changes once set.
            for _ in 0..<3 {
                switch (first, outcome(of: promise)) {
                case (.success(let a), .success(let b)): #expect(a == b)
                case (.failure, .failure): break
                default: Issue.record("the outcome changed")
                }
            }
        }
    }

    @Test func everyCallbackRunsOnceWhenChainingRacesWithResolution() {
        let queue = DispatchQueue(label: "chaining", attributes: .concurrent)
        for _ in 0..<Self.rounds / 10 {
            let (promise, resolver) = Promise<Int>.pending()
            let runs = Counter()
            let group = DispatchGroup()
            let tails = Recorder<Promise<Int>>()
            for index in 0..<40 {
                queue.async(group: group) {
                    if index == 20 { resolver.fulfill(7) }
                    let context: any ExecutionContext = index.isMultiple(of: 2) ? InlineContext() : queue
                    tails.append(
                        promise.then(on: context) { value -> Int in
                            runs.increment()
                            return value
                        })
                }
            }
            group.wait()
            for tail in tails.events {
                #expect((try? awaitPromise(tail, timeout: .seconds(5))) == 7)
            }
            #expect(runs.value == 40)
        }
    }

    @Test func cancelRacingFulfilLeavesConsistentState() {
        for _ in 0..<Self.rounds {
            let (source, sourceResolver) = Promise<Int>.pending()
            let handlerRuns = Counter()
            source.onCancel { handlerRuns.increment() }
            let child = source.then(on: .inline) { $0 + 1 }
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 { child.cancel() } else { sourceResolver.fulfill(1) }
            }
            if source.isCancelled {
                #expect(handlerRuns.value == 1)
                #expect(child.isCancelled)
            } else {
                #expect(source.value == 1)
                #expect(handlerRuns.value == 0)
                // The child was either cancelled first or got the value.
                #expect(child.isCancelled || child.value == 2)
            }
        }
    }

    @Test func longChainOnASerialQueueResolvesWithoutOverflow() throws {
        let queue = DispatchQueue(label: "long-chain")
        let (head, headResolver) = Promise<Int>.pending()
        var tail = head
        for _ in 0..<100_000 {
            tail = tail.then(on: queue) { $0 + 1 }
        }
        headResolver.fulfill(0)
        #expect(try awaitPromise(tail, timeout: .seconds(30)) == 100_000)
    }

    /// Each level hops to the default queue, then waits on the next level: resolution comes
    /// back through 20 000 adopted promises at once.
    @Sendable static func count(_ n: Int) -> Promise<Int> {
        n == 0 ? Promise(0) : Promise(n).then { value in count(value - 1).then(on: .inline) { $0 + 1 } }
    }

    @Test func longChainOfFlattenedPromisesResolves() throws {
        #expect(try awaitPromise(Self.count(20_000), timeout: .seconds(30)) == 20_000)
    }
}
