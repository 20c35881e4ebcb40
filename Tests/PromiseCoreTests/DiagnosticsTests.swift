import Dispatch
import PromiseCore
import PromiseTesting
import Testing

private struct BrokenMarker: Sendable {}
private struct UnhandledMarker: Sendable {}
private struct HandledMarker: Sendable {}
private struct QuietMarker: Sendable {}
private struct UnchainedMarker: Sendable {}
private struct DroppedClosuresMarker: Sendable {}

@Suite struct DiagnosticsTests {
    init() { DiagnosticsProbe.install }

    @Test func aDroppedPendingPromiseBreaksItsDependents() throws {
        var source: Promise<BrokenMarker>? = Promise<BrokenMarker>.pending(resolvedOn: nil)
        let dependent = source!.then(on: .inline) { _ in 1 }
        source = nil
        let error = try #require(outcome(of: dependent).failureValue as? PromiseError)
        #expect(error.code == .brokenPromise)
        #expect(error.message.contains("deallocated while pending"))
        #expect(DiagnosticsProbe.reports(about: BrokenMarker.self).contains { $0.kind == .brokenPromise })
    }

    /// MigrationGuide.md, "Nothing fails silently": a pending promise with nothing chained to
    /// it is deallocated without a report, since nothing waited for it.
    @Test func aDroppedPendingPromiseWithNothingChainedIsNotReported() {
        do {
            let unused = Promise<UnchainedMarker>.pending(resolvedOn: nil)
            #expect(unused.isPending)
        }
        #expect(DiagnosticsProbe.reports(about: UnchainedMarker.self).isEmpty)
    }

    /// MigrationGuide.md, "Nothing fails silently": closures released uncalled break the
    /// promise and report it, with nothing chained and while the promise is still held.
    @Test func droppedClosuresAreReportedWithNothingChained() throws {
        let promise = Promise<DroppedClosuresMarker> { _, _ in }
        let error = try #require(outcome(of: promise).failureValue as? PromiseError)
        #expect(error.code == .brokenPromise)
        let reports = DiagnosticsProbe.reports(about: DroppedClosuresMarker.self)
        #expect(reports.count == 1)
        #expect(reports.first?.kind == .brokenPromise)
    }

    @Test func fulfilAndRejectClosuresDroppedUnusedBreakThePromise() throws {
        let promise = Promise<Int> { _, _ in }
        let error = try #require(outcome(of: promise.then { $0 }).failureValue as? PromiseError)
        #expect(error.code == .brokenPromise)
        #expect(error.message.contains("fulfill and reject closures"))
    }

    @Test func aCompletionHandlerReleasedUncalledBreaksAWrappedPromise() throws {
        let wrapped = wrap { (_: @escaping @Sendable (Int) -> Void) in }
        let error = try #require(wrapped.error as? PromiseError)
        #expect(error.code == .brokenPromise)
    }

    @Test func anUnobservedRejectionIsReported() {
        do {
            _ = Promise<UnhandledMarker>(SampleError(tag: 77))
        }
        let reports = DiagnosticsProbe.reports(about: UnhandledMarker.self)
        #expect(reports.count == 1)
        #expect(reports.first?.kind == .unhandledRejection)
        #expect((reports.first?.error as? SampleError)?.tag == 77)
        #expect(reports.first?.description.contains("unhandled rejection of Promise<UnhandledMarker>") == true)
    }

    @Test func aHandledRejectionAndACancellationAreNotReported() {
        do {
            let handled = Promise<HandledMarker>(SampleError())
            _ = outcome(of: handled.catch(on: .inline) { _ in })
            let (cancelled, cancelledResolver) = Promise<QuietMarker>.pending()
            defer { withExtendedLifetime(cancelledResolver) {} }
            cancelled.cancel()
        }
        #expect(DiagnosticsProbe.reports(about: HandledMarker.self).isEmpty)
        #expect(DiagnosticsProbe.reports(about: QuietMarker.self).isEmpty)
    }

    @Test func aPromiseResolvedWithItselfRejects() throws {
        let (source, sourceResolver) = Promise<Int>.pending()
        let box = Recorder<Promise<Int>>()
        let looped = source.then(on: .inline) { _ in box.events[0] }
        box.append(looped)
        sourceResolver.fulfill(1)
        let error = try #require(looped.error as? PromiseError)
        #expect(error.code == .chainingCycle)
    }
}

@Suite struct AwaitPromiseTests {
    @Test func waitingOnTheContextThatMustResolveThrowsDeadlock() throws {
        let queue = DispatchQueue(label: "deadlock")
        let (source, sourceResolver) = Promise<Int>.pending()
        let step = source.then(on: queue) { $0 + 1 }
        let attempt = Promise(0).then(on: queue) { _ -> String in
            do {
                _ = try awaitPromise(step)
                return "returned"
            } catch let error as PromiseError {
                return "\(error.code)"
            }
        }
        #expect(try awaitPromise(attempt, timeout: .seconds(5)) == "deadlock")
        sourceResolver.fulfill(1)
        #expect(try awaitPromise(step, timeout: .seconds(5)) == 2)
    }

    @Test func waitingFromAPlainBlockOnTheDefaultQueueIsCaughtToo() throws {
        let (source, sourceResolver) = Promise<Int>.pending()
        let step = source.then { $0 + 1 }
        let (answer, answerResolver) = Promise<String>.pending()
        Promises.defaultQueue.async {
            do {
                _ = try awaitPromise(step)
                answerResolver.fulfill("returned")
            } catch {
                answerResolver.fulfill("\(error)")
            }
        }
        #expect(try awaitPromise(answer, timeout: .seconds(5)).contains("deadlock"))
        sourceResolver.fulfill(1)
        #expect(try awaitPromise(step, timeout: .seconds(5)) == 2)
    }

    @Test func waitingOnAnotherContextIsFine() throws {
        let other = DispatchQueue(label: "other")
        let step = Promise(1).then(on: other) { $0 + 1 }
        let waited = Promise(0).then(on: DispatchQueue(label: "waiter")) { _ in try awaitPromise(step) }
        #expect(try awaitPromise(waited, timeout: .seconds(5)) == 2)
    }

    @Test func aTimeoutGivesUp() throws {
        let (pending, pendingResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(pendingResolver) {} }
        #expect(throws: PromiseError.self) { try awaitPromise(pending, timeout: .milliseconds(10)) }
        withExtendedLifetime(pending) {}
    }
}
