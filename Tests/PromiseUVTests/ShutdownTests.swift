import Dispatch
import Glibc
import PromiseUV
import Synchronization
import PromiseTestSupport
import Testing

extension PoolTests {
    @Suite struct ShutdownTests {
        @Test func shutdownWithWorkInFlightFailsWhatHasNotStartedAndRunsNothingAfterwards() async throws {
            let loop = try startedLoop()
            let closed = Atomic<Bool>(false)
            let lateCallbacks = Atomic<Int>(0)
            let noteCallback: @Sendable () -> Void = {
                if closed.load(ordering: .acquiring) { lateCallbacks.add(1, ordering: .relaxed) }
            }
            let blocker = try await PoolBlocker(loop)
            let queuedRan = Atomic<Int>(0)
            let queued = (0..<6).map { _ in loop.work { queuedRan.add(1, ordering: .relaxed) } }
            let timers = (0..<1_000).map { index in
                loop.after(.seconds(600 + index % 3)).then(on: loop) { noteCallback() }
            }
            let (never, neverResolver) = Promise<Int>.pending()
            defer { withExtendedLifetime(neverResolver) {} }
            let coreTimeout = never.timeout(on: loop, .seconds(3_600))
            // Another thread keeps submitting callbacks until the loop refuses them.
            let flooding = onNewThread { () -> Int in
                var accepted = 0
                while true {
                    let step = Promise<Int>(on: loop) { () -> Int in
                        noteCallback(); return 1
                    }
                    step.catch(on: InlineContext()) { _ in }
                    if !closed.load(ordering: .acquiring), !step.isRejected { accepted += 1 }
                    if case let error as PromiseError? = step.error, error?.code == .contextInvalidated { return accepted }
                    if accepted > 1_000_000 { return accepted }
                    usleep(50)
                }
            }
            try await loop.after(.milliseconds(10)).get()
            let shutdown = loop.shutdown()
            // A second caller gets a promise of its own; cancelling it leaves the first waiting.
            let impatient = loop.shutdown()
            #expect(shutdown !== impatient)
            impatient.cancel()
            try await Task.sleep(for: .milliseconds(20))
            #expect(shutdown.isPending, "shutdown waits for the pool work that is running")
            // Release the pool only once the loop has started shutting down (timers failed, which
            // happens after the queued pool work was cancelled).
            #expect(try await eventually { timers.allSatisfy { $0.isRejected } })
            blocker.release()
            try await shutdown.get()
            #expect(impatient.isCancelled, "the cancelled caller's promise stays cancelled")
            closed.store(true, ordering: .releasing)

            #expect(try await all(blocker.promises).get() == [0, 1, 2, 3], "running work finishes and delivers")
            for job in queued {
                await #expect(throws: UVError.self) { try await job.get() }
                #expect(job.error.map { UVError.Code.loopClosed ~= $0 } == true)
            }
            #expect(queuedRan.load(ordering: .relaxed) == 0)
            for timer in timers {
                #expect(timer.error.map { UVError.Code.loopClosed ~= $0 } == true)
            }
            #expect((coreTimeout.error as? PromiseError)?.code == .contextInvalidated)
            #expect(never.isCancelled, "the timeout withdrew its interest when it was rejected")
            _ = try await flooding.get()

            // New work is refused with a clear error.
            await #expect(throws: UVError.self) { try await loop.after(.milliseconds(1)).get() }
            await #expect(throws: UVError.self) { try await loop.work { 1 }.get() }
            do {
                _ = try await Promise<Int>(on: loop) { 1 }.get()
                Issue.record("a callback was accepted after shutdown")
            } catch let error as PromiseError {
                #expect(error.code == .contextInvalidated)
            }
            #expect(throws: UVError.self) { try loop.startThread(named: "again") }
            try await Task.sleep(for: .milliseconds(30))
            #expect(lateCallbacks.load(ordering: .relaxed) == 0, "no callback may run after shutdown completed")
        }

        @Test func shutdownOfALoopThatNeverRanCompletesOnTheCallingThread() async throws {
            let loop = try UVLoop()
            let timer = loop.after(.seconds(10))
            let job = loop.work { 1 }
            let shutdown = loop.shutdown()
            #expect(shutdown.isFulfilled, "nothing runs the loop, so shutdown() finishes before returning")
            #expect(timer.error.map { UVError.Code.loopClosed ~= $0 } == true)
            // Queued before shutdown(), so it reached the pool: it either started (and finished)
            // or was cancelled there; never left pending.
            #expect(job.value == 1 || job.error.map { UVError.Code.loopClosed ~= $0 } == true)
            try await onNewThread { loop.run() }.get()  // returns at once after shutdown
        }

        @Test func shutdownFromInsideALoopCallback() async throws {
            let loop = try startedLoop()
            let shutdown = try await Promise<Promise<Void>>(on: loop) { loop.shutdown() }.get()
            try await shutdown.get()
            #expect(loop.after(.zero).error.map { UVError.Code.loopClosed ~= $0 } == true)
        }

        @Test func shutdownAfterRunReturned() async throws {
            let loop = try UVLoop()
            _ = loop.after(.milliseconds(1))
            try await onNewThread { loop.run() }.get()
            try await loop.shutdown().get()
        }
    }
}
