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
