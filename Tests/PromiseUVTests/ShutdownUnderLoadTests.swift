import Dispatch
import Glibc
import PromiseCore
import PromiseUV
import Synchronization
import PromiseTestSupport
import Testing

/// How the promises of one test ended, counted by callbacks that run where each promise is
/// resolved (`.inline`), so they run even after the loop is gone.
final class SettlementCounter: Sendable {
    let fulfilled = Atomic<Int>(0)
    let loopClosed = Atomic<Int>(0)
    let contextInvalidated = Atomic<Int>(0)
    let cancelled = Atomic<Int>(0)
    let other = Atomic<Int>(0)
    let firstOther = Lock<String?>(nil)

    var total: Int {
        fulfilled.load(ordering: .acquiring) + loopClosed.load(ordering: .acquiring)
            + contextInvalidated.load(ordering: .acquiring) + cancelled.load(ordering: .acquiring)
            + other.load(ordering: .acquiring)
    }

    /// Counts how `promise` settles, once.
    func track<T: Sendable>(_ promise: Promise<T>) {
        promise.then(on: .inline) { _ in
            self.fulfilled.add(1, ordering: .releasing)
        }.catch(on: .inline, policy: .allErrors) { error in
            if UVError.Code.loopClosed ~= error {
                self.loopClosed.add(1, ordering: .releasing)
            } else if (error as? PromiseError)?.code == .contextInvalidated {
                self.contextInvalidated.add(1, ordering: .releasing)
            } else if error is CancellationError {
                self.cancelled.add(1, ordering: .releasing)
            } else {
                self.firstOther.withLock { $0 = $0 ?? "\(type(of: error)): \(error)" }
                self.other.add(1, ordering: .releasing)
            }
        }
    }

    var summary: String {
        "fulfilled \(fulfilled.load(ordering: .acquiring)), loopClosed \(loopClosed.load(ordering: .acquiring)), "
            + "contextInvalidated \(contextInvalidated.load(ordering: .acquiring)), cancelled \(cancelled.load(ordering: .acquiring)), "
            + "other \(other.load(ordering: .acquiring)) \(firstOther.withLock { $0 ?? "" })"
    }
}

