import Dispatch
@testable import PromiseUV
import Synchronization
import PromiseTestSupport
import Testing

@Suite struct TimerTests {
    @Test func timersFireInOrderOfExpiryThenOfStarting() async throws {
        let loop = try startedLoop()
        let order = LoopConfined<[String]>([])
        // 100 ms apart: each timer is measured from its own start, and under ThreadSanitizer on
        // a loaded machine the six starts can be tens of milliseconds apart.
        let durations: [(String, Int)] = [("c30", 300), ("a10", 100), ("b20", 200), ("a10-second", 100), ("zero", 0), ("b20-second", 200)]
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
        let pending = { @Sendable in try await Promise<Int>(on: loop) { loop.core.pendingTimerCount }.get() }
        let timer = loop.after(.seconds(3_600))
        let chained = timer.then(on: loop) { () }
        // The hop runs after the timer was started (same thread, submission order).
        #expect(try await pending() == 1)
        timer.cancel()
        #expect(timer.isCancelled)
        await #expect(throws: CancellationError.self) { try await chained.get() }
        // The timer itself left the loop's queue: it can no longer fire.
        #expect(try await pending() == 0)
        // A raw timer's side effect shows a cancelled one never runs.
        let ran = Atomic<Int>(0)
        let handle = loop.executeAfter(.milliseconds(5)) { ran.add(1, ordering: .relaxed) }
        handle.cancel()
        try await loop.after(.milliseconds(40)).get()
        #expect(ran.load(ordering: .relaxed) == 0)
        try await loop.shutdown().get()
    }

    @Test func aTimerStartedLateInALongCallbackDoesNotFireEarly() async throws {
        let loop = try startedLoop()
        let timed = try await Promise<Promise<Double>>(on: loop) { () -> Promise<Double> in
            // The loop's cached time is from before this callback; make it 50 ms stale.
            let spin = nowMilliseconds()
            while nowMilliseconds() - spin < 50 {}
            let start = nowMilliseconds()
            return loop.after(.milliseconds(30)).then(on: loop) { nowMilliseconds() - start }
        }.get()
        let elapsed = try await timed.get()
        // Never early, although libuv's millisecond clock truncates.
        #expect(elapsed >= 30, "fired after \(elapsed) ms")
        try await loop.shutdown().get()
    }

    @Test func aZeroTimerThatRestartsItselfDoesNotStarveTheLoop() async throws {
        let loop = try startedLoop()
        let spin = SelfRestartingTimer(loop: loop)
        loop.execute { spin.start() }
        #expect(try await eventually(.seconds(60)) { spin.spins.load(ordering: .relaxed) > 10 })
        // Work from another thread still gets its turn.
        let crossed = Atomic<Int>(0)
        for _ in 0..<3 {
            // Read before submitting: the loop may run the job before the next line.
            let before = crossed.load(ordering: .relaxed)
            loop.execute { crossed.add(1, ordering: .relaxed) }
            #expect(try await eventually(.seconds(60)) { crossed.load(ordering: .relaxed) > before }, "cross-thread work starved")
        }
        // And so does shutdown.
        let closed = loop.shutdown()
        let finished = try await eventually(.seconds(60)) { !closed.isPending }
        spin.stop.store(true, ordering: .relaxed)
        #expect(finished, "shutdown starved by a zero timer")
    }

    @Test func aCancelledTimerNoLongerKeepsRunGoing() async throws {
        let loop = try UVLoop()
        let long = loop.after(.seconds(3_600))
        _ = loop.after(.milliseconds(5)).then(on: loop) { long.cancel() }
        let elapsed = try await onNewThread { () -> Double in
            let start = nowMilliseconds()
            loop.run()
            return nowMilliseconds() - start
        }.get()
        #expect(long.isCancelled)
        #expect(elapsed < 60_000, "run() kept going for the cancelled one-hour timer")
        try await loop.shutdown().get()
    }

    @Test func aHundredThousandTimersAllFireInOrder() async throws {
        let loop = try startedLoop()
        let count = 100_000
        let fired = LoopConfined(0)
        let lastExpiry = LoopConfined(0.0)
        let outOfOrder = LoopConfined(0)
        let (done, doneResolver) = Promise<Void>.pending()
        let cancelled = Atomic<Int>(0)
        let pendingAfterStart = LoopConfined(0)
        try await Promise<Void>(on: loop) { () -> Void in
            for index in 0..<count {
                let ms = index % 25
                // Each timer measures from when it is started: bracket that moment with the
                // clock (the thread may be preempted), and allow libuv's 1 ms truncation.
                let earliest = nowMilliseconds() + Double(ms)
                let timer = loop.after(.milliseconds(ms))
                let latest = nowMilliseconds() + Double(ms)
                if index % 10 == 9 {
                    timer.cancel()  // every tenth is cancelled and must never fire
                    cancelled.add(1, ordering: .relaxed)
                    continue
                }
                _ = timer.then(on: loop) {
                    // A timer that fired before this one must not have been due later.
                    if latest < lastExpiry.value - 1.5 { outOfOrder.value += 1 }
                    lastExpiry.value = max(lastExpiry.value, earliest)
                    fired.value += 1
                    if fired.value == count - count / 10 { doneResolver.fulfill(()) }
                }
            }
            // The cancelled ones left the loop's timer queue at once.
            pendingAfterStart.value = loop.core.pendingTimerCount
        }.get()
        try await done.get()
        try await loop.after(.milliseconds(30)).get()
        #expect(fired.value == count - cancelled.load(ordering: .relaxed))
        #expect(outOfOrder.value == 0)
        #expect(pendingAfterStart.value == count - cancelled.load(ordering: .relaxed))
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
        // The uv path: the core's timers land in the loop's own timer queue.
        let slowDelay = Promise(1).delay(on: loop, .seconds(30))
        let (never, neverResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(neverResolver) {} }
        let slowTimeout = never.timeout(on: loop, .seconds(30))
        var queued = 0
        for _ in 0..<500 where queued < 2 {
            queued = try await Promise<Int>(on: loop) { loop.core.pendingTimerCount }.get()
            if queued < 2 { try await Task.sleep(for: .milliseconds(2)) }
        }
        #expect(queued == 2)
        slowDelay.cancel()
        slowTimeout.cancel()
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
        withExtendedLifetime(never) {}
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

/// Restarts a zero-delay `executeAfter` timer from inside itself until stopped.
final class SelfRestartingTimer: Sendable {
    let loop: UVLoop
    let spins = Atomic<Int>(0)
    let stop = Atomic<Bool>(false)
    init(loop: UVLoop) { self.loop = loop }

    func start() {
        guard !stop.load(ordering: .relaxed) else { return }
        _ = loop.executeAfter(.zero) { [self] in
            spins.add(1, ordering: .relaxed)
            start()
        }
    }
}
