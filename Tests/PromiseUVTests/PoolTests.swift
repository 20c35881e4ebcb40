import Dispatch
import PromiseUV
import Synchronization
import PromiseTestSupport
import Testing

/// Tests that fill libuv's process-wide thread pool (4 threads) run one at a time.
@Suite(.serialized) struct PoolTests {}

/// Occupies every thread of libuv's pool until ``release()``.
final class PoolBlocker: Sendable {
    /// libuv's default pool size (`UV_THREADPOOL_SIZE` unset).
    static let poolSize = 4
    let gate = DispatchSemaphore(value: 0)
    let promises: [Promise<Int>]

    init(_ loop: UVLoop) async throws {
        let started = Counter()
        let gate = self.gate
        promises = (0..<Self.poolSize).map { index in
            loop.work { () -> Int in
                started.value.add(1, ordering: .relaxed)
                gate.wait()
                return index
            }
        }
        // Generous: only a hang should miss it, even with the other suites sharing 2 cores.
        let full = try await eventually(.seconds(120)) { started.value.load(ordering: .relaxed) == Self.poolSize }
        if !full {
            // Open the gate first: jobs that start late must not hold libuv's process-wide pool
            // (and every later test that needs it) forever.
            release()
            throw TestFailure("only \(started.value.load(ordering: .relaxed)) of \(Self.poolSize) pool threads picked up work")
        }
    }

    func release() {
        for _ in 0..<Self.poolSize { gate.signal() }
    }
}

/// An atomic counter that closures can share.
final class Counter: Sendable {
    let value = Atomic<Int>(0)
}
