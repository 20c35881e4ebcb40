import Dispatch
import PromiseCore
import Testing

/// README-style snippets written without closure types: they must compile and pick the
/// overload a reader expects.
///
/// The test is `async` because it waits for a Task-backed promise: blocking a cooperative
/// thread in `awaitPromise` while that task needs the pool can deadlock a 2-core machine.
@Suite struct InferenceTests {
    @Test func thenOverloadsPickTheExpectedShape() async throws {
        let start = Promise(20)
        let mapped = start.then { $0 + 1 }
        let flat = start.then { value in Promise(value * 2) }
        let passthrough = start.then { value in print("got", value) }
        let multi = start.then { value in
            let doubled = value * 2
            return String(doubled)
        }
        #expect(try await mapped.get() == 21)
        #expect(try await flat.get() == 40)
        #expect(try await passthrough.get() == 20)
        #expect(try await multi.get() == "40")
        let inline = start.then(on: .inline) { $0 + 1 }
        #expect(inline.value == 21)
        let fromDo = Promise { 42 }
        #expect(try await fromDo.get() == 42)
        let fromAsync = Promise { () async throws -> Int in 7 }
        #expect(try await fromAsync.get() == 7)
        let recovered = Promise<Int>(SampleError()).recover { _ in 0 }
        #expect(try await recovered.get() == 0)
        let both = all(Promise(1), Promise("two"), Promise(3.0))
        let tuple = try await both.get()
        #expect(tuple.0 == 1 && tuple.1 == "two" && tuple.2 == 3.0)
        let settled = any([Promise(1), Promise<Int>(SampleError())])
        #expect(try await settled.get().count == 2)
    }
}

/// The one-form names and the initializer shapes the type-checking table lists.
@Suite struct OneFormNameTests {
    @Test func mapFlatMapAndDoneKeepTheirOneMeaning() async throws {
        let seen = Recorder<Int>()
        let start = Promise(1)
        let chain = start.map { $0 + 1 }.flatMap { Promise($0 * 10) }.done { seen.append($0) }.map { $0 - 3 }
        #expect(try await chain.get() == 17)
        #expect(seen.events == [20])
        let kept = Promise(5).done { _ in Counter().increment() }
        #expect(try await kept.get() == 5)
        let nested = Promise(2).map { Promise($0) }
        #expect(try await nested.get().get() == 2)
    }

    @Test func oneFormNamesPassRejectionsAndRespectContexts() async throws {
        let queue = TaggedQueue("one-form")
        let ranOnQueue = Recorder<Bool>()
        let failed = Promise<Int>(SampleError(tag: 1)).map { _ in Issue.record("map ran on a rejection") }
        #expect(throws: SampleError(tag: 1)) { try awaitPromise(failed, timeout: .seconds(5)) }
        let thrown = Promise(1).flatMap { _ -> Promise<Int> in throw SampleError(tag: 2) }
        #expect(throws: SampleError(tag: 2)) { try awaitPromise(thrown, timeout: .seconds(5)) }
        let hopped = Promise(1).map(on: queue.queue) { value -> Int in
            ranOnQueue.append(queue.isCurrent)
            return value
        }
        #expect(try await hopped.get() == 1)
        #expect(ranOnQueue.events == [true])
    }

    @Test func flatMapErrorContinuesWithAnotherAttemptAndSkipsCancellation() async throws {
        let recovered = Promise<Int>(SampleError()).flatMapError { _ in Promise(9) }
        #expect(try await recovered.get() == 9)
        let (cancelled, cancelledResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(cancelledResolver) {} }
        let guarded = cancelled.flatMapError { _ in Promise(1) }
        cancelled.cancel()
        #expect(throws: CancellationError.self) { try awaitPromise(guarded, timeout: .seconds(5)) }
        let seesAll = Promise<Int>(CancellationError()).flatMapError(policy: .allErrors) { _ in Promise(3) }
        #expect(try await seesAll.get() == 3)
    }

    @Test func initializerShapesNeedNoAnnotation() async throws {
        let adopted = Promise { Promise(4) }
        #expect(try await adopted.get() == 4)
        let computed = Promise { 42 }
        #expect(try await computed.get() == 42)
        let thrown = Promise<Int> { throw SampleError(tag: 3) }
        #expect(throws: SampleError(tag: 3)) { try awaitPromise(thrown, timeout: .seconds(5)) }
        let (ofError, ofErrorResolver) = Promise<any Error>.pending()
        ofErrorResolver.reject(SampleError(tag: 4))
        #expect(ofError.isRejected)
        let rejected = Promise<Int>(SampleError(tag: 4))
        #expect(rejected.isRejected)
        let anyError: any Error = SampleError(tag: 7)
        #expect(Promise(anyError).value != nil)
        let lifted = Promise(1).map { $0 + 1 }.flatMap { Promise($0 * 2) }.map { $0 - 3 }
        #expect(try await lifted.get() == 1)
        let (fulfilledWithError, fulfilledWithErrorResolver) = Promise<any Error>.pending()
        fulfilledWithErrorResolver.fulfill(SampleError(tag: 5))
        #expect((fulfilledWithError.value as? SampleError) == SampleError(tag: 5))
        let untyped = Promise(SampleError(tag: 6))
        #expect(untyped.value == SampleError(tag: 6))
    }
}
