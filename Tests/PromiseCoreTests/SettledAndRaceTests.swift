import PromiseCore
import PromiseTesting
import Testing

@Suite struct AllSettledTests {
    @Test func fulfilsWithEveryOutcomeInInputOrderAndNeverRejects() throws {
        let inputs = (0..<4).map { _ in Promise<Int>.pending() }
        let settled = allSettled(inputs)
        inputs[2].reject(SampleError(tag: 2))
        inputs[0].fulfill(0)
        inputs[3].cancel()
        #expect(settled.isPending)
        inputs[1].fulfill(10)
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
        let number = Promise<Int>.pending()
        let text = Promise<String>(SampleError(tag: 7))
        let settled = allSettled(number, text, Promise(true))
        number.fulfill(3)
        let (n, t, flag) = try awaitPromise(settled, timeout: .seconds(5))
        #expect(try n.get() == 3)
        #expect(t.failureValue as? SampleError == SampleError(tag: 7))
        #expect(try flag.get())
    }

    @Test func cancellingWithdrawsFromThePendingInputs() {
        let a = Promise<Int>.pending()
        let b = Promise<String>.pending()
        let settled = allSettled(a, b)
        let array = allSettled([Promise<Int>.pending(), a])
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
        let a = Promise<Int>.pending()
        let b = Promise<Double>.pending()
        let combined = any(a, b)
        a.fulfill(1)
        combined.cancel()
        #expect(b.isCancelled)
        #expect(a.value == 1)
    }
}

@Suite struct RaceFulfilledTests {
    @Test func aRejectionDoesNotEndTheRace() {
        let fastFailure = Promise<Int>.pending()
        let slowSuccess = Promise<Int>.pending()
        let loser = Promise<Int>.pending()
        let winner = race(fulfilled: [fastFailure, slowSuccess, loser])
        fastFailure.reject(SampleError(tag: 1))
        #expect(winner.isPending)
        slowSuccess.fulfill(2)
        #expect(winner.value == 2)
        #expect(loser.isCancelled, "the race withdraws from the inputs still running")
    }

    @Test func rejectsWithTheFirstInputsErrorWhenAllReject() {
        let a = Promise<Int>.pending()
        let b = Promise<Int>.pending()
        let result = race(fulfilled: [a, b])
        b.reject(SampleError(tag: 2))
        a.reject(SampleError(tag: 1))
        #expect(result.error as? SampleError == SampleError(tag: 1))
    }

    @Test func anEmptyRaceRejectsAndCancellingWithdraws() {
        let empty = race(fulfilled: [Promise<Int>]())
        #expect((empty.error as? PromiseError)?.code == .invalidArgument)
        let a = Promise<Int>.pending()
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
        let pending = Promise<Int>.pending()
        #expect(try awaitPromise(Promise.race([pending, Promise(3)])) == 3)
        #expect(try awaitPromise(Promise.race(fulfilled: [Promise<Int>(SampleError()), Promise(4)])) == 4)
    }
}

@Suite struct MapSettledTests {
    @Test func goesOnAfterAFailureAndKeepsEveryOutcomeInOrder() throws {
        let context = ManualContext()
        let running = Counter()
        let most = Recorder<Int>()
        let work = (0..<6).map { _ in Promise<Int>.pending() }
        let started = Recorder<Int>()
        let result = Promise<Int>.mapSettled(on: context, 0..<6, concurrency: 2) { item -> Promise<Int> in
            started.append(item)
            if item == 4 { throw SampleError(tag: 4) }
            most.append(running.increment())
            return work[item].always(on: .inline) { running.decrement() }
        }
        context.runUntilIdle()
        #expect(started.events == [0, 1])
        work[0].reject(SampleError(tag: 0))
        context.runUntilIdle()
        #expect(started.events == [0, 1, 2], "a failure starts the next item")
        for index in [1, 2, 3, 5] {
            work[index].fulfill(index * 10)
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
        let work = (0..<4).map { _ in Promise<Int>.pending() }
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
