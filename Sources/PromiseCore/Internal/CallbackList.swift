internal import Dispatch

/// A callback waiting for a promise's result, with where it runs.
@usableFromInline
struct Callback<Value: Sendable>: Sendable {
    /// Which outcome may skip the hop to `context` because the body only forwards it.
    @usableFromInline
    enum Passthrough: Sendable { case none, success, failure }

    /// `nil` runs the body in the resolving thread's drain (inline context, internal plumbing).
    /// Class-bound, so copying a callback is a retain: an opaque existential made every copy
    /// of a callback list go through generic value witnesses. A context that is not a class
    /// is boxed (``ContextBox``).
    @usableFromInline let context: (any ExecutionContext & AnyObject)?
    /// The promise this callback resolves, rejected if its context drops the callback. Not a
    /// strong reference: ``body`` holds the owner (every operator that names an owner builds
    /// a body that resolves it), and a callback is read only while it is alive. Held
    /// strongly, every copy of a callback in code specialized outside PromiseCore retained it
    /// through `Optional`'s generic value witness, about 100 instructions a copy: 319 more
    /// for a pending promise with three `then`s, 127 more for one with a callback
    /// (`Benchmarks/counts.sh`).
    @usableFromInline unowned(unsafe) let owner: (any PromiseNode)?
    @usableFromInline let body: @Sendable (Result<Value, any Error>) -> Void
    // The one-byte fields come last, where they pack into the tail of the struct: a callback
    // is stored inline in every promise it waits on.
    @usableFromInline let passthrough: Passthrough
    /// Whether `context` was told that this callback waits for it (see
    /// ``ExecutionContext/callbackBeganWaiting()``); it is told once more when the callback
    /// is delivered.
    @usableFromInline let announced: Bool

    /// A callback running where `target` says; the target has announced it already.
    @_alwaysEmitIntoClient
    init(
        _ target: CallbackTarget,
        passthrough: Passthrough = .none,
        owner: (any PromiseNode)?,
        _ body: @escaping @Sendable (Result<Value, any Error>) -> Void
    ) {
        self.owner = owner
        self.context = target.context
        self.announced = target.announced
        self.passthrough = passthrough
        self.body = body
    }

    /// A callback running on `context`, or in the resolving thread's drain when it is `nil`.
    @_alwaysEmitIntoClient
    init(
        _ context: (any ExecutionContext)?,
        passthrough: Passthrough = .none,
        owner: (any PromiseNode)?,
        _ body: @escaping @Sendable (Result<Value, any Error>) -> Void
    ) {
        let target = context.map { CallbackTarget(opening: $0) } ?? .inDrain()
        self.init(target, passthrough: passthrough, owner: owner, body)
    }

    /// Runs or submits the callback. Must be called from inside a drain on this thread.
    @_alwaysEmitIntoClient
    func dispatch(_ result: Result<Value, any Error>, turn: Turn) {
        guard let context else {
            body(result)
            return
        }
        defer {
            if announced { stopWaiting(for: context) }
        }
        switch (passthrough, result) {
        case (.success, .success), (.failure, .failure):
            body(result)
            return
        default:
            break
        }
        if let current = turn.currentContextID, context.executionContextID == current {
            body(result)
            return
        }
        Scheduler.submitDelivery(context, owner: owner, body, result)
    }

    /// Whether `owner` is the promise this callback resolves.
    @_alwaysEmitIntoClient
    func isOwned(by owner: ObjectIdentifier) -> Bool {
        guard let current = self.owner else { return false }
        return ObjectIdentifier(current) == owner
    }

    /// Ends the announcement of a callback that did not have to wait after all.
    @_alwaysEmitIntoClient
    func withdrawAnnouncement() {
        if announced, let context { stopWaiting(for: context) }
    }
}

/// The callbacks of one promise: the first stored inline, an array only from the second on.
@usableFromInline
enum CallbackList<Value: Sendable>: Sendable {
    case none
    case one(Callback<Value>)
    case many([Callback<Value>])

    @_alwaysEmitIntoClient
    var isEmpty: Bool {
        if case .none = self { return true }
        return false
    }

    @_alwaysEmitIntoClient
    mutating func append(_ callback: Callback<Value>) {
        switch self {
        case .none:
            self = .one(callback)
        case .one(let first):
            self = .many([first, callback])
        case .many(var all):
            self = .none
            all.append(callback)
            self = .many(all)
        }
    }

    /// Removes the first callback whose owner is `owner` and returns it.
    @_alwaysEmitIntoClient
    mutating func remove(ownedBy owner: ObjectIdentifier) -> Callback<Value>? {
        switch self {
        case .none:
            return nil
        case .one(let callback):
            guard callback.isOwned(by: owner) else { return nil }
            self = .none
            return callback
        case .many(var all):
            guard let index = all.firstIndex(where: { $0.isOwned(by: owner) }) else { return nil }
            self = .none
            let removed = all.remove(at: index)
            self = all.count == 1 ? .one(all[0]) : .many(all)
            return removed
        }
    }

