import PromiseUV
import Synchronization
import Testing

/// An actor whose every method runs on the loop thread.
actor LoopCounter {
    let loop: UVLoop
    private(set) var count = 0
    private(set) var offLoop = 0

    init(loop: UVLoop) {
        self.loop = loop
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

    func increment() async throws {
        if !loop.isOnLoopThread { offLoop += 1 }
        try await loop.after(.milliseconds(1)).get()
        if !loop.isOnLoopThread { offLoop += 1 }
        count += 1
    }
}

@Suite struct ExecutorTests {
    @Test func aTaskWithTheLoopAsExecutorPreferenceRunsOnTheLoopThread() async throws {
        let loop = try startedLoop()
        let checks = try await Task(executorPreference: loop) { () -> [Bool] in
            var seen = [loop.isOnLoopThread]
            try await loop.after(.milliseconds(2)).get()
            seen.append(loop.isOnLoopThread)
            await Task.yield()
            seen.append(loop.isOnLoopThread)
            return seen
        }.value
        #expect(checks == [true, true, true])
        try await loop.shutdown().get()
    }

    @Test func anActorOnTheLoopExecutorRunsOnTheLoopThread() async throws {
        let loop = try startedLoop()
        let counter = LoopCounter(loop: loop)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<200 {
                group.addTask { try await counter.increment() }
            }
            try await group.waitForAll()
        }
        #expect(await counter.count == 200)
        #expect(await counter.offLoop == 0)
        try await loop.shutdown().get()
    }

    @Test func assumeIsolatedWorksOnTheLoopThread() async throws {
        let loop = try startedLoop()
        let counter = LoopCounter(loop: loop)
        let count = try await Promise<Int>(on: loop) {
            counter.assumeIsolated { $0.count }
        }.get()
        #expect(count == 0)
        try await loop.shutdown().get()
    }
}
