import Foundation
import PromiseCore
@testable import PromiseUV
import Synchronization
import Testing

/// `UVLoop.every`: a repeating timer as a callback and as an asynchronous sequence.
@Suite struct RepeatingTimerTests {
    /// Whether the loop's timer queue empties within 10 s (asked on the loop thread).
    private func timersDrain(_ loop: UVLoop) async throws -> Bool {
        for _ in 0..<2_000 {
            let pending = try await Promise<Int>(on: loop) { loop.core.pendingTimerCount }.get()
            if pending == 0 { return true }
            try await Task.sleep(for: .milliseconds(5))
        }
        return false
    }

    /// Collects ticks on the loop thread and fulfils `done` at `count`.
    private final class Ticks: Sendable {
        let seen = Lock<[(tick: Int, at: Double, onLoop: Bool)]>([])
        let (done, doneResolver) = Promise<Void>.pending()
    }

    @Test func ticksArriveInOrderOnTheLoopNeverEarlyAndStopWhenCancelled() async throws {
        let loop = try startedLoop()
        let ticks = Ticks()
        let start = nowMilliseconds()
        let handle = Lock<ScheduledWork?>(nil)
        let made = loop.every(.milliseconds(20)) { tick in
            let count = ticks.seen.withLock { seen in
                seen.append((tick, nowMilliseconds(), loop.isOnLoopThread))
                return seen.count
            }
            if count == 3 {
                // Cancelled inside its own tick: no fourth tick.
                handle.withLock { $0 }?.cancel()
                ticks.done.fulfill(())
            }
        }
        handle.withLock { $0 = made }
        try await ticks.done.get()
        // Five more intervals: nothing else fires.
        try await loop.after(.milliseconds(100)).get()
        let seen = ticks.seen.withLock { $0 }
        // Exactly three ticks, numbered in increasing order. A loop thread the machine does not
        // schedule for a whole interval skips that tick (see the next test), so the numbers are
        // 1, 2, 3 only on an idle machine.
        #expect(seen.count == 3)
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.tick < $1.tick }, "\(seen.map(\.tick))")
        #expect(seen.allSatisfy { $0.onLoop })
        for entry in seen {
            #expect(entry.at - start >= Double(entry.tick * 20) - 0.5, "tick \(entry.tick) fired early: \(entry.at - start) ms")
        }
        #expect(try await Promise<Int>(on: loop) { loop.core.pendingTimerCount }.get() == 0)
        try await loop.shutdown().get()
    }

    @Test func aBusyLoopSkipsMissedTicksInsteadOfBursting() async throws {
        let loop = try startedLoop()
        let ticks = Ticks()
        let handle = loop.every(.milliseconds(10)) { tick in
            let count = ticks.seen.withLock { seen in
                seen.append((tick, nowMilliseconds(), true))
                return seen.count
            }
            // The first tick keeps the loop busy for more than five intervals.
            if count == 1 { usleep(65_000) }
            if count == 3 { ticks.done.fulfill(()) }
        }
        try await ticks.done.get()
        handle.cancel()
        let seen = ticks.seen.withLock { $0 }.prefix(3).map(\.tick)
        #expect(seen[0] == 1)
        #expect(seen[1] >= 7, "ticks 2…6 fell inside the busy time and are skipped: \(seen)")
        // After the skip the timer goes on (one tick later on an idle machine; later still when
        // the machine keeps the loop thread waiting for another interval).
        #expect(seen[2] > seen[1], "after the skip the timer goes on: \(seen)")
        try await loop.shutdown().get()
    }

    @Test func anUnreferencedTimerDoesNotKeepRunGoingAReferencedOneDoes() throws {
        let loop = try UVLoop()
        let background = Atomic<Int>(0)
        loop.every(.milliseconds(5), keepsLoopAlive: false) { _ in background.add(1, ordering: .relaxed) }
        let work = loop.after(.milliseconds(40))
        let started = nowMilliseconds()
        // Returns once the one-shot timer has fired: the background timer does not count.
        loop.run()
        #expect(work.isFulfilled)
        #expect(nowMilliseconds() - started < 5_000)
        #expect(background.load(ordering: .relaxed) >= 1, "the background timer ran while the loop did")

        // A referenced repeating timer keeps run() going until it is cancelled.
        let counted = Atomic<Int>(0)
        let handle = Lock<ScheduledWork?>(nil)
        let made = loop.every(.milliseconds(5)) { tick in
            counted.store(tick, ordering: .relaxed)
            if tick >= 4 { handle.withLock { $0 }?.cancel() }
        }
        handle.withLock { $0 = made }
        loop.run()
        #expect(counted.load(ordering: .relaxed) >= 4)
        loop.shutdown()
    }

    @Test func cancellingFromAnotherThreadStopsTheTimer() async throws {
        let loop = try startedLoop()
        let count = Atomic<Int>(0)
        let handle = loop.every(.milliseconds(2)) { _ in count.add(1, ordering: .relaxed) }
        try await loop.after(.milliseconds(20)).get()
        handle.cancel()
        // Once the loop has handled the cancellation, the count stays put.
        try await loop.after(.zero).get()
        let stopped = count.load(ordering: .relaxed)
        #expect(stopped >= 1)
        try await loop.after(.milliseconds(30)).get()
        #expect(count.load(ordering: .relaxed) == stopped)
        try await loop.shutdown().get()
    }

    @Test func theSequenceYieldsTicksAndStopsItsTimerOnBreak() async throws {
        let loop = try startedLoop()
        var ticks: [Int] = []
        for await tick in loop.every(.milliseconds(5)) {
            ticks.append(tick)
            if ticks.count == 3 { break }
        }
        #expect(ticks.count == 3)
        #expect(ticks == ticks.sorted() && Set(ticks).count == 3, "tick numbers increase: \(ticks)")
        #expect(ticks[0] >= 1)
        // The dropped iterator stopped its timer.
        #expect(try await timersDrain(loop))
        try await loop.shutdown().get()
    }

    @Test func theSequenceEndsWhenTheLoopShutsDownOrTheTaskIsCancelled() async throws {
        let loop = try startedLoop()
        let (firstTick, firstTickResolver) = Promise<Void>.pending()
        let consumer = Task {
            var count = 0
            for await _ in loop.every(.milliseconds(5)) {
                count += 1
                firstTickResolver.fulfill(())
            }
            return count
        }
        try await firstTick.get()
        try await loop.shutdown().get()
        #expect(await consumer.value >= 1, "ticks arrived, then the sequence ended with the loop")
        // A sequence started on a loop that is already shut down ends at once.
        var afterShutdown = 0
        for await _ in loop.every(.milliseconds(5)) { afterShutdown += 1 }
        #expect(afterShutdown == 0)

        let other = try startedLoop()
        let cancelled = Task {
            for await _ in other.every(.seconds(3600)) {}
            return Task.isCancelled
        }
        try await other.after(.milliseconds(20)).get()
        cancelled.cancel()
        #expect(await cancelled.value, "the sequence ended because the task was cancelled")
        #expect(try await timersDrain(other))
        try await other.shutdown().get()
    }
}
