import Dispatch
import PromiseCore
import PromiseTesting
import Testing

/// Promises/A+ 2.3: the resolution procedure, for the promises a callback returns.
/// 2.3.3 (foreign thenables) has no Swift equivalent: only `Promise` values are adopted.
@Suite("A+ 2.3 the promise resolution procedure")
struct APlus2_3_ResolutionTests {
    // MARK: 2.3.1 resolving a promise with itself

    @Test("2.3.1 then's callback returning the promise then returned: rejects with chainingCycle")
    func thenReturningItselfRejects() {
        let context = ManualContext()
        let (source, sourceResolver) = Promise<Int>.pending()
        let box = APlusPromiseBox<Int>()
        let promise = source.then(on: context) { (_: Int) -> Promise<Int> in box.promise! }
        box.promise = promise
        sourceResolver.fulfill(1)
        context.runUntilIdle()
        #expect(promise.isRejected)
        #expect(promise.promiseErrorCode == .chainingCycle)
    }

    @Test("2.3.1 recover's callback returning the promise recover returned: rejects with chainingCycle")
    func recoverReturningItselfRejects() {
        let context = ManualContext()
        let (source, sourceResolver) = Promise<Int>.pending()
        let box = APlusPromiseBox<Int>()
        let promise = source.recover(on: context) { (_: any Error) -> Promise<Int> in box.promise! }
        box.promise = promise
        sourceResolver.reject(APlusError(1))
        context.runUntilIdle()
        #expect(promise.promiseErrorCode == .chainingCycle)
    }

    @Test("2.3.1 a promise-returning initialiser returning the promise itself: rejects with chainingCycle")
    func initialiserReturningItselfRejects() {
        let context = ManualContext()
        let box = APlusPromiseBox<Int>()
        let promise = Promise<Int>(on: context) { () -> Promise<Int> in box.promise! }
        box.promise = promise
        context.runUntilIdle()
        #expect(promise.promiseErrorCode == .chainingCycle)
    }

    @Test("2.3.1 on the inline context: resolving with itself rejects with chainingCycle")
    func inlineSelfResolutionRejects() {
        let (source, sourceResolver) = Promise<Int>.pending()
        let box = APlusPromiseBox<Int>()
        let promise = source.then(on: .inline) { (_: Int) -> Promise<Int> in box.promise! }
        box.promise = promise
        sourceResolver.fulfill(1)
        #expect(promise.promiseErrorCode == .chainingCycle)
    }

    @Test("2.3.1 on a real queue: a self-resolved promise fails awaitPromise with chainingCycle, not a timeout")
    func selfResolutionDoesNotHangOnARealQueue() {
        let queue = DispatchQueue(label: "aplus.2.3.1")
        let (source, sourceResolver) = Promise<Int>.pending()
        let box = APlusPromiseBox<Int>()
        let promise = source.then(on: queue) { (_: Int) -> Promise<Int> in box.promise! }
        box.promise = promise
        sourceResolver.fulfill(1)
        let error = #expect(throws: PromiseError.self) { try awaitPromise(promise, timeout: .seconds(5)) }
        #expect(error?.code == .chainingCycle)
    }

    // MARK: 2.3.2 adopting a promise's state

    @Test("2.3.2.1 adopting a pending promise: stays pending until it settles, then fulfils with its value")
    func adoptingPendingThenFulfilled() {
        let context = ManualContext()
        let token = APlusToken(1)
        let (inner, innerResolver) = Promise<APlusToken>.pending()
        let promise = Promise(0).then(on: context) { (_: Int) in inner }
        context.runUntilIdle()
        #expect(promise.isPending)
        innerResolver.fulfill(token)
        context.runUntilIdle()
        #expect(promise.value === token)
    }

    @Test("2.3.2.1 adopting a pending promise: rejects with its reason when it rejects")
    func adoptingPendingThenRejected() {
        let context = ManualContext()
        let (inner, innerResolver) = Promise<Int>.pending()
        let promise = Promise(0).then(on: context) { (_: Int) in inner }
        context.runUntilIdle()
        #expect(promise.isPending)
        innerResolver.reject(APlusError(2))
        context.runUntilIdle()
        #expect(promise.aplusError == APlusError(2))
    }

