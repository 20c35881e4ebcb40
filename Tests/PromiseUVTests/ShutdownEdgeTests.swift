@testable import PromiseUV
import Glibc
import PromiseCore
import Synchronization
import PromiseTestSupport
import Testing

/// A weak reference that crosses threads, to see whether a loop was deallocated.
final class WeakLoop: @unchecked Sendable {
    private let lock = Lock<Void>(())
    private weak var storedLoop: UVLoop?
    var loop: UVLoop? {
        get { lock.withLock { _ in storedLoop } }
        set { lock.withLock { _ in storedLoop = newValue } }
    }
}

/// An actor on the loop that shuts its own loop down.
actor LoopCloser {
    let loop: UVLoop
    init(loop: UVLoop) { self.loop = loop }
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

    /// 1 when it resumed on the loop thread after the shutdown, 2 elsewhere.
    func shutDownOwnLoop() async throws -> Int {
        try await loop.shutdown().get()
        return loop.isOnLoopThread ? 1 : 2
    }
}

@Suite struct ShutdownEdgeTests {
    @Test func aTaskOnTheLoopAwaitingItsOwnShutdownResumesAndTheLoopIsFreed() async throws {
        let weak = WeakLoop()
        let resumed = Atomic<Int>(0)  // 1: on the loop thread, 2: elsewhere
        do {
            let loop = try startedLoop()
            weak.loop = loop
            Task(executorPreference: loop) {
                try await loop.shutdown().get()
                resumed.store(loop.isOnLoopThread ? 1 : 2, ordering: .releasing)
            }
        }
        #expect(try await eventually(.seconds(300)) { resumed.load(ordering: .acquiring) != 0 }, "the task awaiting its loop's shutdown never resumed")
        #expect(resumed.load(ordering: .acquiring) == 1)
        #expect(try await eventually(.seconds(300)) { weak.loop == nil }, "the loop leaked")
    }

    @Test func anActorOnTheLoopAwaitingItsOwnShutdownResumes() async throws {
        let weak = WeakLoop()
        let resumed = Atomic<Int>(0)
        do {
            let loop = try startedLoop()
            weak.loop = loop
            let closer = LoopCloser(loop: loop)
            Task {
                let outcome = (try? await closer.shutDownOwnLoop()) ?? 3
                resumed.store(outcome, ordering: .releasing)
            }
        }
        #expect(try await eventually(.seconds(300)) { resumed.load(ordering: .acquiring) != 0 }, "the actor awaiting its loop's shutdown never resumed")
        #expect(resumed.load(ordering: .acquiring) == 1)
        #expect(try await eventually(.seconds(300)) { weak.loop == nil }, "the loop leaked")
    }

    @Test func aPlainClosureGivenToAShutDownLoopNeverRuns() async throws {
        let loop = try startedLoop()
        try await loop.shutdown().get()
        let ran = Atomic<Int>(0)
        loop.execute { ran.add(1, ordering: .relaxed) }
        _ = loop.executeAfter(.zero) { ran.add(1, ordering: .relaxed) }
        // PromiseCore's own work is still handed back and rejected, not dropped silently.
        let callback = Promise(1).then(on: loop) { $0 + 1 }
        await #expect(throws: PromiseError.self) { try await callback.get() }
        try await Task.sleep(for: .milliseconds(30))
        #expect(ran.load(ordering: .relaxed) == 0)
    }

    @Test func aPendingExecuteAfterClosureIsDroppedAtShutdownNotRun() async throws {
        let loop = try startedLoop()
        let ran = Atomic<Int>(0)
        _ = loop.executeAfter(.seconds(3_600)) { ran.add(1, ordering: .relaxed) }
        let delayed = Promise(1).delay(on: loop, .seconds(3_600))
        // Both timers are on the loop before it shuts down.
        #expect(try await Promise<Int>(on: loop) { loop.core.pendingTimerCount }.get() == 2)
        try await loop.shutdown().get()
        let error = await #expect(throws: PromiseError.self) { try await delayed.get() }
        #expect(error?.code == .contextInvalidated)
        try await Task.sleep(for: .milliseconds(20))
        #expect(ran.load(ordering: .relaxed) == 0)
    }
}

extension ShutdownEdgeTests {
    @Test func shutdownCalledWhileTheLoopThreadFailsToStartStillCompletes() async throws {
        let loop = try UVLoop()
        let name = "uv-nothread-\(UInt16.random(in: 0...UInt16.max))"
        let shutdown = Lock<Promise<Void>?>(nil)
        // Runs between claiming the loop for the thread and giving the claim back.
        LoopThread.injectFailure(named: name) {
            shutdown.withLock { $0 = loop.shutdown() }
            return EAGAIN
        }
        #expect(throws: UVError.self) { try loop.startThread(named: name) }
        let promise = try #require(shutdown.withLock { $0 })
        #expect(!promise.isPending, "the shutdown promise was left pending")
        if !promise.isPending { try await promise.get() }
    }
}
