import Dispatch
import PromiseCore
import Synchronization
import Testing

private struct LinkMarker: Sendable {}

/// A derived promise's link to an adapter's promise (`pending(resolvedOn:)`) does not keep it
/// alive, and once it is gone the link reaches nothing: cancelling the derived promise
/// afterwards cancels it and touches nothing freed. A link to a promise that something always
/// settles (a resolver's) holds it, and still cancels it. `make test-asan` runs this suite
/// under AddressSanitizer; `make test-tsan` under ThreadSanitizer. `HeldLinkTests` covers
/// every linking operator.
@Suite struct UpstreamLinkTests {
    init() { DiagnosticsProbe.install }

    @Test func aLinkDoesNotKeepItsPendingSourceAlive() throws {
        let queue = DispatchQueue(label: "upstream-link")
        var source: Promise<LinkMarker>? = Promise<LinkMarker>.pending(resolvedOn: nil)
        weak let watched = source
        let child = source!.then(on: queue) { _ in 1 }
        source = nil
        #expect(watched == nil, "the child's link kept its source alive")
        let error = try #require(outcome(of: child).failureValue as? PromiseError)
        #expect(error.code == .brokenPromise)
    }

    @Test func cancellingAfterTheSourceHandedOverItsCallbackAndWasFreed() {
        let queue = DispatchQueue(label: "upstream-link-suspended")
        queue.suspend()
        var source: Promise<Int>? = Promise<Int>.pending(resolvedOn: nil)
        weak let watched = source
        let child = source!.then(on: queue) { $0 + 1 }
        source!.fulfill(1)  // the callback waits in the suspended queue
        source = nil
        #expect(watched == nil)
        child.cancel()
        queue.resume()
        #expect(outcome(of: child).failureValue is CancellationError)
    }

    @Test func cancellingADelayAfterItsSourceWasFreed() {
        let queue = DispatchQueue(label: "upstream-link-delay")
        var source: Promise<Int>? = Promise<Int>.pending(resolvedOn: nil)
        weak let watched = source
        let delayed = source!.delay(on: queue, .seconds(30))
        source!.fulfill(7)  // the delay's callback has run: its 30 s timer holds the value
        source = nil
        #expect(watched == nil)
        delayed.cancel()
        #expect(outcome(of: delayed).failureValue is CancellationError)
    }

    @Test func aTimeoutThatFiresWithdrawsFromItsSource() throws {
        let queue = DispatchQueue(label: "upstream-link-timeout")
        let (source, sourceResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(sourceResolver) {} }
        let limited = source.timeout(on: queue, .milliseconds(1))
        let error = try #require(outcome(of: limited).failureValue as? PromiseError)
        #expect(error.code == .timedOut)
        // The timed-out promise withdraws from its source on the timer's thread: wait for the
        // source to settle rather than look at once.
        #expect(outcome(of: source).failureValue is CancellationError, "the timed-out promise did not withdraw from its source")
    }

    @Test func aTimeoutThatFiresBeforeItSubscribesStillWithdraws() {
        let (source, sourceResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(sourceResolver) {} }
        let limited = source.timeout(on: ImmediateTimers(), .seconds(1))
        #expect((limited.error as? PromiseError)?.code == .timedOut)
        #expect(source.isCancelled, "a timer that fired before the subscription left its source running")
    }

    @Test func cancellingWhileTheSourceSettlesAndGoes() {
        let queue = DispatchQueue(label: "upstream-link-race", attributes: .concurrent)
        for round in 0..<500 {
            let box = SourceBox(Promise<Int>.pending(resolvedOn: nil))
            let child = box.source!.then(on: queue) { $0 + 1 }
            DispatchQueue.concurrentPerform(iterations: 2) { side in
                if side == 0 {
                    box.fulfillAndDrop(round)
                } else {
                    child.cancel()
                }
            }
            switch outcome(of: child) {
            case .success(let value):
                #expect(value == round + 1)
            case .failure(let error):
                #expect(error is CancellationError)
            }
        }
    }

    @Test func cancellingWhileTheSourceBreaks() {
        let queue = DispatchQueue(label: "upstream-link-break", attributes: .concurrent)
        for _ in 0..<20 {
            let box = SourceBox(Promise<LinkMarker>.pending(resolvedOn: nil))
            let child = box.source!.then(on: queue) { _ in 1 }
            DispatchQueue.concurrentPerform(iterations: 2) { side in
                if side == 0 {
                    box.drop()
                } else {
                    child.cancel()
                }
            }
            let error = outcome(of: child).failureValue
            let broken = (error as? PromiseError)?.code == .brokenPromise
            #expect(error is CancellationError || broken)
        }
    }

    @Test func cancellingTheChildStillCancelsAPendingSource() {
        let queue = DispatchQueue(label: "upstream-link-upward")
        let (source, sourceResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(sourceResolver) {} }
        let stopped = Counter()
        source.onCancel(on: .inline) { stopped.increment() }
        let child = source.then(on: queue) { $0 }.then(on: queue) { $0 }
        child.cancel()
        #expect(source.isCancelled)
        #expect(stopped.value == 1)
    }
}

/// A context whose timers fire at once, inside `executeAfter`: a `timeout` on it fires before
/// it has subscribed to its source.
private final class ImmediateTimers: ExecutionContext {
    func execute(_ work: @escaping @Sendable () -> Void) { work() }

    func executeAfter(_ delay: Duration, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        work()
        return ScheduledWork {}
    }

    var executionContextID: ObjectIdentifier? { ObjectIdentifier(self) }
}

/// The only strong reference to a source promise, dropped from another thread.
private final class SourceBox<Value: Sendable>: @unchecked Sendable {
    // Written once by `drop` or `fulfillAndDrop`, on one thread, after the test's last read.
    var source: Promise<Value>?

    init(_ source: Promise<Value>) { self.source = source }

    func drop() { source = nil }

    func fulfillAndDrop(_ value: Value) where Value == Int {
        source?.fulfill(value)
        source = nil
    }
}
