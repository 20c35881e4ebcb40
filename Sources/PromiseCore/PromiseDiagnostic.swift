/// Something about a promise that is probably a bug in the program using it.
public struct PromiseDiagnostic: Sendable, CustomStringConvertible {
    /// The kind of problem.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        @usableFromInline let name: String

        @_alwaysEmitIntoClient init(name: String) { self.name = name }
        /// A rejected promise was deallocated and nobody had observed its error.
        @_alwaysEmitIntoClient
        public static var unhandledRejection: Kind { Kind(name: "unhandled rejection") }
        /// A pending promise with dependents was deallocated; they were rejected with
        /// ``PromiseError/Code-swift.struct/brokenPromise``.
        @_alwaysEmitIntoClient
        public static var brokenPromise: Kind { Kind(name: "broken promise") }
        /// Work handed to an execution context was dropped without running, because the
        /// context had shut down (a closure or a Swift task job given to a `UVLoop` after its
        /// `shutdown()`). ``PromiseDiagnostic/valueType`` is empty.
        @_alwaysEmitIntoClient
        public static var droppedWork: Kind { Kind(name: "dropped work") }
        /// An owner of a thread, a handle or a loop (a `CurlClient`, an `SQLiteDatabase`, a
        /// `FileIOPool`, an `FSFile`, a `UVLoop`) was deallocated without its `shutdown()` or
        /// `close()`, and something was lost: promises it owed that were rejected with its
        /// product's `shutdown` code (requests in flight, pending timers), or a close that
        /// failed with nobody waiting to hear it. Deallocating an owner ends it as that call
        /// would have, on the thread that owns it (a `UVLoop` that no thread runs: on the
        /// deallocating thread); only a loss is reported, once, naming the owner.
        /// ``PromiseDiagnostic/valueType`` is empty.
        @_alwaysEmitIntoClient
        public static var notShutDown: Kind { Kind(name: "not shut down") }
        /// The kind's name.
        @_alwaysEmitIntoClient
        public var description: String { name }
    }

    /// The kind of problem.
    public let kind: Kind
    /// The error involved: the unhandled rejection's reason, or the broken-promise error.
    public let error: any Error
    /// The promise's value type, such as `Int`.
    public let valueType: String

    @usableFromInline
    init(kind: Kind, error: any Error, valueType: String) {
        self.kind = kind
        self.error = error
        self.valueType = valueType
    }

    /// One line: `unhandled rejection of Promise<Int>: <error>`, or `dropped work: <error>`.
    @_alwaysEmitIntoClient
    public var description: String {
        valueType.isEmpty ? "\(kind): \(error)" : "\(kind) of Promise<\(valueType)>: \(error)"
    }
}
