import PromiseCore
import PromiseTesting
import Testing

@Suite struct AllSettledTests {
    @Test func fulfilsWithEveryOutcomeInInputOrderAndNeverRejects() throws {
        let inputs = (0..<4).map { _ in Promise<Int>.pending() }
        let settled = allSettled(inputs.map(\.promise))
        inputs[2].resolver.reject(SampleError(tag: 2))
        inputs[0].resolver.fulfill(0)
        inputs[3].promise.cancel()
        #expect(settled.isPending)
        inputs[1].resolver.fulfill(10)
        let outcomes = try awaitPromise(settled, timeout: .seconds(5))
        #expect(outcomes.count == 4)
        #expect(try outcomes[0].get() == 0)
        #expect(try outcomes[1].get() == 10)
        #expect(outcomes[2].failureValue as? SampleError == SampleError(tag: 2))
        #expect(outcomes[3].failureValue is CancellationError)
    }

    @Test func everyInputRejectedStillFulfils() throws {
        let outcomes = try awaitPromise(allSettled([Promise<Int>(SampleError(tag: 1)), Promise<Int>(SampleError(tag: 2))]))
        #expect(outcomes.map { ($0.failureValue as? SampleError)?.tag } == [1, 2])
        #expect(try awaitPromise(allSettled([Promise<Int>]())).isEmpty)
    }

    @Test func theVariadicFormGivesATupleOfOutcomes() throws {
        let (number, numberResolver) = Promise<Int>.pending()
        let text = Promise<String>(SampleError(tag: 7))
        let settled = allSettled(number, text, Promise(true))
        numberResolver.fulfill(3)
        let (n, t, flag) = try awaitPromise(settled, timeout: .seconds(5))
        #expect(try n.get() == 3)
        #expect(t.failureValue as? SampleError == SampleError(tag: 7))
        #expect(try flag.get())
    }

    @Test func cancellingWithdrawsFromThePendingInputs() {
        let (a, aResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(aResolver) {} }
        let (b, bResolver) = Promise<String>.pending()
        defer { withExtendedLifetime(bResolver) {} }
        let settled = allSettled(a, b)
        let (other, otherResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(otherResolver) {} }
        let array = allSettled([other, a])
        array.cancel()
        #expect(!a.isCancelled, "a is still wanted by the variadic allSettled")
        settled.cancel()
        #expect(a.isCancelled && b.isCancelled)
    }
}

@Suite struct VariadicAnyTests {
    @Test func fulfilsWithTheOutcomesUnlessEveryInputRejects() throws {
        let (n, t) = try awaitPromise(any(Promise<Int>(SampleError(tag: 1)), Promise("ok")))
        #expect(n.failureValue as? SampleError == SampleError(tag: 1))
        #expect(try t.get() == "ok")
        let allFailed = any(Promise<Int>(SampleError(tag: 1)), Promise<String>(SampleError(tag: 2)))
        #expect(outcome(of: allFailed).failureValue as? SampleError == SampleError(tag: 1))
    }

    @Test func cancellingWithdrawsFromThePendingInputs() {
        let (a, aResolver) = Promise<Int>.pending()
        let (b, bResolver) = Promise<Double>.pending()
        defer { withExtendedLifetime(bResolver) {} }
        let combined = any(a, b)
        aResolver.fulfill(1)
        combined.cancel()
        #expect(b.isCancelled)
        #expect(a.value == 1)
    }
}

@Suite struct RaceFulfilledTests {
    @Test func aRejectionDoesNotEndTheRace() {
        let (fastFailure, fastFailureResolver) = Promise<Int>.pending()
        let (slowSuccess, slowSuccessResolver) = Promise<Int>.pending()
        let (loser, loserResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(loserResolver) {} }
        let winner = race(fulfilled: [fastFailure, slowSuccess, loser])
        fastFailureResolver.reject(SampleError(tag: 1))
        #expect(winner.isPending)
        slowSuccessResolver.fulfill(2)
        #expect(winner.value == 2)
        #expect(loser.isCancelled, "the race withdraws from the inputs still running")
    }

