import Foundation
import Glibc
import PromiseTestSupport
import PromiseUV
import Synchronization
import Testing

@Suite struct UVLoopTests {
    @Test func callbacksRunOnTheLoopThread() async throws {
        let loop = try startedLoop()
        let onLoop = Promise<Int>(on: loop) { loop.isOnLoopThread ? 1 : 0 }
            .then(on: loop) { value in value + (loop.isOnLoopThread ? 1 : 0) }
        #expect(try await onLoop.get() == 2)
        #expect(!loop.isOnLoopThread)
        try await loop.shutdown().get()
    }

    @Test func workSubmittedOnTheLoopThreadRunsAfterTheCurrentCallbackInTheSameIteration() async throws {
        let loop = try startedLoop()
        let order = LoopConfined<[String]>([])
        let (done, doneResolver) = Promise<Void>.pending()
        loop.execute {
            // A zero timer is due at the next iteration's timer phase; local work runs before it.
            loop.after(.zero).then(on: loop) {
                order.value.append("timer")
                doneResolver.fulfill(())
            }
            loop.execute { order.value.append("local") }
            order.value.append("callback")
        }
        try await done.get()
        #expect(order.value == ["callback", "local", "timer"])
        try await loop.shutdown().get()
    }

    @Test func aLongRunOfLocalWorkLetsTimersAndIOIn() async throws {
        let loop = try startedLoop()
        let total = 200_000
        let count = LoopConfined(0)
        let seenByTimer = LoopConfined(-1)
        let (done, doneResolver) = Promise<Void>.pending()
        loop.execute {
            _ = loop.after(.zero).then(on: loop) { seenByTimer.value = count.value }
            for _ in 0..<total {
                loop.execute {
                    count.value += 1
                    if count.value == total { doneResolver.fulfill(()) }
                }
            }
        }
        try await done.get()
        try await loop.after(.milliseconds(2)).get()
        #expect(count.value == total)
        // The timer fired while local work was still queued: the loop took a turn in between.
        #expect(seenByTimer.value > 0 && seenByTimer.value < total, "\(seenByTimer.value)")
        try await loop.shutdown().get()
    }

    @Test func runReturnsWhenTheWorkIsDoneAndNotBefore() async throws {
        let loop = try UVLoop()
        let fired = LoopConfined(false)
        _ = loop.after(.milliseconds(30)).then(on: loop) { fired.value = true }
        let elapsed = try await onNewThread { () -> Double in
            let start = nowMilliseconds()
            loop.run()
            return nowMilliseconds() - start
        }.get()
        #expect(fired.value)
        #expect(elapsed >= 25)
        #expect(elapsed < 5_000)
        try await loop.shutdown().get()
    }

    @Test func runWithNothingToDoReturnsAtOnce() async throws {
        let loop = try UVLoop()
        let elapsed = try await onNewThread { () -> Double in
            let start = nowMilliseconds()
            loop.run()
            return nowMilliseconds() - start
        }.get()
        #expect(elapsed < 1_000)
        try await loop.shutdown().get()
    }

    @Test func keepAliveHoldsTheLoopUntilAPromiseFromElsewhereSettles() async throws {
        let loop = try UVLoop()
        let (external, externalResolver) = Promise<Int>.pending()
        let seen = LoopConfined<Int?>(nil)
        loop.keepAlive(until: external.then(on: loop) { value in seen.value = value })
        let ran = onNewThread { loop.run() }
        try await Task.sleep(for: .milliseconds(50))
        #expect(ran.isPending, "run() must wait for the kept-alive promise")
        externalResolver.fulfill(42)
        try await ran.get()
        #expect(seen.value == 42)
        try await loop.shutdown().get()
    }

    @Test func keepAliveNeitherConsumesThePromiseNorHandlesItsRejection() async throws {
        let loop = try UVLoop()
        let (source, sourceResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(sourceResolver) {} }
        loop.keepAlive(until: source)
        let consumer = source.then(on: loop) { $0 + 1 }
        consumer.cancel()
        // The only real consumer withdrew, so the source is cancelled: keepAlive is no consumer.
        #expect(source.isCancelled)
        // And with the source settled, nothing keeps the loop running.
        try await onNewThread { loop.run() }.get()
        try await loop.shutdown().get()
    }

