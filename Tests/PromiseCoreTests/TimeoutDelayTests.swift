import PromiseCore
import PromiseTesting
import Testing

@Suite struct TimeoutDelayTests {
    @Test func timeoutRejectsAPendingPromiseAndCancelsIt() throws {
        let context = ManualContext()
        let (source, sourceResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(sourceResolver) {} }
        let stopped = Counter()
        source.onCancel { stopped.increment() }
        let limited = source.timeout(on: context, .seconds(2))
        context.advance(by: .seconds(1))
        #expect(limited.isPending)
        context.advance(by: .seconds(1))
        let error = try #require(limited.error as? PromiseError)
        #expect(error.code == .timedOut)
        #expect(source.isCancelled)
        #expect(stopped.value == 1)
    }

    @Test func aTimeoutsLabelNamesWhatTimedOut() throws {
        let context = ManualContext()
        let sources = (Promise<Int>.pending(), Promise<Int>.pending())
        let labelled = sources.0.promise.timeout(on: context, .seconds(2), label: "GET /users/7")
        let plain = sources.1.promise.timeout(on: context, .seconds(2))
        context.advance(by: .seconds(2))
        let error = try #require(labelled.error as? PromiseError)
        #expect(error.code == .timedOut)
        #expect(error.message.hasPrefix("GET /users/7: still pending after 2.0 seconds"))
        #expect(error.description.contains("GET /users/7"))
        let unlabelled = try #require(plain.error as? PromiseError)
        #expect(unlabelled.message.hasPrefix("still pending after 2.0 seconds"))
        withExtendedLifetime(sources) {}
    }

    @Test func timeoutPassesAValueThatArrivesInTimeAndStopsItsTimer() {
        let context = ManualContext()
        let (source, sourceResolver) = Promise<Int>.pending()
        let limited = source.timeout(on: context, .seconds(2))
        sourceResolver.fulfill(9)
        #expect(limited.value == 9)
        #expect(context.pendingTimerCount == 0)
    }

    @Test func timeoutDoesNotCancelASourceOthersStillWaitFor() {
        let context = ManualContext()
        let (source, sourceResolver) = Promise<Int>.pending()
        let other = source.then(on: .inline) { $0 }
        let limited = source.timeout(on: context, .seconds(1))
        context.advance(by: .seconds(1))
        #expect((limited.error as? PromiseError)?.code == .timedOut)
        #expect(source.isPending)
        sourceResolver.fulfill(1)
        #expect(other.value == 1)
    }

    @Test func aTimeoutThatCancelsItsSourceSaysTheWorkWasToldToStop() throws {
        let context = ManualContext()
        let (source, sourceResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(sourceResolver) {} }
        let stopped = Counter()
        source.onCancel { stopped.increment() }
        let limited = source.timeout(on: context, .seconds(1), label: "backup")
        context.advance(by: .seconds(1))
        let error = try #require(limited.error as? PromiseError)
        #expect(error.message == "backup: still pending after 1.0 seconds; the work behind it was told to stop")
        #expect(source.isCancelled)
        #expect(stopped.value == 1)
    }

