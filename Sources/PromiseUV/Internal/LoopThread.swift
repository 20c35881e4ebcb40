internal import Glibc
internal import Synchronization

/// Starts the detached, named POSIX thread that runs a loop started with `UVLoop.startThread`.
enum LoopThread {
    /// Owns the closure a new thread runs, retained across `pthread_create`.
    private final class Start: Sendable {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Starts a thread named `name` (cut to the 15 bytes Linux keeps) running `body`.
    /// Returns 0 or the `pthread_create` error number.
    static func start(name: String, _ body: @escaping @Sendable () -> Void) -> Int32 {
        if let failure = injectedFailures.withLock({ $0.removeValue(forKey: name) }) {
            return failure()
        }
        let start = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { raw in
                let start = Unmanaged<Start>.fromOpaque(raw!).takeRetainedValue()
                nameCurrentThread(start.name)
                start.body()
                return nil
            }, start)
        guard status == 0 else {
            Unmanaged<Start>.fromOpaque(start).release()
            return status
        }
        pthread_detach(thread)
        return 0
    }

    /// Tests only: the next `start` of a thread named `name` runs `failure` instead of
    /// `pthread_create` and fails with the error number it returns.
    // PromiseCore's Lock, not a bare Mutex: ThreadSanitizer cannot see a contended Mutex hand-off.
    private static let injectedFailures = Lock<[String: @Sendable () -> Int32]>([:])

    static func injectFailure(named name: String, _ failure: @escaping @Sendable () -> Int32) {
        injectedFailures.withLock { $0[name] = failure }
    }

    /// `name` cut to whole characters that fit in 15 bytes.
    static func threadName(_ name: String) -> String {
        var cut = ""
        for character in name {
            guard cut.utf8.count + character.utf8.count <= 15 else { break }
            cut.append(character)
        }
        return cut
    }
}