    /// Returns the callbacks and leaves the list empty.
    @_alwaysEmitIntoClient
    mutating func take() -> CallbackList<Value> {
        let taken = self
        self = .none
        return taken
    }

    /// Dispatches every callback, in the order they were added, after clearing its owner's
    /// upstream link to `source` (the promise the callbacks were taken from): once handed
    /// over, the callback finishes its owner, and the link, which would keep `source` alive
    /// and withdraw from a promise that has settled, has no use left (the rule is in
    /// `Internal/UpstreamLink.swift`). `turn` is the calling thread's.
    @_alwaysEmitIntoClient
    func dispatchAll(_ result: Result<Value, any Error>, from source: ObjectIdentifier, in turn: Turn) {
        switch self {
        case .none:
            break
        case .one(let callback):
            callback.owner?.unlinkUpstream(from: source)
            callback.dispatch(result, turn: turn)
        case .many(let all):
            for callback in all {
                callback.owner?.unlinkUpstream(from: source)
                callback.dispatch(result, turn: turn)
            }
        }
    }
}

/// A handler registered with `onCancel`.
@usableFromInline
struct CancelHandler: Sendable {
    @usableFromInline let context: (any ExecutionContext)?
    @usableFromInline let body: @Sendable () -> Void
    @usableFromInline let role: Role

    /// What a handler does when its promise is cancelled.
    @usableFromInline
    enum Role: Sendable {
        /// Runs once the promise is cancelled (`onCancel`): it stops the work.
        case stopsWork
        /// Takes cancellation requests in place of settling the promise: the adapter that
        /// registered it settles the promise itself, with `CancellationError` when it stopped
        /// the work, or with the outcome when the work had passed the point of no return.
        case takesRequests
        /// Runs nothing; says that the work behind the promise cannot be stopped (another
        /// library's future), so a cancellation settles the promise while the work goes on.
        case marksUnstoppable
    }

    @_alwaysEmitIntoClient
    init(context: (any ExecutionContext)?, role: Role = .stopsWork, body: @escaping @Sendable () -> Void) {
        self.context = context
        self.role = role
        self.body = body
    }

    /// Whether this handler takes the promise's cancellation requests (``Role/takesRequests``).
    @_alwaysEmitIntoClient
    var interceptsRequests: Bool { role == .takesRequests }

    @usableFromInline
    func run() {
        if let context, !isInline(context) {
            Scheduler.submit(context, body)
        } else {
            body()
        }
    }
}

/// A weak reference to a promise, for combinators that may have to withdraw from their inputs.
@usableFromInline
struct WeakNode: Sendable {
    @usableFromInline weak var node: (any PromiseNode)?

    @_alwaysEmitIntoClient
    init(_ node: any PromiseNode) {
        self.node = node
    }

    /// Withdraws one consumer from the node (if it is still alive), walking upward without recursion.
    @_alwaysEmitIntoClient
    func withdraw() {
        withdrawUpward(from: node)
    }
}

/// Withdraws a consumer from `node`, and from each upstream that got cancelled as a result.
@_alwaysEmitIntoClient
func withdrawUpward(from node: (any PromiseNode)?) {
    var next = node
    while let current = next {
        next = current.withdrawConsumer()
    }
}

/// Whether `context` is the inline context (a metatype comparison, cheaper than a dynamic cast).
@_alwaysEmitIntoClient
func isInline(_ context: any ExecutionContext) -> Bool {
    ObjectIdentifier(type(of: context)) == ObjectIdentifier(InlineContext.self)
}

/// Where a derived promise's callback runs, worked out once from the context an operator was
/// given. Made by ``callbackTarget(_:)``, which is not inlined: the context arrives as an
/// optional opaque existential, and every copy of one in specialized operator code went
/// through `Optional`'s generic value witnesses (about 110 instructions a copy, three copies
/// and five destroys per `then`). Here it is read once, in place.
@usableFromInline
struct CallbackTarget {
    /// `nil` for the inline context; otherwise the context as a class reference.
    @usableFromInline let context: (any ExecutionContext & AnyObject)?
    /// The context's ``ExecutionContext/executionContextID``, for the derived promise.
    @usableFromInline let resolvingContextID: ObjectIdentifier?
    /// Whether the context was told that a callback waits for it.
    @usableFromInline let announced: Bool

    /// The resolving thread's drain: no context, nothing announced.
    @usableFromInline
    static func inDrain() -> CallbackTarget {
        CallbackTarget(context: nil, resolvingContextID: nil, announced: false)
    }

    private init(context: (any ExecutionContext & AnyObject)?, resolvingContextID: ObjectIdentifier?, announced: Bool) {
        self.context = context
        self.resolvingContextID = resolvingContextID
        self.announced = announced
    }

    /// Where callbacks on `context` run; a context that wants to know is told that one waits.
    @usableFromInline
    init<Context: ExecutionContext>(opening context: Context) {
        if Context.self == InlineContext.self {
            self.init(context: nil, resolvingContextID: context.executionContextID, announced: false)
        } else if Context.self == DispatchQueue.self {
            // The type is known to match, so no dynamic cast (about 180 instructions here, where
            // `Context` is opened at run time).
            self.init(queue: _identityCast(context, to: DispatchQueue.self))
        } else {
            self.init(bound: classBound(context))
        }
    }