    @Test func keepAliveLeavesAnUnhandledRejectionReported() async throws {
        DiagnosticsRecorder.install
        let loop = try UVLoop()
        do {
            let (source, sourceResolver) = Promise<KeepAliveMarker>.pending()
            loop.keepAlive(until: source)
            sourceResolver.reject(TestFailure("nobody handles this"))
        }
        // keepAlive did not mark the rejection handled: dropping the promise reports it.
        #expect(
            try await eventually(.seconds(60)) {
                DiagnosticsRecorder.kinds(about: KeepAliveMarker.self).contains(.unhandledRejection)
            })
        try await onNewThread { loop.run() }.get()
        try await loop.shutdown().get()
    }

    @Test func runUntilReturnsThePromisesValue() async throws {
        let loop = try UVLoop()
        let answer = try await onNewThread { () -> Result<Int, any Error> in
            Result { try loop.run(until: loop.after(.milliseconds(5)).then(on: loop) { 42 }) }
        }.get()
        #expect(try answer.get() == 42)
        try await loop.shutdown().get()
    }

    @Test func runUntilThrowsTheRejection() async throws {
        let loop = try UVLoop()
        let outcome = try await onNewThread { () -> Result<Int, any Error> in
            Result { try loop.run(until: loop.work { () throws -> Int in throw TestFailure("boom") }) }
        }.get()
        #expect(throws: TestFailure.self) { try outcome.get() }
        try await loop.shutdown().get()
    }

    @Test func aBlockingWaitOnTheLoopThreadFailsInsteadOfDeadlocking() async throws {
        let loop = try startedLoop()
        let outcome = Promise<String>(on: loop) { () throws -> String in
            do {
                try awaitPromise(loop.after(.seconds(60)))
                return "returned"
            } catch let error as PromiseError where error.code == .deadlock {
                return "deadlock detected"
            }
        }
        #expect(try await outcome.get() == "deadlock detected")
        try await loop.shutdown().get()
    }

    @Test func theLoopThreadHasTheGivenName() async throws {
        let loop = try startedLoop("uv-named-loop-thread")
        let name = try await Promise<String>(on: loop) { () -> String in
            let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
            return comm.trimmingCharacters(in: .whitespacesAndNewlines)
        }.get()
        #expect(name == "uv-named-loop-t", "Linux keeps 15 bytes of a thread name")
        try await loop.shutdown().get()
    }

    @Test func theLoopThreadIsNamedForItsProductByDefault() async throws {
        let loop = try UVLoop()
        try loop.startThread()
        let name = try await Promise<String>(on: loop) { () -> String in
            let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
            return comm.trimmingCharacters(in: .whitespacesAndNewlines)
        }.get()
        #expect(name == "promise-uv")
        try await loop.shutdown().get()
    }

    @Test func aProgramWhoseMainThreadIsTheLoopRunsAChainAndExitsWhenDone() async throws {
        let result = try await runHelper(["chain"])
        #expect(result.status == 0, "helper output: \(result.output)")
        #expect(result.output.contains("values=[1, 2, 3, 4]"), "\(result.output)")
        #expect(result.output.contains("attempts=3"), "\(result.output)")
        #expect(result.output.contains("PromiseError.timedOut: still pending after"), "\(result.output)")
        #expect(result.output.contains("wrong=0"), "\(result.output)")
    }

    @Test func aTaskJobArrivingAfterShutdownStillRunsSoTheTaskFinishes() async throws {
        let result = try await runHelper(["late-job"])
        #expect(result.status == 0, "helper output: \(result.output)")
        #expect(result.output.contains("finished=true"), "\(result.output)")
        #expect(!result.output.contains("dropped work"), "\(result.output)")
    }

    @Test func mainQueueAndMainActorWorkRunsOnALoopRunByTheMainThread() async throws {
        let directory = try TemporaryDirectory()
        let result = try await runHelper(["main-queue", directory.path])
        #expect(result.status == 0, "helper output: \(result.output)")
        #expect(
            result.output.contains(
                #"entries=["main queue 1", "task", "main queue 2", "change created", "main actor from a detached task", "main queue from another thread"] wrong=0"#
            ), "\(result.output)")
    }

    @Test func theArticlesMainQueueExampleRunsAsWritten() async throws {
        let directory = try TemporaryDirectory()
        let result = try await runHelper(["docc-main-actor", directory.path])
        #expect(result.status == 0, "helper output: \(result.output)")
        // Under ASan, LeakSanitizer's summary shares the output.
        let lines = result.output.split(separator: "\n")
        let queued = try #require(lines.firstIndex(of: "main queue: on the loop"), "\(result.output)")
        let change = try #require(lines.firstIndex { $0.hasPrefix("first change: entry-") }, "\(result.output)")
        #expect(queued < change, "the main-queue job ran after the task: \(result.output)")
    }

    @Test func manyMainQueueJobsRunInOrderAndOneMayShutTheLoopDown() async throws {
        let result = try await runHelper(["main-queue-many-then-shutdown"])
        #expect(result.status == 0, "helper output: \(result.output)")
        #expect(result.output.contains("ran=100000 inOrder=true shutDown=true"), "\(result.output)")
    }

    @Test func aLoopDroppedAfterRunningOnTheMainThreadClosesCleanly() async throws {
        let result = try await runHelper(["main-queue-dropped-loop"])
        #expect(result.status == 0, "helper output: \(result.output)")
        #expect(result.output.contains("reports=[]"), "\(result.output)")
    }

    @Test func aLoopOnItsOwnThreadLeavesTheMainQueueToItsOwner() async throws {
        let result = try await runHelper(["thread-loop-leaves-main-queue"])
        #expect(result.status == 0, "helper output: \(result.output)")
        #expect(result.output.contains("ran through dispatchMain after"), "\(result.output)")
    }

    @Test func aProgramWithNothingToDoExitsAtOnce() async throws {
        let result = try await runHelper(["idle"])
        #expect(result.status == 0, "helper output: \(result.output)")
    }
}

/// Runs `promiseuv-helper` (built next to the test binary) and returns its exit status and
/// output; a helper still running after 30 s is killed and reported as a hang.
///
/// `leakChecks: false` turns LeakSanitizer off in the helper (under `make test-asan`) for a
/// scenario that leaks by design.
func runHelper(_ arguments: [String], leakChecks: Bool = true) async throws -> (status: Int32, output: String) {
    try await runHelperProgram("promiseuv-helper", arguments, leakChecks: leakChecks)
}