    @Test func aTimeoutWhoseSourceOthersWaitForSaysTheWorkGoesOn() throws {
        let context = ManualContext()
        let (source, sourceResolver) = Promise<Int>.pending()
        let stopped = Counter()
        source.onCancel { stopped.increment() }
        let first = source.then(on: .inline) { $0 }
        let second = source.then(on: .inline) { $0 * 2 }
        let limited = source.timeout(on: context, .seconds(1))
        context.advance(by: .seconds(1))
        let error = try #require(limited.error as? PromiseError)
        #expect(
            error.message == "still pending after 1.0 seconds; the work behind it goes on, because 2 other consumers still wait for it")
        #expect(source.isPending)
        #expect(stopped.value == 0)
        sourceResolver.fulfill(4)
        #expect(first.value == 4)
        #expect(second.value == 8)
        #expect(limited.error as? PromiseError == error, "the value that came late does not replace the time-out")
    }

    @Test func aTimedOutConsumerStillCountsAsWithdrawnWhenTheOthersGo() throws {
        let context = ManualContext()
        let (source, sourceResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(sourceResolver) {} }
        let stopped = Counter()
        source.onCancel { stopped.increment() }
        let other = source.then(on: .inline) { $0 }
        let limited = source.timeout(on: context, .seconds(1))
        context.advance(by: .seconds(1))
        let error = try #require(limited.error as? PromiseError)
        #expect(error.message.hasSuffix("goes on, because 1 other consumer still waits for it"))
        #expect(source.isPending)
        other.cancel()
        #expect(source.isCancelled, "the last consumer's withdrawal cancels the source")
        #expect(stopped.value == 1)
    }

    @Test func twoTimeoutsOnOneSourceTellEachWhatTheirWithdrawalDid() throws {
        let context = ManualContext()
        let (source, sourceResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(sourceResolver) {} }
        let short = source.timeout(on: context, .seconds(1))
        let long = source.timeout(on: context, .seconds(2))
        context.advance(by: .seconds(1))
        #expect((short.error as? PromiseError)?.message.hasSuffix("because 1 other consumer still waits for it") == true)
        #expect(source.isPending)
        context.advance(by: .seconds(1))
        #expect((long.error as? PromiseError)?.message.hasSuffix("the work behind it was told to stop") == true)
        #expect(source.isCancelled)
        #expect(context.pendingTimerCount == 0)
    }

    @Test func aTimeoutOfZeroOnASettledSourcePassesTheValue() {
        let context = ManualContext()
        let limited = Promise(5).timeout(on: context, .zero)
        context.advance(by: .zero)
        #expect(limited.value == 5)
        #expect(context.pendingTimerCount == 0)
    }

    @Test func cancellingATimeoutStopsTheTimer() {
        let context = ManualContext()
        let (source, sourceResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(sourceResolver) {} }
        let limited = source.timeout(on: context, .seconds(1))
        limited.cancel()
        #expect(context.pendingTimerCount == 0)
        #expect(limited.isCancelled)
        #expect(source.isCancelled)
    }

    @Test func timeoutOnARealQueueFires() {
        let (source, sourceResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(sourceResolver) {} }
        let limited = source.timeout(.milliseconds(20))
        #expect((outcome(of: limited).failureValue as? PromiseError)?.code == .timedOut)
        #expect(source.isCancelled)
    }

    @Test func delayHoldsTheValueBack() {
        let context = ManualContext()
        let delayed = Promise(3).delay(on: context, .milliseconds(500))
        context.advance(by: .milliseconds(499))
        #expect(delayed.isPending)
        context.advance(by: .milliseconds(1))
        #expect(delayed.value == 3)
    }

    @Test func delayPassesARejectionAtOnce() {
        let context = ManualContext()
        let delayed = Promise<Int>(SampleError()).delay(on: context, .seconds(10))
        #expect(delayed.error is SampleError)
        #expect(context.pendingTimerCount == 0)
    }

    @Test func cancellingADelayStopsTheTimer() {
        let context = ManualContext()
        let delayed = Promise(3).delay(on: context, .seconds(1))
        #expect(context.pendingTimerCount == 1)
        delayed.cancel()
        #expect(context.pendingTimerCount == 0)
        context.advance(by: .seconds(2))
        #expect(delayed.isCancelled)
    }

    @Test func reduceFoldsInOrder() throws {
        let order = Recorder<Int>()
        let total = Promise(0).reduce([1, 2, 3, 4]) { partial, item in
            order.append(item)
            return Promise(partial * 10 + item)
        }
        #expect(try awaitPromise(total) == 1234)
        #expect(order.events == [1, 2, 3, 4])
    }

    @Test func reduceStopsAtTheFirstRejection() {
        let calls = Counter()
        let total = Promise(0).reduce([1, 2, 3]) { partial, item in
            calls.increment()
            return item == 2 ? Promise<Int>(SampleError(tag: item)) : Promise(partial + item)
        }
        #expect(outcome(of: total).failureValue as? SampleError == SampleError(tag: 2))
        #expect(calls.value == 2)
    }
}