    @Test("2.3.2.1 adopting a pending promise that is then cancelled: cancelled too")
    func adoptingPendingThenCancelled() {
        let context = ManualContext()
        let (inner, innerResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(innerResolver) {} }
        let promise = Promise(0).then(on: context) { (_: Int) in inner }
        context.runUntilIdle()
        inner.cancel()
        context.runUntilIdle()
        #expect(promise.isCancelled)
    }

    @Test("2.3.2.2 adopting an already fulfilled promise: fulfils with the same value")
    func adoptingFulfilled() {
        let context = ManualContext()
        let token = APlusToken(3)
        let inner = Promise(token)
        let promise = Promise(0).then(on: context) { (_: Int) in inner }
        context.runUntilIdle()
        #expect(promise.value === token)
    }

    @Test("2.3.2.3 adopting an already rejected promise: rejects with the same reason")
    func adoptingRejected() {
        let context = ManualContext()
        let inner = Promise<Int>(APlusError(4))
        let promise = Promise(0).then(on: context) { (_: Int) in inner }
        context.runUntilIdle()
        #expect(promise.aplusError == APlusError(4))
    }

    @Test("2.3.2 adopting the source promise itself (not a cycle): fulfils with its value")
    func adoptingTheSourceIsNotACycle() {
        let context = ManualContext()
        let (source, sourceResolver) = Promise<Int>.pending()
        let promise = source.then(on: context) { (_: Int) in source }
        sourceResolver.fulfill(5)
        context.runUntilIdle()
        #expect(promise.value == 5)
    }

    @Test("2.3.2 adopting a promise settled on another thread")
    func adoptingAcrossThreads() throws {
        let queue = DispatchQueue(label: "aplus.2.3.2")
        let other = DispatchQueue(label: "aplus.2.3.2.other")
        let (inner, innerResolver) = Promise<Int>.pending()
        let promise = Promise(0).then(on: queue) { (_: Int) in inner }
        other.async { innerResolver.fulfill(6) }
        #expect(try awaitPromise(promise, timeout: .seconds(5)) == 6)
    }

    @Test("2.3.2 deep adoption: 10 000 nested promise-returning steps resolve with the innermost value")
    func deepRecursiveAdoption() {
        let context = ManualContext()
        @Sendable func countdown(_ n: Int) -> Promise<Int> {
            if n == 0 { return Promise(on: context) { 42 } }
            return Promise(n).then(on: context) { (value: Int) in countdown(value - 1) }
        }
        let promise = countdown(aplusUnderThreadSanitizer ? 2_000 : 10_000)
        context.runUntilIdle()
        #expect(promise.value == 42)
    }

    @Test("2.3.2 deep adoption: 30 000 promises each adopting the next, fulfilled from the far end")
    func deepAdoptionChainFulfilled() {
        let (leaf, top) = Self.adoptionChain(length: Self.adoptionDepth)
        #expect(top.isPending)
        leaf.fulfill(7)
        #expect(top.value == 7)
    }

    @Test("2.3.2 deep adoption: 30 000 promises each adopting the next, rejected from the far end")
    func deepAdoptionChainRejected() {
        let (leaf, top) = Self.adoptionChain(length: Self.adoptionDepth)
        #expect(top.isPending)
        leaf.reject(APlusError(8))
        #expect(top.aplusError == APlusError(8))
    }

    /// 5 000 under ThreadSanitizer, which is about 10x slower.
    private static let adoptionDepth = aplusUnderThreadSanitizer ? 5_000 : 30_000

    /// `top` adopts a promise that adopts a promise … that adopts `leaf` (inline, so settling
    /// `leaf` settles `top` before it returns).
    private static func adoptionChain(length: Int) -> (leaf: PromiseResolver<Int>, top: Promise<Int>) {
        let (leaf, leafResolver) = Promise<Int>.pending()
        var current = leaf
        for _ in 0..<length {
            let inner = current
            current = Promise(0).then(on: .inline) { (_: Int) in inner }
        }
        return (leafResolver, current)
    }
}