    @Test func rejectsWithTheFirstInputsErrorWhenAllReject() {
        let (a, aResolver) = Promise<Int>.pending()
        let (b, bResolver) = Promise<Int>.pending()
        let result = race(fulfilled: [a, b])
        bResolver.reject(SampleError(tag: 2))
        aResolver.reject(SampleError(tag: 1))
        #expect(result.error as? SampleError == SampleError(tag: 1))
    }

    @Test func anEmptyRaceRejectsAndCancellingWithdraws() {
        let empty = race(fulfilled: [Promise<Int>]())
        #expect((empty.error as? PromiseError)?.code == .invalidArgument)
        let (a, aResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(aResolver) {} }
        let result = race(fulfilled: [a])
        result.cancel()
        #expect(a.isCancelled)
    }
}

@Suite struct StaticCombinatorTests {
    @Test func theStaticFormsMatchTheFreeFunctions() throws {
        let tuple = try awaitPromise(Promise.all(Promise(1), Promise("two")))
        #expect(tuple.0 == 1 && tuple.1 == "two")
        #expect(try awaitPromise(Promise.all([Promise(1), Promise(2)])) == [1, 2])
        #expect(try awaitPromise(Promise.any([Promise(1), Promise<Int>(SampleError())])).count == 2)
        let (first, second) = try awaitPromise(Promise.any(Promise(1), Promise<String>(SampleError())))
        #expect(try first.get() == 1 && second.failureValue is SampleError)
        #expect(try awaitPromise(Promise.allSettled([Promise<Int>(SampleError())])).count == 1)
        let (settled, _) = try awaitPromise(Promise.allSettled(Promise(1), Promise(2.5)))
        #expect(try settled.get() == 1)
        let (pending, pendingResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(pendingResolver) {} }
        #expect(try awaitPromise(Promise.race([pending, Promise(3)])) == 3)
        #expect(try awaitPromise(Promise.race(fulfilled: [Promise<Int>(SampleError()), Promise(4)])) == 4)
    }
}

@Suite struct MapSettledTests {
    @Test func goesOnAfterAFailureAndKeepsEveryOutcomeInOrder() throws {
        let context = ManualContext()
        let running = Counter()
        let most = Recorder<Int>()
        let pending = (0..<6).map { _ in Promise<Int>.pending() }
        let work = pending.map(\.promise)
        let started = Recorder<Int>()
        let result = Promise<Int>.mapSettled(on: context, 0..<6, concurrency: 2) { item -> Promise<Int> in
            started.append(item)
            if item == 4 { throw SampleError(tag: 4) }
            most.append(running.increment())
            return work[item].always(on: .inline) { running.decrement() }
        }
        context.runUntilIdle()
        #expect(started.events == [0, 1])
        pending[0].resolver.reject(SampleError(tag: 0))
        context.runUntilIdle()
        #expect(started.events == [0, 1, 2], "a failure starts the next item")
        for index in [1, 2, 3, 5] {
            pending[index].resolver.fulfill(index * 10)
            context.runUntilIdle()
        }
        let outcomes = try awaitPromise(result, timeout: .seconds(5))
        #expect(outcomes.count == 6)
        #expect(outcomes[0].failureValue as? SampleError == SampleError(tag: 0))
        #expect(outcomes[4].failureValue as? SampleError == SampleError(tag: 4))
        #expect(outcomes.compactMap { try? $0.get() } == [10, 20, 30, 50])
        #expect(most.events.max() ?? 0 <= 2)
    }

    @Test func cancellingStopsStartingAndWithdrawsFromRunningWork() {
        let context = ManualContext()
        let pending = (0..<4).map { _ in Promise<Int>.pending() }
        let work = pending.map(\.promise)
        let started = Counter()
        let result = Promise<Int>.mapSettled(on: context, 0..<4, concurrency: 2) { item in
            started.increment()
            return work[item]
        }
        context.runUntilIdle()
        result.cancel()
        context.runUntilIdle()
        #expect(work[0].isCancelled && work[1].isCancelled)
        #expect(started.value == 2)
        #expect(result.isCancelled)
    }

    @Test func aBadLimitRejects() {
        let result = Promise<Int>.mapSettled([1], concurrency: 0) { Promise($0) }
        #expect((outcome(of: result).failureValue as? PromiseError)?.code == .invalidArgument)
    }
}
