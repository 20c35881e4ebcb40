import Dispatch
import Glibc
import PromiseUV
import Synchronization
import PromiseTestSupport
import Testing

extension PoolTests {
    @Suite struct WorkTests {
        @Test func workRunsOnThePoolAndDeliversOnTheLoop() async throws {
            let loop = try startedLoop()
            let result = try await loop.work { () -> Bool in loop.isOnLoopThread }
                .then(on: loop) { ranOnLoop in (ranOnLoop, loop.isOnLoopThread) }
                .get()
            #expect(result.0 == false, "the body must run on a pool thread")
            #expect(result.1 == true, "the result must be delivered on the loop thread")
            try await loop.shutdown().get()
        }

        @Test func aThrowingBodyRejects() async throws {
            let loop = try startedLoop()
            await #expect(throws: TestFailure.self) {
                try await loop.work { () throws -> Int in throw TestFailure("no") }.get()
            }
            try await loop.shutdown().get()
        }

        @Test func manyJobsAllComplete() async throws {
            let loop = try startedLoop()
            let jobs = (0..<2_000).map { index in loop.work { index * 2 } }
            let values = try await all(jobs).get()
            #expect(values == (0..<2_000).map { $0 * 2 })
            try await loop.shutdown().get()
        }

        @Test func cancellingBeforeItStartsMeansTheBodyNeverRuns() async throws {
            let loop = try startedLoop()
            let blocker = try await PoolBlocker(loop)
            let ran = Atomic<Bool>(false)
            let victim = loop.work { ran.store(true, ordering: .relaxed) }
            let survivor = loop.work { 7 }
            try await loop.after(.milliseconds(5)).get()  // both are queued behind the blockers now
            victim.cancel()
            try await loop.after(.milliseconds(5)).get()
            blocker.release()
            #expect(try await all(blocker.promises).get().count == PoolBlocker.poolSize)
            #expect(try await survivor.get() == 7)
            #expect(victim.isCancelled)
            #expect(ran.load(ordering: .relaxed) == false)
            try await loop.shutdown().get()
        }

        @Test func cancellingAfterItStartedLetsTheBodyFinishAndDropsTheResult() async throws {
            let loop = try startedLoop()
            let started = Atomic<Bool>(false)
            let finished = Atomic<Bool>(false)
            // The body runs until the test has cancelled it (bounded, so a failing test does not
            // hold a pool thread), however long the test waits for a thread of its own.
            let gate = DispatchSemaphore(value: 0)
            let job = loop.work { () -> Int in
                started.store(true, ordering: .relaxed)
                _ = gate.wait(timeout: .now() + .seconds(60))
                finished.store(true, ordering: .relaxed)
                return 1
            }
            #expect(try await eventually { started.load(ordering: .relaxed) })
            job.cancel()
            gate.signal()
            #expect(try await eventually { finished.load(ordering: .relaxed) })
            #expect(job.isCancelled)
            try await loop.shutdown().get()
        }
    }
}
