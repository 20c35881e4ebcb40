import Dispatch
import Synchronization

// The stream workload's helpers: a blocking bridge into a task, and the consumer both
// candidates run on each chunk.

/// Runs `work` in a task and blocks this thread until it is done.
func blocking<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) -> T {
    let done = DispatchSemaphore(value: 0)
    let result = Mutex<Result<T, any Error>?>(nil)
    Task {
        let outcome: Result<T, any Error>
        do { outcome = .success(try await work()) } catch { outcome = .failure(error) }
        result.withLock { $0 = outcome }
        done.signal()
    }
    done.wait()
    switch result.withLock({ $0 })! {
    case .success(let value): return value
    case .failure(let error): Log.fail("\(error)")
    }
}

/// A streamed body's consumer that looks at each chunk as it arrives, as the C write callback
/// does: the sum of each chunk's first byte, and the bytes.
struct ChunkTally: Sendable {
    var bytes = 0
    var checksum: UInt = 0

    mutating func take(_ chunk: [UInt8]) {
        if let first = chunk.first { checksum &+= UInt(first) }
        bytes += chunk.count
    }
}
