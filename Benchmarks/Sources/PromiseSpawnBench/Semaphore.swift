import Dispatch

/// A semaphore with room for the error of the work it waits for.
///
/// `@unchecked Sendable`: `error` is written before `signal()` and read after `wait()`,
/// which orders the two.
final class DispatchSemaphoreBox: @unchecked Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    var error: (any Error)?
    func signal() { semaphore.signal() }
    func wait() { semaphore.wait() }
}
