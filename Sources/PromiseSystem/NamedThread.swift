internal import Glibc

/// Starts detached POSIX threads for the adapters' owners (PromiseFS's pool, a SQLite
/// connection's thread): blocking C calls never run on Swift's cooperative pool or on a
/// Dispatch queue's threads.
package enum WorkerThread {
    /// Owns the closure a new thread runs, retained across `pthread_create`.
    private final class Start {
        let name: String?
        let body: @Sendable () -> Void
        init(name: String?, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Starts a detached thread running `body`.
    ///
    /// - Parameters:
    ///   - name: The thread's name in `top -H`, gdb and `/proc`; Linux keeps the first 15 bytes.
    ///   - body: What the thread runs; the thread ends when it returns.
    /// - Returns: `false` when `pthread_create` failed (no thread started, `body` released).
    package static func start(name: String? = nil, _ body: @escaping @Sendable () -> Void) -> Bool {
        let start = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { raw in
                let start = Unmanaged<Start>.fromOpaque(raw!).takeRetainedValue()
                if let name = start.name {
                    // The kernel limit is 16 bytes with the terminator; cut on a character boundary.
                    var cut = Substring(name)
                    while cut.utf8.count > 15 { cut = cut.dropLast() }
                    if let setName = threadNameSetter {
                        _ = String(cut).withCString { setName(pthread_self(), $0) }
                    }
                }
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

/// `pthread_setname_np`, a GNU extension Glibc's Swift module does not import; looked up once.
private let threadNameSetter: (@convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32)? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_setname_np") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32).self)
}()
