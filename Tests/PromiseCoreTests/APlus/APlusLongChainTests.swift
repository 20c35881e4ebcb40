import Dispatch
import PromiseCore
import PromiseTesting
import Testing

/// DESIGN.md, "The core model": long chains are drained in a loop, not by recursion, so a
/// 100 000-link chain resolves without overflowing the stack.
@Suite("A+ long chains: 100 000 links (10 000 under TSan)")
struct APlusLongChainTests {
    /// 10 000 under ThreadSanitizer, which is about 10x slower (see `aplusUnderThreadSanitizer`).
    static let links = aplusUnderThreadSanitizer ? 10_000 : 100_000
    /// For the extra variants: deep enough to overflow a thread stack if delivery recursed,
    /// short enough to keep each test well under a second in debug builds.
    static let shorterLinks = aplusUnderThreadSanitizer ? 5_000 : 30_000

    @Test("100 000 thens on a real serial queue, built on a pending promise, then fulfilled")
    func longChainOnSerialQueue() throws {
        let queue = DispatchQueue(label: "aplus.long-chain")
        let (root, rootResolver) = Promise<Int>.pending()
        var last = root
        for _ in 0..<Self.links {
            last = last.then(on: queue) { $0 + 1 }
        }
        #expect(last.isPending)
        rootResolver.fulfill(0)
        // The bound only stops a broken drain from hanging the run: 100 000 callbacks on a
        // serial queue take seconds under AddressSanitizer on a busy machine.
        #expect(try awaitPromise(last, timeout: .seconds(120)) == Self.links)
    }

    @Test("100 000 thens on a manual context, built on a pending promise, then fulfilled")
    func longChainOnManualContext() {
        let context = ManualContext()
        let (root, rootResolver) = Promise<Int>.pending()
        var last = root
        for _ in 0..<Self.links {
            last = last.then(on: context) { $0 + 1 }
        }
        rootResolver.fulfill(0)
        #expect(last.isPending)
        context.runUntilIdle()
        #expect(last.value == Self.links)
    }

    @Test("100 000 thens on the inline context, built on a pending promise: fulfil resolves the end")
    func longChainOnInlineContext() {
        let (root, rootResolver) = Promise<Int>.pending()
        var last = root
        for _ in 0..<Self.links {
            last = last.then(on: .inline) { $0 + 1 }
        }
        #expect(last.isPending)
        rootResolver.fulfill(0)
        #expect(last.value == Self.links)
    }

    @Test("a rejection passes through 30 000 thens on a pending chain to the end")
    func longChainRejection() throws {
        let queue = DispatchQueue(label: "aplus.long-chain.reject")
        let (root, rootResolver) = Promise<Int>.pending()
        let ran = APlusRecorder<Int>()
        var last = root
        for _ in 0..<Self.shorterLinks {
            last = last.then(on: queue) { (value: Int) -> Int in
                ran.record(value)
                return value + 1
            }
        }
        rootResolver.reject(APlusError(9))
        let error = #expect(throws: APlusError.self) { try awaitPromise(last, timeout: .seconds(120)) }
        #expect(error == APlusError(9))
        #expect(ran.count == 0)
    }

    @Test("30 000 alternating then/recover links on the inline context keep the right value")
    func longMixedChainOnInlineContext() {
        let (root, rootResolver) = Promise<Int>.pending()
        var last = root
        for index in 0..<Self.shorterLinks {
            if index % 2 == 0 {
                last = last.then(on: .inline) { (value: Int) throws -> Int in
                    if value % 1000 == 999 { throw APlusError(value) }
                    return value + 1
                }
            } else {
                last = last.recover(on: .inline) { error in ((error as? APlusError)?.id ?? -1_000_000) + 1 }
            }
        }
        rootResolver.fulfill(0)
        #expect(last.value == Self.shorterLinks / 2)
    }

    @Test("a 30 000-link pending chain whose root is dropped: the end is rejected with brokenPromise")
    func droppedRootBreaksALongChain() {
        var last: Promise<APlusBrokenChainMarker>
        do {
            let (root, rootResolver) = Promise<APlusBrokenChainMarker>.pending()
            defer { withExtendedLifetime(rootResolver) {} }
            last = root
            for _ in 0..<Self.shorterLinks {
                last = last.then(on: .inline) { $0 }
            }
            #expect(last.isPending)
        }
        // The root was only held by `root`; dropping it must not leave `last` pending forever
        // (DESIGN.md, "Nothing hangs silently"), nor overflow the stack while rejecting the chain.
        #expect(last.promiseErrorCode == .brokenPromise)
    }
}

/// The value type of the dropped chain, so its one broken-promise report names this test.
struct APlusBrokenChainMarker: Sendable {}
