import PromiseCore
import PromiseTesting

import Testing

@Suite struct ManualContextTests {
    @Test func runsNothingUntilAsked() {
        let context = ManualContext()
        let runs = Lock(0)
        context.execute { runs.withLock { $0 += 1 } }
        context.execute { runs.withLock { $0 += 1 } }
        #expect(context.pendingCount == 2)
        #expect(runs.withLock { $0 } == 0)
        #expect(context.runNext())
        #expect(runs.withLock { $0 } == 1)
        #expect(context.runUntilIdle() == 1)
        #expect(!context.runNext())
    }

    @Test func timersFireInDeadlineOrderAsTheClockAdvances() {
        let context = ManualContext()
        let fired = Lock<[Int]>([])
        _ = context.executeAfter(.seconds(3)) { fired.withLock { $0.append(3) } }
        _ = context.executeAfter(.seconds(1)) { fired.withLock { $0.append(1) } }
        let cancelled = context.executeAfter(.seconds(2)) { fired.withLock { $0.append(2) } }
        cancelled.cancel()
        context.advance(by: .milliseconds(1500))
        #expect(fired.withLock { $0 } == [1])
        #expect(context.now == .milliseconds(1500))
        context.advance(by: .seconds(5))
        #expect(fired.withLock { $0 } == [1, 3])
        #expect(context.pendingTimerCount == 0)
    }

    @Test func aTimerSetByATimerFiresInTheSameAdvanceWhenDue() {
        let context = ManualContext()
        let fired = Lock<[String]>([])
        _ = context.executeAfter(.seconds(1)) {
            fired.withLock { $0.append("first") }
            _ = context.executeAfter(.seconds(1)) { fired.withLock { $0.append("second") } }
        }
        context.advance(by: .seconds(2))
        #expect(fired.withLock { $0 } == ["first", "second"])
    }
}

@Suite struct WaitForPromisesTests {
    init() { startTrackingPromises() }

    /// `waitForPromises` waits for every promise in the process, and the other suites of this
    /// run keep promise work in flight for many seconds; so the chain runs in a process of its
    /// own (an exit test), where it is the only work.
    @Test func waitsForChainsOnTheDefaultContextAndOtherQueues() async {
        await #expect(processExitsWith: .success) {
            startTrackingPromises()
            let order = Lock<[Int]>([])
            let queue = DispatchQueueShim.make()
            Promise(1)
                .then { value in
                    order.withLock { $0.append(value) }; return value + 1
                }
                .then(on: queue) { value in
                    order.withLock { $0.append(value) }; return value + 1
                }
                .delay(.milliseconds(30))
                .then { value in order.withLock { $0.append(value) } }
            #expect(waitForPromises(timeout: .seconds(5)))
            #expect(order.withLock { $0 } == [1, 2, 3])
        }
    }

    @Test func waitsForPromisesResolvedByHandFromAnotherThread() async {
        await #expect(processExitsWith: .success) {
            startTrackingPromises()
            let made = Promise<Int> { fulfill, _ in
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(150)) { fulfill(1) }
            }
            let pending = Promise<Int>.pending()
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(200)) { pending.fulfill(2) }
            #expect(waitForPromises(timeout: .seconds(5)))
            #expect(made.value == 1)
            #expect(pending.value == 2)
            // A promise nobody resolves keeps it waiting until the timeout; dropping it ends that.
            var forgotten: Promise<Int>? = Promise<Int>.pending()
            #expect(!waitForPromises(timeout: .milliseconds(50)))
            #expect(forgotten?.isPending == true)
            forgotten = nil
            #expect(waitForPromises(timeout: .seconds(5)))
        }
    }

    @Test func returnsFalseWhenWorkOutlastsTheTimeout() {
        let gate = Promise<Int>.pending()
        let slow = gate.delay(.seconds(2))
        gate.fulfill(1)
        #expect(!waitForPromises(timeout: .milliseconds(50)))
        slow.cancel()
    }
}

import Dispatch
enum DispatchQueueShim {
    static func make() -> DispatchQueue { DispatchQueue(label: "wait-for-promises") }
}
