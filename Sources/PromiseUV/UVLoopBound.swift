/// A value that only code running on one ``UVLoop``'s thread touches, checked on every access
/// in every build: state confined to a loop, captured by `@Sendable` callbacks without
/// `@unchecked Sendable` in your own code.
///
/// Callbacks bound to a loop (`then(on: loop)`, `loop.execute`, timers, signal watches) all
/// run on the loop's one thread, so state that only they read and write needs no lock. The
/// compiler cannot see that: a non-`Sendable` class captured by a `@Sendable` closure is an
/// error. Wrap it once, and every callback reaches it through ``value``:
///
/// ```swift
/// final class Stats { var requests = 0; var bytes = 0 }   // not Sendable, no lock
/// let stats = UVLoopBound(Stats(), loop: loop)
///
/// client.get(url).then(on: loop) { response in
///     stats.value.requests += 1
///     stats.value.bytes += response.body.count
/// }
/// ```
///
/// A `UVLoopBound` is a reference: copies share one value. The value is handed over when the
/// bound is made (`sending`), so no other reference to it stays behind on the creating
/// thread. Reading or writing ``value`` on any thread but the loop's is a programming error:
/// every access, in debug and release builds alike, checks the thread and stops the program
/// with a message naming the value's type (as SwiftNIO's `NIOLoopBound` does). The check is
/// one call, an atomic load and a `pthread_self()` comparison, about 18 instructions per
/// access.
public struct UVLoopBound<Value>: @unchecked Sendable {
    // @unchecked Sendable: `storage` is read and written only through `value` and
    // `withValue`, which check that they run on the loop thread, and the value
    // is transferred in with `sending`.

    /// The loop whose thread owns the value.
    public let loop: UVLoop
    @usableFromInline let storage: Storage

    @usableFromInline
    final class Storage {
        @usableFromInline var value: Value

        @usableFromInline
        init(_ value: sending Value) {
            self.value = value
        }
    }

    /// Binds `value` to `loop`. May be called on any thread: the value is transferred, not
    /// shared, so it is touched only through ``value`` from here on.
    ///
    /// - Parameters:
    ///   - value: The state; after this call, only the loop's thread uses it.
    ///   - loop: The loop whose thread may read and write it.
    public init(_ value: sending Value, loop: UVLoop) {
        self.loop = loop
        storage = Storage(value)
    }

    /// The value. Read and write it only on the loop's thread (checked: another thread stops
    /// the program).
    @inlinable
    public var value: Value {
        get {
            checkOnLoop()
            return storage.value
        }
        nonmutating set {
            checkOnLoop()
            storage.value = newValue
        }
        nonmutating _modify {
            checkOnLoop()
            yield &storage.value
        }
    }

    /// Runs `body` with the value, in place. Call it only on the loop's thread (checked:
    /// another thread stops the program).
    ///
    /// - Parameter body: Reads or changes the value.
    /// - Returns: What `body` returns.
    @inlinable
    public func withValue<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        checkOnLoop()
        return try body(&storage.value)
    }

    @inlinable
    func checkOnLoop() {
        precondition(
            loop.isOnLoopThread,
            "UVLoopBound<\(Value.self)> used off its loop's thread: touch it only in callbacks bound to the loop (then(on: loop), loop.execute, timers)"
        )
    }
}
