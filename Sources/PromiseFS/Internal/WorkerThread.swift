internal import Glibc

/// Starts detached POSIX threads for ``FileIOPool``: blocking file I/O never runs on Swift's
/// cooperative pool or on a Dispatch queue's threads.
enum WorkerThread {
    /// Owns the closure a new thread runs, retained across `pthread_create`.
    private final class Start {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Starts a thread running `body`.
    static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        let start = Unmanaged.passRetained(Start(body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { raw in
            let start = Unmanaged<Start>.fromOpaque(raw!).takeRetainedValue()
            start.body()
            return nil
        }, start)
        guard status == 0 else {
            Unmanaged<Start>.fromOpaque(start).release()
            return false
        }
        pthread_detach(thread)
        return true
    }
}
