public import Dispatch
internal import PromiseBasics

/// Process-wide settings and diagnostics for promises.
///
/// ```swift
/// Promises.defaultContext = DispatchQueue.main      // google/promises' and PromiseKit's choice
/// Promises.diagnosticsHandler = { report in log.warning("\(report)") }
/// ```
public enum Promises {
    /// The serial queue that is the default context until you choose another one.
    ///
    /// It always runs, unlike the main queue on Linux, which drains only while the main thread
    /// sits in `dispatchMain()` or a run loop: a command-line tool that never does would hang.
    public static let defaultQueue = DispatchQueue(label: "swift-promise.default")

    @usableFromInline static let defaultContextStorage = Lock(DefaultContext(defaultQueue))
    @usableFromInline static let handlerStorage = Lock<@Sendable (PromiseDiagnostic) -> Void>(
        { report in StandardError.writeLine("swift-promise: \(report)") }
    )

    /// Where callbacks run when a chaining method is given no context. Thread-safe to read and
    /// set; each method reads it once, when it is called.
    ///
    /// Defaults to ``defaultQueue``. To run callbacks on the main queue, set it to
    /// `DispatchQueue.main` and have the main thread call `dispatchMain()`. To run them on a
    /// libuv loop, set it to a `UVLoop` from the PromiseUV product.
    @_alwaysEmitIntoClient
    public static var defaultContext: any ExecutionContext {
        get { defaultContextStorage.withLock { $0.context } }
        set { setDefaultContext(newValue) }
    }

    /// The setter of ``defaultContext``, kept in the module: programs that never set the
    /// default context do not carry what it works out.
    @usableFromInline
    static func setDefaultContext(_ newValue: any ExecutionContext) {
        let context = DefaultContext(canonicalMainQueue(newValue))
        defaultContextStorage.withLock { $0 = context }
    }

    /// ``defaultContext`` with its class-bound form, worked out once when it is set.
    static var defaultContextAndBound: DefaultContext { defaultContextStorage.withLock { $0 } }

    /// Called for every ``PromiseDiagnostic``: unhandled rejections and broken promises.
    ///
    /// The default writes one line to standard error. It is called on the thread that
    /// deallocates the promise; for ``PromiseDiagnostic/Kind/notShutDown``, on the thread
    /// that deallocates the owner or on the owner's own thread once it has ended its work.
    /// Keep it short and thread-safe.
    @_alwaysEmitIntoClient
    public static var diagnosticsHandler: @Sendable (PromiseDiagnostic) -> Void {
        get { handlerStorage.withLock { $0 } }
        set { handlerStorage.withLock { $0 = newValue } }
    }

    static func report(_ diagnostic: PromiseDiagnostic) {
        diagnosticsHandler(diagnostic)
    }

    /// Reports work that a context dropped without running (``PromiseDiagnostic/Kind/droppedWork``).
    ///
    /// - Parameter error: Says what was dropped, by whom, and what to do about it.
    @_alwaysEmitIntoClient
    package static func reportDroppedWork(_ error: any Error) {
        diagnosticsHandler(PromiseDiagnostic(kind: .droppedWork, error: error, valueType: ""))
    }

    /// Reports what an owner deallocated without its `shutdown()` or `close()` lost
    /// (``PromiseDiagnostic/Kind/notShutDown``). Owners call it through `DroppedOwner`,
    /// which words the report and holds the policy.
    ///
    /// - Parameter error: Says what was lost, and what to call next time.
    @_alwaysEmitIntoClient
    package static func reportNotShutDown(_ error: any Error) {
        diagnosticsHandler(PromiseDiagnostic(kind: .notShutDown, error: error, valueType: ""))
    }
}
