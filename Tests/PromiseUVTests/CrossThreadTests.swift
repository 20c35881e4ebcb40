import Dispatch
@testable import PromiseUV
import Synchronization
import Testing

@Suite struct CrossThreadTests {
    @Test func closuresFromManyThreadsEachRunOnceInOrderPerProducer() async throws {
        let loop = try startedLoop()
        let producers = 8
        let perProducer = 12_500  // 100 000 in all
        let total = producers * perProducer
        // Loop thread only: the next sequence number expected from each producer.
        let next = LoopConfined([Int](repeating: 0, count: producers))
        let errors = LoopConfined(0)
        let offLoop = Atomic<Int>(0)
        let ran = LoopConfined(0)
        let (done, doneResolver) = Promise<Void>.pending()
        for producer in 0..<producers {
            DispatchQueue.global().async {
                for sequence in 0..<perProducer {
                    loop.execute {
                        if !loop.isOnLoopThread { offLoop.add(1, ordering: .relaxed) }
                        if next.value[producer] != sequence { errors.value += 1 }
                        next.value[producer] = sequence + 1
                        ran.value += 1
                        if ran.value == total { doneResolver.fulfill(()) }
                    }
                }
            }
        }
        try await done.get()
        // Anything that ran twice would have pushed the count past the total by now.
        try await Promise<Void>(on: loop) {}.get()
        #expect(ran.value == total)
        #expect(errors.value == 0)
        #expect(next.value == [Int](repeating: perProducer, count: producers))
        #expect(offLoop.load(ordering: .relaxed) == 0)
        let stats = loop.core.wakeStatistics
        // Coalescing: a send is made only when none is pending, and each wake-up clears it.
        #expect(stats.sends <= stats.drains + 1, "\(stats)")
        #expect(stats.sends < total, "\(stats)")
        try await loop.shutdown().get()
    }

    @Test func aRoundTripFromAnotherThreadAndBack() async throws {
        let loop = try startedLoop()
        let hops = 2_000
        let count = try await onNewThread { () -> Int in
            let semaphore = DispatchSemaphore(value: 0)
            let onLoop = Atomic<Int>(0)
            for _ in 0..<hops {
                loop.execute {
                    if loop.isOnLoopThread { onLoop.add(1, ordering: .relaxed) }
                    semaphore.signal()
                }
                semaphore.wait()
            }
            return onLoop.load(ordering: .relaxed)
        }.get()
        #expect(count == hops)
        try await loop.shutdown().get()
    }
}
