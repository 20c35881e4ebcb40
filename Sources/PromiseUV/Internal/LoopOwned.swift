/// An object that only its loop's thread uses, passed across threads to reach it there:
/// ``UVLoopBound`` for PromiseUV's own loop-confined objects, checked on every access, in
/// every build.
///
/// The object is handed over when the wrapper is made (`sending`): from then on only
/// ``value`` reaches it, and ``value`` stops the program on any thread but the loop's. It
/// holds the loop's core, not the `UVLoop`, so what it wraps never keeps a dropped loop alive.
struct LoopOwned<Object: AnyObject>: @unchecked Sendable {
    // @unchecked Sendable: `object` is reached only through `value`, which checks that it
    // runs on the loop thread, and it was transferred in with `sending`.
    private let object: Object
    let core: LoopCore

    init(_ object: sending Object, core: LoopCore) {
        self.object = object
        self.core = core
    }

    /// The object. Use it only on the loop's thread (checked: another thread stops the
    /// program).
    var value: Object {
        precondition(core.isOnLoopThread, "\(Object.self) used off its loop's thread")
        return object
    }

    /// Runs `body` with the object on the loop thread: at once when called there, otherwise
    /// queued on the loop as `kind`.
    ///
    /// - Returns: `false` when the loop refused the work (shut down); `body` never runs then.
    func run(_ kind: LoopCore.Kind, _ body: @escaping @Sendable (Object) -> Void) -> Bool {
        if core.isOnLoopThread {
            body(object)
            return true
        }
        return core.submit(kind) { body(value) }
    }
}
