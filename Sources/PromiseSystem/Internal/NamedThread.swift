internal import Glibc

/// Starts the detached, named POSIX threads the adapters own (PromiseCurl's driver, a SQLite
/// connection's thread, PromiseFS's pool, a `UVLoop` started on a thread of its own): blocking
/// C calls never run on Swift's cooperative pool or on a Dispatch queue's threads.
package enum NamedThread {
    /// Owns the closure a new thread runs, retained across `pthread_create`.
    private final class Start: Sendable {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Starts a detached thread named `name` running `body`; the thread ends when `body`
    /// returns.
    ///
    /// - Parameters:
    ///   - name: The thread's name in `top -H`, gdb and `/proc`, cut to the whole characters
    ///     that fit in the 15 bytes Linux keeps (``kernelName(_:)``).
    ///   - body: What the thread runs.
    /// - Returns: 0, or the error number `pthread_create` returned (no thread started, `body`
    ///   released).
    package static func start(name: String, _ body: @escaping @Sendable () -> Void) -> Int32 {
        let start = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { raw in
                let start = Unmanaged<Start>.fromOpaque(raw!).takeRetainedValue()
                NamedThread.nameCurrentThread(start.name)
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

    /// Names the calling thread (``kernelName(_:)`` of `name`).
    ///
    /// - Parameter name: The name.
    package static func nameCurrentThread(_ name: String) {
        guard let setName = threadNameSetter else { return }
        _ = kernelName(name).withCString { setName(pthread_self(), $0) }
    }

    /// `name` cut to the whole characters that fit in 15 bytes: the kernel keeps 16 with the
    /// terminating NUL, and a name cut inside a character would show a broken sequence.
    ///
    /// - Parameter name: A thread name.
    /// - Returns: Its longest prefix of whole characters within 15 UTF-8 bytes.
    package static func kernelName(_ name: String) -> String {
        var cut = ""
        for character in name {
            guard cut.utf8.count + character.utf8.count <= 15 else { break }
            cut.append(character)
        }
        return cut
    }
}

/// `pthread_setname_np`, a GNU extension Glibc's Swift module does not import; looked up once.
private let threadNameSetter: (@convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32)? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_setname_np") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32).self)
}()
