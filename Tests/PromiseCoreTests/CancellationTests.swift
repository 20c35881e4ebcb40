import Dispatch
import PromiseCore
import PromiseTesting
import Testing

@Suite struct CancellationTests {
    @Test func cancelRejectsWithCancellationErrorAndRunsHandlersOnce() {
        let (promise, resolver) = Promise<Int>.pending()
        let handlerRuns = Counter()
        promise.onCancel { handlerRuns.increment() }
        promise.cancel()
        promise.cancel()
        resolver.fulfill(1)
        #expect(promise.isCancelled)
        #expect(promise.isRejected)
        #expect(promise.error is CancellationError)
        #expect(handlerRuns.value == 1)
    }

    @Test func onCancelAfterCancellationRunsAtOnceAndIsDroppedAfterFulfilment() {
        let (cancelled, cancelledResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(cancelledResolver) {} }
        cancelled.cancel()
        let late = Counter()
        cancelled.onCancel { late.increment() }
        #expect(late.value == 1)

        let (fulfilled, fulfilledResolver) = Promise<Int>.pending()
        let never = Counter()
        fulfilled.onCancel { never.increment() }
        fulfilledResolver.fulfill(1)
        fulfilled.cancel()
        #expect(never.value == 0)
        #expect(!fulfilled.isCancelled)
    }

    @Test func onCancelHandlerCanRunOnAContext() {
        let context = ManualContext()
        let (promise, resolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(resolver) {} }
        let runs = Counter()
        promise.onCancel(on: context) { runs.increment() }
        promise.cancel()
        #expect(runs.value == 0)
        context.runUntilIdle()
        #expect(runs.value == 1)
    }

    @Test func cancellationReachesEveryDependent() {
        let (source, sourceResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(sourceResolver) {} }
        let first = source.then(on: .inline) { $0 + 1 }
        let second = first.then(on: .inline) { $0 + 1 }
        let sibling = source.then(on: .inline) { $0 * 2 }
        source.cancel()
        #expect(first.isCancelled && second.isCancelled && sibling.isCancelled)
    }

    @Test func cancellingTheOnlyConsumerCancelsTheSourceAndStopsItsWork() {
        let (source, sourceResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(sourceResolver) {} }
        let stopped = Counter()
        source.onCancel { stopped.increment() }
        let parsed = source.then { $0 * 2 }.then { String($0) }
        parsed.cancel()
        #expect(source.isCancelled)
        #expect(stopped.value == 1)
    }

    @Test func aSourceWithAnotherInterestedConsumerIsNotCancelled() {
        let (source, sourceResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(sourceResolver) {} }
        let a = source.then(on: .inline) { $0 + 1 }
        let b = source.then(on: .inline) { $0 + 2 }
        a.cancel()
        #expect(source.isPending)
        b.cancel()
        #expect(source.isCancelled)
    }

    @Test func aCancelledDependentDoesNotRunItsWork() {
        let context = ManualContext()
        let runs = Counter()
        let (source, sourceResolver) = Promise<Int>.pending()
        let step = source.then(on: context) { value -> Int in
            runs.increment()
            return value
        }
        sourceResolver.fulfill(1)
        step.cancel()
        context.runUntilIdle()
        #expect(runs.value == 0)
        #expect(step.isCancelled)
    }

    @Test func cancellingAFlattenedPromiseCancelsTheInnerWork() {
        let context = ManualContext()
        let (inner, innerResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(innerResolver) {} }
        let innerStopped = Counter()
        inner.onCancel { innerStopped.increment() }
        let outer = Promise(1).then(on: context) { _ in inner }
        context.runUntilIdle()
        #expect(outer.isPending)
        outer.cancel()
        #expect(inner.isCancelled)
        #expect(innerStopped.value == 1)
    }

    @Test func upwardCancellationOfALongChainDoesNotOverflowTheStack() {
        let (source, sourceResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(sourceResolver) {} }
        var tail = source
        for _ in 0..<100_000 {
            tail = tail.then(on: .inline) { $0 + 1 }
        }
        tail.cancel()
        #expect(source.isCancelled)
    }

    @Test func allWithdrawsFromTheOthersWhenOneRejects() {
        let (slow, slowResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(slowResolver) {} }
        let (failing, failingResolver) = Promise<Int>.pending()
        let combined = all([slow, failing])
        failingResolver.reject(SampleError(tag: 1))
        #expect(combined.error as? SampleError == SampleError(tag: 1))
        #expect(slow.isCancelled)
    }

    @Test func cancellingAllCancelsItsInputs() {
        let (a, aResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(aResolver) {} }
        let (b, bResolver) = Promise<String>.pending()
        defer { withExtendedLifetime(bResolver) {} }
        let combined = all(a, b)
        combined.cancel()
        #expect(a.isCancelled && b.isCancelled)
    }

    @Test func raceWithdrawsFromTheLosers() {
        let (winner, winnerResolver) = Promise<Int>.pending()
        let (loser, loserResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(loserResolver) {} }
        let (heldElsewhere, heldElsewhereResolver) = Promise<Int>.pending()
        let watcher = heldElsewhere.then(on: .inline) { $0 }
        let result = race([winner, loser, heldElsewhere])
        winnerResolver.fulfill(1)
        #expect(result.value == 1)
        #expect(loser.isCancelled)
        #expect(heldElsewhere.isPending)
        heldElsewhereResolver.fulfill(2)
        #expect(watcher.value == 2)
    }

    @Test func asyncGetThrowsCancellationAndCancelsThePromiseWhenTheTaskIsCancelled() async {
        let (promise, resolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(resolver) {} }
        let task = Task { try await promise.get() }
        while promise.isPending {
            task.cancel()
            await Task.yield()
        }
        let result = await task.result
        #expect(result.failureValue is CancellationError)
        #expect(promise.isCancelled)
    }

    @Test func cancellingTheAsyncInitializerCancelsItsTask() async throws {
        let (started, startedResolver) = Promise<Void>.pending()
        let (sawCancellation, sawCancellationResolver) = Promise<Bool>.pending()
        let promise = Promise<Int> {
            startedResolver.fulfill(())
            do {
                // Long: the test task may resume from `started.get()` tens of seconds late when
                // the other suites keep the cooperative pool busy.
                try await Task.sleep(for: .seconds(600))
                sawCancellationResolver.fulfill(false)
            } catch {
                sawCancellationResolver.fulfill(error is CancellationError)
            }
            return 1
        }
        try await started.get()
        promise.cancel()
        #expect(try await sawCancellation.get())
        #expect(promise.isCancelled)
    }
}
