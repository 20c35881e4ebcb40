import Dispatch
import PromiseUV
import Synchronization
import Testing

@Suite struct TimerTests {
    @Test func timersFireInOrderOfExpiryThenOfStarting() async throws {
        let loop = try startedLoop()
        let order = LoopConfined<[String]>([])
        let durations: [(String, Int)] = [("c30", 30), ("a10", 10), ("b20", 20), ("a10-second", 10), ("zero", 0), ("b20-second", 20)]
        let all = try await Promise<[Promise<Void>]>(on: loop) {
            durations.map { name, ms in
                loop.after(.milliseconds(ms)).then(on: loop) { order.value.append(name) }
            }
        }.get()
        for promise in all { try await promise.get() }
        #expect(order.value == ["zero", "a10", "a10-second", "b20", "b20-second", "c30"])
        try await loop.shutdown().get()
    }

    @Test func aTimerFiresNoEarlierThanItsDuration() async throws {
        let loop = try startedLoop()
        let start = nowMilliseconds()
        try await loop.after(.milliseconds(40)).get()
        #expect(nowMilliseconds() - start >= 39)
        try await loop.shutdown().get()
    }

    @Test func cancellingATimerStopsItAndItsCallbacks() async throws {
        let loop = try startedLoop()
        let fired = Atomic<Int>(0)
        let timer = loop.after(.milliseconds(30))
        let chained = timer.then(on: loop) { fired.add(1, ordering: .relaxed) }
        let later = loop.after(.milliseconds(80))
        timer.cancel()
        #expect(timer.isCancelled)
        await #expect(throws: CancellationError.self) { try await chained.get() }
        try await later.get()
        #expect(fired.load(ordering: .relaxed) == 0)
        try await loop.shutdown().get()
    }

    @Test func aCancelledTimerNoLongerKeepsRunGoing() async throws {
        let loop = try UVLoop()
        let long = loop.after(.seconds(30))
        _ = loop.after(.milliseconds(5)).then(on: loop) { long.cancel() }
        let elapsed = try await onNewThread { () -> Double in
            let start = nowMilliseconds()
            loop.run()
            return nowMilliseconds() - start
        }.get()
        #expect(long.isCancelled)
        #expect(elapsed < 5_000)
        try await loop.shutdown().get()
    }

    @Test func aHundredThousandTimersAllFireInOrder() async throws {
        let loop = try startedLoop()
        let count = 100_000
        let fired = LoopConfined(0)
        let lastExpiry = LoopConfined(0.0)
        let outOfOrder = LoopConfined(0)
        let done = Promise<Void>.pending()
        let cancelled = Atomic<Int>(0)
        try await Promise<Void>(on: loop) { () -> Void in
            let start = nowMilliseconds()
            for index in 0..<count {
                let ms = index % 25
                let timer = loop.after(.milliseconds(ms))
                if index % 10 == 9 {
                    timer.cancel()  // every tenth is cancelled and must never fire
                    cancelled.add(1, ordering: .relaxed)
                    continue
                }
                _ = timer.then(on: loop) {
                    let due = start + Double(ms)
                    if due < lastExpiry.value { outOfOrder.value += 1 }  // all share one loop time
                    lastExpiry.value = max(lastExpiry.value, due)
                    fired.value += 1
                    if fired.value == count - count / 10 { done.fulfill(()) }
                }
            }
        }.get()
        try await done.get()
        try await loop.after(.milliseconds(30)).get()
        #expect(fired.value == count - cancelled.load(ordering: .relaxed))
        #expect(outOfOrder.value == 0)
        try await loop.shutdown().get()
    }

    @Test func timersStartedFromOtherThreadsFire() async throws {
        let loop = try startedLoop()
        let promises = (0..<100).map { index in loop.after(.milliseconds(index % 7)) }
        for promise in promises { try await promise.get() }
        try await loop.shutdown().get()
    }

    @Test func coreDelayTimeoutAndRetryRunOnUVTimers() async throws {
        let loop = try startedLoop()
        let attempts = LoopConfined(0)
        let onLoop = Atomic<Int>(0)
        let delayed = Promise(1).delay(on: loop, .milliseconds(10)).then(on: loop) { value in
            if loop.isOnLoopThread { onLoop.add(1, ordering: .relaxed) }
            return value
        }
        let retried = retry(on: loop, attempts: 3, delay: .milliseconds(5)) { () -> Promise<Int> in
            if loop.isOnLoopThread { onLoop.add(1, ordering: .relaxed) }
            attempts.value += 1
            return attempts.value < 3 ? Promise<Int>(TestFailure("flaky")) : Promise(2)
        }
        let timedOut = loop.after(.seconds(30)).timeout(on: loop, .milliseconds(10))
        #expect(try await delayed.get() == 1)
        #expect(try await retried.get() == 2)
        await #expect(throws: PromiseError.self) { try await timedOut.get() }
        #expect(attempts.value == 3)
        #expect(onLoop.load(ordering: .relaxed) == 4)
        try await loop.shutdown().get()
    }

    @Test func executeAfterCanBeCancelledFromAnotherThread() async throws {
        let loop = try startedLoop()
        let ran = Atomic<Int>(0)
        let handle = loop.executeAfter(.milliseconds(20)) { ran.add(1, ordering: .relaxed) }
        handle.cancel()
        let kept = loop.executeAfter(.milliseconds(1)) { ran.add(10, ordering: .relaxed) }
        _ = kept
        try await loop.after(.milliseconds(60)).get()
        #expect(ran.load(ordering: .relaxed) == 10)
        try await loop.shutdown().get()
    }
}
