import Dispatch
import PromiseCore
import PromiseTesting
import Testing

/// Promises/A+ 2.2.7: `then` returns a promise, resolved by what the callback returns or throws.
@Suite("A+ 2.2.7 then returns a promise")
struct APlus2_2_7_ReturnedPromiseTests {
    @Test("2.2.7 every chaining call returns a new promise, also on a resolved source")
    func chainingReturnsNewPromises() {
        let context = ManualContext()
        let (pending, resolver) = Promise<Int>.pending()
        for source in [pending, Promise(1), Promise<Int>(APlusError(1))] {
            let derived: [Promise<Int>] = [
                source.then(on: context) { $0 },
                source.then(on: context) { (_: Int) in },
                source.then(on: context) { Promise($0) },
                source.catch(on: context) { _ in },
                source.recover(on: context) { _ in 0 },
                source.always(on: context) {},
            ]
            let ids = Set(derived.map(ObjectIdentifier.init) + [ObjectIdentifier(source)])
            #expect(ids.count == derived.count + 1)
            resolver.fulfill(2)
            context.runUntilIdle()
            for promise in derived { _ = promise.error }  // observed: no unhandled-rejection report
        }
    }

    @Test("2.2.7.1 a value returned from then's callback fulfils the returned promise")
    func returnedValueFulfils() {
        let context = ManualContext()
        let token = APlusToken(3)
        let (source, sourceResolver) = Promise<Int>.pending()
        let derived = source.then(on: context) { _ in token }
        sourceResolver.fulfill(1)
        #expect(derived.isPending)
        context.runUntilIdle()
        #expect(derived.value === token)
    }

    @Test("2.2.7.1 a value returned from recover's callback fulfils the returned promise")
    func recoveredValueFulfils() {
        let context = ManualContext()
        let (source, sourceResolver) = Promise<Int>.pending()
        let derived = source.recover(on: context) { error in ((error as? APlusError)?.id ?? 0) + 100 }
        sourceResolver.reject(APlusError(5))
        context.runUntilIdle()
        #expect(derived.value == 105)
    }

    @Test("2.2.7.2 an error thrown by then's callback rejects the returned promise with it")
    func thrownErrorFromThenRejects() {
        let context = ManualContext()
        let (source, sourceResolver) = Promise<Int>.pending()
        let mapped = source.then(on: context) { (_: Int) throws -> Int in throw APlusError(21) }
        let flat = source.then(on: context) { (_: Int) throws -> Promise<Int> in throw APlusError(22) }
        let void = source.then(on: context) { (_: Int) throws in throw APlusError(23) }
        sourceResolver.fulfill(1)
        context.runUntilIdle()
        #expect(mapped.aplusError == APlusError(21))
        #expect(flat.aplusError == APlusError(22))
        #expect(void.aplusError == APlusError(23))
    }

    @Test("2.2.7.2 an error thrown by recover's callback rejects the returned promise with it")
    func thrownErrorFromRecoverRejects() {
        let context = ManualContext()
        let (source, sourceResolver) = Promise<Int>.pending()
        let plain = source.recover(on: context) { (_: any Error) throws -> Int in throw APlusError(31) }
        let flat = source.recover(on: context) { (_: any Error) throws -> Promise<Int> in throw APlusError(32) }
        sourceResolver.reject(APlusError(30))
        context.runUntilIdle()
        #expect(plain.aplusError == APlusError(31))
        #expect(flat.aplusError == APlusError(32))
    }

    @Test("2.2.7.3 fulfilled source, only a rejection handler: the returned promise gets the same value")
    func fulfilledWithoutFulfilmentHandlerKeepsValue() {
        let context = ManualContext()
        let token = APlusToken(4)
        let (source, sourceResolver) = Promise<APlusToken>.pending()
        let caught = source.catch(on: context) { _ in }
        let recovered = source.recover(on: context) { _ in APlusToken(0) }
        sourceResolver.fulfill(token)
        context.runUntilIdle()
        #expect(caught.value === token)
        #expect(recovered.value === token)
    }

    @Test("2.2.7.4 rejected source, only a fulfilment handler: the returned promise gets the same reason")
    func rejectedWithoutRejectionHandlerKeepsReason() {
        let context = ManualContext()
        let (source, sourceResolver) = Promise<Int>.pending()
        let mapped = source.then(on: context) { $0 + 1 }
        let flat = source.then(on: context) { Promise($0 + 1) }
        sourceResolver.reject(APlusError(41))
        context.runUntilIdle()
        #expect(mapped.aplusError == APlusError(41))
        #expect(flat.aplusError == APlusError(41))
    }

    @Test("2.2.7.4 a cancelled source cancels the promise returned by then")
    func cancelledSourceCancelsDerived() {
        let context = ManualContext()
        let (source, sourceResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(sourceResolver) {} }
        let derived = source.then(on: context) { $0 + 1 }
        source.cancel()
        context.runUntilIdle()
        #expect(derived.isCancelled)
    }

    @Test("2.2.7.1 a promise returned from then's callback is adopted: fulfilled later")
    func returnedPromiseIsAdoptedFulfilled() {
        let context = ManualContext()
        let (inner, innerResolver) = Promise<String>.pending()
        let derived = Promise(1).then(on: context) { (_: Int) in inner }
        context.runUntilIdle()
        #expect(derived.isPending)
        innerResolver.fulfill("inner")
        context.runUntilIdle()
        #expect(derived.value == "inner")
    }

    @Test("2.2.7.1 a promise returned from then's callback is adopted: rejected later")
    func returnedPromiseIsAdoptedRejected() {
        let context = ManualContext()
        let (inner, innerResolver) = Promise<String>.pending()
        let derived = Promise(1).then(on: context) { (_: Int) in inner }
        context.runUntilIdle()
        #expect(derived.isPending)
        innerResolver.reject(APlusError(51))
        context.runUntilIdle()
        #expect(derived.aplusError == APlusError(51))
    }

    @Test("2.2.7.1 a promise returned from recover's callback is adopted")
    func promiseReturnedFromRecoverIsAdopted() {
        let context = ManualContext()
        let (inner, innerResolver) = Promise<Int>.pending()
        let derived = Promise<Int>(APlusError(1)).recover(on: context) { (_: any Error) in inner }
        context.runUntilIdle()
        #expect(derived.isPending)
        innerResolver.fulfill(61)
        context.runUntilIdle()
        #expect(derived.value == 61)
    }

    @Test("2.2.7 on real queues: values, thrown errors and returned promises resolve the derived promise")
    func realQueues() throws {
        let queue = DispatchQueue(label: "aplus.2.2.7")
        let other = DispatchQueue(label: "aplus.2.2.7.other")
        let (source, sourceResolver) = Promise<Int>.pending()
        let mapped = source.then(on: queue) { $0 * 2 }
        let thrown = source.then(on: queue) { (_: Int) throws -> Int in throw APlusError(71) }
        let adopted = source.then(on: queue) { value in Promise(on: other) { value + 100 } }
        sourceResolver.fulfill(7)
        #expect(try awaitPromise(mapped, timeout: .seconds(5)) == 14)
        #expect(try awaitPromise(adopted, timeout: .seconds(5)) == 107)
        let error = #expect(throws: APlusError.self) { try awaitPromise(thrown, timeout: .seconds(5)) }
        #expect(error == APlusError(71))
    }
}