    /// Where callbacks on the class-bound context `bound` run; it is told that one waits if it
    /// wants to know.
    init(bound: any ExecutionContext & AnyObject) {
        if let queue = bound as? DispatchQueue {
            self.init(queue: queue)
            return
        }
        // Told before the callback is stored; a promise that turns out to be settled already
        // ends this at once (``Callback/withdrawAnnouncement()``).
        self.init(context: bound, resolvingContextID: bound.executionContextID, announced: beginWaiting(for: bound))
    }

    /// Where callbacks on `queue` run. Its requirements are called on the concrete type,
    /// statically: a queue keeps the protocol's default and never asks to be told that a
    /// callback waits, which the existential call of ``beginWaiting(for:)`` spends about 100
    /// instructions to learn.
    init(queue: DispatchQueue) {
        let announced = queue.keepsAliveWhileCallbacksWait
        if announced { queue.callbackBeganWaiting() }
        self.init(context: queue, resolvingContextID: queue.executionContextID, announced: announced)
    }
}

/// The target of a callback on `context`, ``Promises/defaultContext`` when it is `nil`.
@usableFromInline
func callbackTarget(_ context: (any ExecutionContext)?) -> CallbackTarget {
    if let context { return CallbackTarget(opening: context) }
    return CallbackTarget(default: Promises.defaultContextAndBound)
}

/// ``Promises/defaultContext`` and what ``CallbackTarget`` makes of it that does not change,
/// worked out once when the default is set, not for every callback.
@usableFromInline
struct DefaultContext: Sendable {
    /// The context.
    @usableFromInline let context: any ExecutionContext
    /// Its class-bound form (``classBound(_:)``, a dynamic cast or a box for most types), or
    /// `nil` for the inline context.
    let bound: (any ExecutionContext & AnyObject)?

    /// `context` as the default context: itself and its class-bound form.
    init(_ context: any ExecutionContext) {
        self.context = context
        self.bound = defaultContextBound(context)
    }
}

private func defaultContextBound<Context: ExecutionContext>(_ context: Context) -> (any ExecutionContext & AnyObject)? {
    Context.self == InlineContext.self ? nil : classBound(context)
}

extension CallbackTarget {
    /// Where callbacks on the default context run, as ``init(opening:)`` makes it.
    init(default context: DefaultContext) {
        guard let bound = context.bound else {
            self.init(context: nil, resolvingContextID: context.context.executionContextID, announced: false)
            return
        }
        self.init(bound: bound)
    }
}

/// Tells `context` that a callback waits for it, if it wants to know; returns whether it did.
@usableFromInline
func beginWaiting(for context: any ExecutionContext) -> Bool {
    guard context.keepsAliveWhileCallbacksWait else { return false }
    context.callbackBeganWaiting()
    return true
}

/// Tells `context` that an announced callback stopped waiting.
@usableFromInline
func stopWaiting(for context: any ExecutionContext) {
    context.callbackStoppedWaiting()
}

/// `context` as a class-bound existential: itself when it is a class, boxed otherwise.
///
/// The library's own queue types, and the context classes the package's other modules
/// register (``registerClassContextType(_:)``), are recognized by their type, which costs a
/// comparison: the dynamic cast for any other type looks the conformance up at run time,
/// about 800 instructions for every callback.
@usableFromInline
func classBound<Context: ExecutionContext>(_ context: Context) -> any ExecutionContext & AnyObject {
    if Context.self == DispatchQueue.self { return _identityCast(context, to: DispatchQueue.self) }
    if Context.self == InvalidatableQueue.self, let queue = context as? InvalidatableQueue { return queue }
    if let registered = registeredClassBound(context) { return registered }
    if let object = context as? any ExecutionContext & AnyObject { return object }
    return ContextBox(context)
}

/// A context that is not a class, boxed so a callback can hold it as a class reference.
/// Forwards every requirement to the boxed context.
@usableFromInline
final class ContextBox: ExecutionContext {
    @usableFromInline let base: any ExecutionContext

    init(_ base: any ExecutionContext) {
        self.base = base
    }

    @_alwaysEmitIntoClient func execute(_ work: @escaping @Sendable () -> Void) { base.execute(work) }
    @_alwaysEmitIntoClient func executeAfter(_ delay: Duration, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        base.executeAfter(delay, work)
    }
    @_alwaysEmitIntoClient var executionContextID: ObjectIdentifier? { base.executionContextID }
    @_alwaysEmitIntoClient func submit(_ job: ContextJob) { base.submit(job) }
    @_alwaysEmitIntoClient func submit(_ job: ContextJob, after delay: Duration) -> ScheduledWork { base.submit(job, after: delay) }
    @_alwaysEmitIntoClient var keepsAliveWhileCallbacksWait: Bool { base.keepsAliveWhileCallbacksWait }
    @_alwaysEmitIntoClient func callbackBeganWaiting() { base.callbackBeganWaiting() }
    @_alwaysEmitIntoClient func callbackStoppedWaiting() { base.callbackStoppedWaiting() }
}
