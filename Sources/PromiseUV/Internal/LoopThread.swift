internal import PromiseCore
internal import PromiseSystem

/// Starts the detached, named POSIX thread that runs a loop started with `UVLoop.startThread`.
enum LoopThread {
    /// Starts a thread named `name` (``NamedThread``) running `body`.
    /// Returns 0 or the `pthread_create` error number.
    static func start(name: String, _ body: @escaping @Sendable () -> Void) -> Int32 {
        if let failure = injectedFailures.withLock({ $0.removeValue(forKey: name) }) {
            return failure()
        }
        return NamedThread.start(name: name, body)
    }

    /// Tests only: the next `start` of a thread named `name` runs `failure` instead of
    /// `pthread_create` and fails with the error number it returns.
    // PromiseCore's Lock, not a bare Mutex: ThreadSanitizer cannot see a contended Mutex hand-off.
    private static let injectedFailures = Lock<[String: @Sendable () -> Int32]>([:])

    static func injectFailure(named name: String, _ failure: @escaping @Sendable () -> Int32) {
        injectedFailures.withLock { $0[name] = failure }
    }
}
