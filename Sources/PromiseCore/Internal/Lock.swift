internal import Glibc
public import Synchronization

/// `Synchronization.Mutex`, made visible to ThreadSanitizer.
///
/// On Linux, a contended `Mutex` is handed from one thread to the next inside the prebuilt
/// (uninstrumented) Synchronization library, so ThreadSanitizer never sees the acquire and
/// reports every contended critical section as a race. This wrapper tells it about each
/// acquire and release through `__tsan_acquire` / `__tsan_release`, which exist only in a
/// sanitized process; elsewhere the hooks are `nil` and cost one load and branch.
@usableFromInline
package struct Lock<Value: ~Copyable>: ~Copyable, Sendable {
    @usableFromInline let mutex: Mutex<Value>

    /// Creates a lock protecting `value`.
    @inlinable
    package init(_ value: consuming sending Value) {
        mutex = Mutex(value)
    }

    /// Runs `body` with exclusive access to the protected value.
    @inlinable
    package borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
            guard let hooks = sanitizerHooks else { return try body(&value) }
            // Taking the address is itself an instrumented inout access, made before the
            // acquire below: hide it, or it races with the previous holder's accesses.
            hooks.ignoreBegin(nil, 0)
            let address = withUnsafeMutablePointer(to: &value) { UnsafeMutableRawPointer($0) }
            hooks.ignoreEnd(nil, 0)
            hooks.acquire(address)
            defer { hooks.release(address) }
            return try body(&value)
        }
    }
}

/// ThreadSanitizer's annotation entry points, found at run time.
@usableFromInline
struct SanitizerHooks: Sendable {
    @usableFromInline typealias Hook = @convention(c) (UnsafeMutableRawPointer?) -> Void
    @usableFromInline typealias IgnoreHook = @convention(c) (UnsafePointer<CChar>?, Int32) -> Void
    @usableFromInline let acquire: Hook
    @usableFromInline let release: Hook
    /// `AnnotateIgnoreWritesBegin` / `End`: accesses between them are not recorded.
    @usableFromInline let ignoreBegin: IgnoreHook
    @usableFromInline let ignoreEnd: IgnoreHook
}

/// `nil` unless the process runs under ThreadSanitizer.
@usableFromInline
let sanitizerHooks: SanitizerHooks? = {
    guard let acquire = dlsym(nil, "__tsan_acquire"), let release = dlsym(nil, "__tsan_release"),
        let ignoreBegin = dlsym(nil, "AnnotateIgnoreWritesBegin"), let ignoreEnd = dlsym(nil, "AnnotateIgnoreWritesEnd")
    else {
        return nil
    }
    return SanitizerHooks(
        acquire: unsafeBitCast(acquire, to: SanitizerHooks.Hook.self),
        release: unsafeBitCast(release, to: SanitizerHooks.Hook.self),
        ignoreBegin: unsafeBitCast(ignoreBegin, to: SanitizerHooks.IgnoreHook.self),
        ignoreEnd: unsafeBitCast(ignoreEnd, to: SanitizerHooks.IgnoreHook.self)
    )
}()
