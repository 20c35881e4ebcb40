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
    @_alwaysEmitIntoClient
    package init(_ value: consuming sending Value) {
        mutex = Mutex(value)
    }

    /// Runs `body` with exclusive access to the protected value.
    @_alwaysEmitIntoClient
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

extension Lock where Value == Bool {
    /// ``withLock(_:)`` for a promise's code that runs unspecialized (a witness of
    /// `PromiseNode`, called for a promise of any value type). Not generic, so it is compiled
    /// once for this lock type: the generic `withLock` called from unspecialized code looks up
    /// the metadata of `Mutex<Bool>` on every call, about 330 instructions.
    @_alwaysEmitIntoClient
    borrowing func withLockNonGeneric(_ body: () -> Void) {
        withLock { _ in body() }
    }
}

/// ThreadSanitizer's annotation entry points, found at run time.
@usableFromInline
package struct SanitizerHooks: Sendable {
    /// `__tsan_acquire`.
    @usableFromInline let acquire: SanitizerHook
    /// `__tsan_release`.
    @usableFromInline let release: SanitizerHook
    /// `AnnotateIgnoreWritesBegin`: accesses from here to `ignoreEnd` are not recorded.
    @usableFromInline let ignoreBegin: SanitizerIgnoreHook
    /// `AnnotateIgnoreWritesEnd`.
    @usableFromInline let ignoreEnd: SanitizerIgnoreHook
}
/// The type of `__tsan_acquire` and `__tsan_release`.
@usableFromInline
package typealias SanitizerHook = @convention(c) (UnsafeMutableRawPointer?) -> Void
/// The type of `AnnotateIgnoreWritesBegin` and `AnnotateIgnoreWritesEnd`.
@usableFromInline
package typealias SanitizerIgnoreHook = @convention(c) (UnsafePointer<CChar>?, Int32) -> Void

/// `nil` unless the process runs under ThreadSanitizer.
///
/// Read on every lock operation, so it is not a lazily initialized global (each read of one
/// goes through `swift_once`, about 20 instructions): a constant-initialized atomic says
/// whether the hooks were looked up and found, and the lookup runs on first use.
@_alwaysEmitIntoClient
package var sanitizerHooks: SanitizerHooks? {
    switch sanitizerHooksState.load(ordering: .acquiring) {
    case sanitizerHooksAbsent: return nil
    case sanitizerHooksPresent: return foundSanitizerHooks
    default: return lookUpSanitizerHooks()
    }
}

// What ``sanitizerHooksState`` holds: not looked up yet (0), absent, present, or being stored.
@_alwaysEmitIntoClient var sanitizerHooksUnknown: UInt8 { 0 }
@_alwaysEmitIntoClient var sanitizerHooksAbsent: UInt8 { 1 }
@_alwaysEmitIntoClient var sanitizerHooksPresent: UInt8 { 2 }
@_alwaysEmitIntoClient var sanitizerHooksStoring: UInt8 { 3 }

/// Whether ``foundSanitizerHooks`` is set: `sanitizerHooksUnknown`, `…Absent`, `…Present` or
/// `…Storing`.
@usableFromInline
let sanitizerHooksState = Atomic<UInt8>(0)

/// The hooks, written once before ``sanitizerHooksState`` becomes `present` (a releasing
/// store) and read only after an acquiring load saw `present`.
@usableFromInline
nonisolated(unsafe) var foundSanitizerHooks: SanitizerHooks? = nil

/// Looks the hooks up; the first caller to finish records the answer for everyone.
@usableFromInline
@inline(never)
func lookUpSanitizerHooks() -> SanitizerHooks? {
    let hooks = sanitizerHooksIfPresent()
    // One thread stores; any other that raced it has its own copy of the same answer.
    guard sanitizerHooksState.compareExchange(expected: sanitizerHooksUnknown, desired: sanitizerHooksStoring, ordering: .relaxed).exchanged
    else { return hooks }
    foundSanitizerHooks = hooks
    sanitizerHooksState.store(hooks == nil ? sanitizerHooksAbsent : sanitizerHooksPresent, ordering: .releasing)
    return hooks
}

/// ThreadSanitizer's annotation functions, if this process has them.
private func sanitizerHooksIfPresent() -> SanitizerHooks? {
    guard let acquire = dlsym(nil, "__tsan_acquire"), let release = dlsym(nil, "__tsan_release"),
        let ignoreBegin = dlsym(nil, "AnnotateIgnoreWritesBegin"), let ignoreEnd = dlsym(nil, "AnnotateIgnoreWritesEnd")
    else {
        return nil
    }
    return SanitizerHooks(
        acquire: unsafeBitCast(acquire, to: SanitizerHook.self),
        release: unsafeBitCast(release, to: SanitizerHook.self),
        ignoreBegin: unsafeBitCast(ignoreBegin, to: SanitizerIgnoreHook.self),
        ignoreEnd: unsafeBitCast(ignoreEnd, to: SanitizerIgnoreHook.self)
    )
}