extension PoolTests {
    @Suite struct ShutdownUnderLoadTests {
        @Test func shutdownWithAHundredThousandTimersAndPoolWorkInFlightSettlesEachOnceAndRunsNothingLater() async throws {
            let loop = try startedLoop("uv-load")
            let counter = SettlementCounter()
            let closed = Atomic<Bool>(false)
            let late = Atomic<Int>(0)
            let noteCallback: @Sendable () -> Void = {
                if closed.load(ordering: .acquiring) { late.add(1, ordering: .relaxed) }
            }

            // Pool work: every pool thread busy with a job that waits for the test, and 2 000 more
            // jobs queued behind them below. The pool is taken before the timers exist: the loop
            // thread fires due timers before it hands new work to the pool, so taking it later
            // would wait behind the firing of the first half.
            let blocker = try await PoolBlocker(loop)
            blocker.promises.forEach { counter.track($0) }

            // 100 000 timers, started on the loop thread in one turn (from another thread each
            // would be a hop): half due within 50 ms (most fire before the shutdown), half in an
            // hour. Every fifth has a callback on the loop. ThreadSanitizer makes each about ten
            // times slower (12 s for this test), so it gets 20 000, and so does AddressSanitizer.
            let timerCount = Sanitizer.thread || Sanitizer.address ? 20_000 : 100_000
            let (timers, tracked) = try await Promise<([Promise<Void>], [Promise<Void>])>(on: loop) {
                var timers: [Promise<Void>] = []
                var tracked: [Promise<Void>] = []
                timers.reserveCapacity(timerCount)
                for index in 0..<timerCount {
                    let timer = loop.after(index % 2 == 0 ? .milliseconds(index % 50) : .seconds(3_600))
                    timers.append(timer)
                    counter.track(timer)
                    if index % 5 == 0 {
                        let callback = timer.then(on: loop) { noteCallback() }
                        counter.track(callback)
                        tracked.append(callback)
                    }
                }
                return (timers, tracked)
            }.get()
            let jobsRan = Atomic<Int>(0)
            let jobs = (0..<2_000).map { index in
                loop.work { () -> Int in
                    noteCallback()
                    jobsRan.add(1, ordering: .relaxed)
                    return index
                }
            }
            let jobCallbacks = jobs.map { job in job.then(on: loop) { (_: Int) -> Void in noteCallback() } }
            jobs.forEach { counter.track($0) }
            jobCallbacks.forEach { counter.track($0) }
            // Core timeouts on the loop's timers, over promises nobody resolves (kept alive, so
            // they are not broken promises).
            let neverResolved = (0..<1_000).map { _ in Promise<Int>.pending() }
            let timeouts = neverResolved.map { $0.promise.timeout(on: loop, .seconds(3_600)) }
            timeouts.forEach { counter.track($0) }

            // Another thread cancels every seventh timer while the shutdown runs.
            let cancelling = Array(timers.enumerated().filter { $0.offset % 7 == 3 }.map(\.element))
            let (cancelStart, cancelStartResolver) = Promise<Void>.pending()
            let canceller = onNewThread { () -> Void in
                _ = try? awaitPromise(cancelStart)
                for timer in cancelling { timer.cancel() }
            }

            let expected = timers.count + tracked.count + blocker.promises.count + jobs.count + jobCallbacks.count + timeouts.count
            let shutdown = loop.shutdown()
            cancelStartResolver.fulfill(())
            // Read where the shutdown completes: this test's task may resume much later when
            // the other tests keep the cooperative pool busy.
            let closedAt = Lock<Double?>(nil)
            shutdown.then(on: .inline) {
                closed.store(true, ordering: .releasing)
                closedAt.withLock { $0 = nowMilliseconds() }
            }
            // The queued work is cancelled as the shutdown starts; the running work holds it up
            // until released.
            let queuedSettled = try await eventually(.seconds(120)) { jobs.allSatisfy { !$0.isPending } }
            #expect(queuedSettled, "queued pool work still pending 120 s into the shutdown")
            #expect(shutdown.isPending, "shutdown waits for the pool work that is running")
            let released = nowMilliseconds()
            blocker.release()
            let finished = try await eventually(.seconds(120)) { !shutdown.isPending }
            #expect(finished, "shutdown still pending 120 s after the running work was released")
            try await shutdown.get()
            let elapsed = (closedAt.withLock { $0 } ?? .infinity) - released
            // Nothing left waits for the hour-long timers: the bound only tells a shutdown that
            // finishes from one that waits for them (this test took 46 s in all under
            // AddressSanitizer beside the other suites).
            #expect(elapsed < 60_000, "the shutdown completed \(elapsed) ms after the running work was released")

            // Every promise had settled by the time the shutdown completed.
            let unsettled =
                timers.count { $0.isPending } + blocker.promises.count { $0.isPending } + jobs.count { $0.isPending }
                + tracked.count { $0.isPending } + jobCallbacks.count { $0.isPending } + timeouts.count { $0.isPending }
            #expect(unsettled == 0, "\(unsettled) promises still pending after the shutdown")
            _ = try await canceller.get()
            // Exactly once each: the count neither falls short nor grows later.
            #expect(counter.total == expected, "\(counter.total) settlements of \(expected): \(counter.summary)")
            try await Task.sleep(for: .milliseconds(50))
            #expect(counter.total == expected, "settlements after the shutdown: \(counter.summary)")
            #expect(counter.other.load(ordering: .acquiring) == 0, "unexpected errors: \(counter.summary)")
            #expect(late.load(ordering: .acquiring) == 0, "callbacks or pool work ran after the shutdown completed")
            // The load was really in flight: some of each kind of ending happened.
            #expect(counter.fulfilled.load(ordering: .acquiring) > 0, "\(counter.summary)")
            #expect(counter.loopClosed.load(ordering: .acquiring) > 0, "\(counter.summary)")
            #expect(counter.contextInvalidated.load(ordering: .acquiring) >= timeouts.count, "\(counter.summary)")
            #expect(try await all(blocker.promises).get() == [0, 1, 2, 3], "running work finishes and delivers")
            #expect(jobsRan.load(ordering: .relaxed) == 0, "queued pool work ran")
            #expect(jobs.allSatisfy { $0.error.map { UVError.Code.loopClosed ~= $0 } == true })
            #expect(neverResolved.allSatisfy { $0.promise.isCancelled }, "each timeout withdrew its interest when it was rejected")
        }
    }
}
