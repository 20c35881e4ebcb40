internal import Synchronization

// Context classes that `classBound(_:)` recognizes by their type, registered by the package's
// other modules (a `UVLoop`). Recognized, a context becomes the class-bound existential a
// callback stores without a dynamic cast, which looks the conformance up at run time (about
// 800 instructions for every callback). Append-only, at most `classContextCapacity` types,
// read without a lock: a slot is written before the count that publishes it.

/// One registered type and how to make the class-bound existential from an instance of it.
struct ClassContextType {
    let type: ObjectIdentifier
    let bind: @Sendable (AnyObject) -> any ExecutionContext & AnyObject
    /// Whether every instance runs one job at a time, in order (see `Internal/HopBatch.swift`).
    let serial: Bool
}

/// How many types can be registered; later registrations are ignored (those types take the cast).
let classContextCapacity = 8

/// How many slots of ``classContextSlots`` are written.
let classContextCount = Atomic<Int>(0)

/// The registered types; slots below ``classContextCount`` never change.
nonisolated(unsafe) let classContextSlots = UnsafeMutablePointer<ClassContextType>.allocate(capacity: classContextCapacity)

/// Serializes registrations.
let classContextWriter = Lock<Void>(())

/// Lets `classBound(_:)` recognize contexts of type `Context` without a dynamic cast.
/// Registering a type again does nothing.
///
/// - Parameters:
///   - type: The context class.
///   - serial: Whether every instance runs one job at a time, in the order submitted, so that
///     the hops of a batched turn may share one job on it (see `Internal/HopBatch.swift`).
@_alwaysEmitIntoClient
package func registerClassContextType<Context: ExecutionContext & AnyObject>(_ type: Context.Type, serial: Bool = false) {
    registerClassContextType(ObjectIdentifier(type), serial: serial) { unsafeDowncast($0, to: Context.self) }
}

/// ``registerClassContextType(_:serial:)`` without its type parameter: what the generic
/// function emitted into its callers hands over.
@usableFromInline
package func registerClassContextType(
    _ type: ObjectIdentifier,
    serial: Bool,
    bind: @escaping @Sendable (AnyObject) -> any ExecutionContext & AnyObject
) {
    classContextWriter.withLock { _ in
        let known = classContextCount.load(ordering: .relaxed)
        for index in 0..<known where classContextSlots[index].type == type { return }
        guard known < classContextCapacity else { return }
        (classContextSlots + known).initialize(to: ClassContextType(type: type, bind: bind, serial: serial))
        classContextCount.store(known + 1, ordering: .releasing)
    }
}

/// `context` as a class-bound existential if its type was registered, else `nil`.
func registeredClassBound<Context: ExecutionContext>(_ context: Context) -> (any ExecutionContext & AnyObject)? {
    let known = classContextCount.load(ordering: .acquiring)
    guard known > 0 else { return nil }
    let id = ObjectIdentifier(Context.self)
    for index in 0..<known where classContextSlots[index].type == id {
        return classContextSlots[index].bind(unsafeBitCast(context, to: AnyObject.self))
    }
    return nil
}

/// Whether `type` was registered as a serial context type.
func isRegisteredSerial(_ type: any ExecutionContext.Type) -> Bool {
    let known = classContextCount.load(ordering: .acquiring)
    let id = ObjectIdentifier(type)
    for index in 0..<known where classContextSlots[index].type == id {
        return classContextSlots[index].serial
    }
    return false
}
