public import Synchronization

/// A value that will be available later, or the error that prevented it.
///
/// A promise starts pending and is resolved exactly once: fulfilled with a value or rejected
/// with an error. Later attempts to resolve it are ignored. A promise is settled by the work
/// that made it: an adapter's operation, a closure initializer (``init(on:work:)-(_,((Value)->Void,(Error)->Void)->Void)``),
/// or the ``PromiseResolver`` that ``pending()`` returns. Chain work onto it with
/// ``then(on:_:)-(_,(Value)->NewValue)``, ``catch(on:policy:_:)``, ``recover(on:policy:_:)-(_,_,(Error)->Value)``
/// and ``always(on:_:)``; every chaining method returns a new promise.
///
/// ```swift
/// let total = fetchPrices()                       // Promise<[Double]>
///     .then { prices in prices.reduce(0, +) }     // Promise<Double>
///     .timeout(.seconds(2))
///     .recover { _ in 0 }
/// ```
///
/// ## Threading
///
/// `Promise` is `Sendable`: resolve it, chain onto it and cancel it from any thread. Its state
/// sits under one lightweight lock; callbacks never run under that lock. A callback runs on
/// the ``ExecutionContext`` given to the method that registered it (``Promises/defaultContext``
/// when none is given), never inside `then` and never inside `fulfill` or `reject`. The one
/// exception is ``InlineContext``, which runs callbacks on the resolving thread.
///
/// When a callback running on a context resolves a promise whose dependents use the same
/// context, those dependents run right after the callback returns, in the same turn. Long
/// chains are delivered in a loop, so a chain of 100 000 links does not grow the stack.
///
/// ## Cancellation
///
/// ``cancel()`` rejects a pending promise with `CancellationError`, runs its
/// ``onCancel(on:_:)`` handlers (which stop the work behind it) and rejects every dependent.
/// Cancellation also travels upward: when every consumer of a pending promise has been
/// cancelled, that promise is cancelled too. So cancelling the end of
/// `client.get(url).then(parse).timeout(.seconds(2))` aborts the transfer.
///
/// ## Nothing hangs silently
///
/// A promise that nothing can settle any more is rejected with
/// ``PromiseError/Code-swift.struct/brokenPromise``, and so are its dependents: one from
/// ``pending()`` as soon as its ``PromiseResolver`` is released unsettled, one made with the
/// fulfil and reject closures when both are released uncalled, and an adapter's pending
/// promise (a request, a query, a timer) when the adapter drops it. A rejected promise that
/// nobody observed is reported when it is deallocated. Both go to
/// ``Promises/diagnosticsHandler``.
public final class Promise<Value: Sendable>: Sendable {
    // Why PromiseCore's public API and the generic code it reaches are `@_alwaysEmitIntoClient`,
    // the one place that says it (EmittedIntoCallersTests checks the rule):
    // - Specialized for the caller's value types: unspecialized generic code looks up the
    //   metadata of every generic type it touches (State, Result), which costs more than the
    //   promise work itself.
    // - Not kept in every program: a module's code is linked whole (SwiftPM compiles it
    //   without function sections), so every function the module emits costs every program
    //   that links it, called or not. Emitted into callers, a program carries only the
    //   operators it calls.
    // Measured with scripts/measure-product-bytes (Swift 6.3.1, stripped release), against
    // this way: with only the public API emitted into callers and the machinery `@inlinable`,
    // PromiseCore's probe adds 90 KiB more and a PromiseCurl-only program 69 KiB more; with all
    // of it `@inlinable`, as swift-nio's futures are, 187 KiB and 166 KiB more. The price is
    // paid when a file that calls the operators is compiled (Benchmarks/rebuild-cost.sh).
    // Non-generic code that nothing inlinable reaches is compiled once, in the module, with
    // no attribute.

    /// Everything about a promise that changes, guarded by ``storage``.
    @usableFromInline
    struct State {
        /// The outcome, once resolved.
        @usableFromInline var result: Result<Value, any Error>?
        /// True while the result is set but callbacks still wait for the drain to deliver them.
        @usableFromInline var deliveryScheduled: Bool
        /// Whether anything ever registered interest in the result.
        @usableFromInline var observed: Bool
        /// Counted as pending by `PromiseTesting.waitForPromises` until it settles with no
        /// callbacks, its callbacks have been handed to their contexts, or it is deallocated
        /// (set only while tracking is on).
        @usableFromInline var tracked: Bool
        /// How many consumers registered a callback, and how many of them withdrew their
        /// interest: the promise is cancelled when the last one withdraws.
        @usableFromInline var consumers: Int32
        @usableFromInline var withdrawn: Int32
        /// The context whose callback resolves this promise, for deadlock detection.
        @usableFromInline let resolvingContextID: ObjectIdentifier?
        /// The handlers registered with `onCancel`.
        @usableFromInline var cancelHandlers: [CancelHandler]
        /// The callbacks waiting for the result.
        @usableFromInline var callbacks: CallbackList<Value>

        @_alwaysEmitIntoClient
        init(result: Result<Value, any Error>? = nil, resolvingContextID: ObjectIdentifier? = nil) {
            self.result = result
            self.deliveryScheduled = false
            self.observed = false
            self.tracked = false
            self.consumers = 0
            self.withdrawn = 0
            self.resolvingContextID = resolvingContextID
            self.cancelHandlers = []
            self.callbacks = .none
        }

        /// Whether `deinit` would have something to do: dependents to break, or a rejection
        /// nobody observed to report.
        @_alwaysEmitIntoClient
        var needsDeinitWork: Bool {
            switch result {
            case nil: return !callbacks.isEmpty || tracked
            case .failure?: return !observed
            case .success?: return false
            }
        }
    }

    /// Guards ``state``. A lock over a concrete type, with the state a plain stored property
    /// beside it: `deinit` runs unspecialized, and destroying a `Lock<State>` there looked up
    /// the generic metadata of `Lock`, `Mutex` and `_Cell` of `State` (about 600 instructions
    /// per promise, a third of a short chain's cost); a plain `State` costs one lookup.
    @usableFromInline
    let storage: Lock<Bool>

    /// How a consumer's link reaches this promise: held, or watched through a weak reference
    /// for an adapter's promise (`Internal/UpstreamLink.swift`).
    @usableFromInline
    let linkage: Linkage

    /// The promise this one waits for (or a ``WatchedSource`` of it), for upward cancellation
    /// and the deadlock check; read and written only inside ``withState(_:)``, and released
    /// outside it. The rule is in `Internal/UpstreamLink.swift`.
    @usableFromInline
    @exclusivity(unchecked)
    nonisolated(unsafe) var upstream: (any PromiseNode)?

    /// The promise's state; read and written only inside ``withState(_:)``.
    @usableFromInline
    @exclusivity(unchecked)
    nonisolated(unsafe) var state: State

    /// Runs `body` with exclusive access to the state.
    @_alwaysEmitIntoClient
    func withState<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        try storage.withLock { _ in try body(&state) }
    }

    /// `State.needsDeinitWork`, mirrored after every change under the lock, so that `deinit`,
    /// which always runs unspecialized, can return at once in the common case without the
    /// generic lock (a runtime metadata lookup, more than the rest of a promise's life costs).
    /// Relaxed is enough: the last release of the promise orders these stores before `deinit`.
    @usableFromInline
    let attention: Atomic<Bool>

    @_alwaysEmitIntoClient
    init(state: sending State) {
        attention = Atomic(state.needsDeinitWork)
        storage = Lock(false)
        linkage = .held
        self.state = state
    }

    /// Creates a pending promise, for internal operators.
    ///
    /// `resolvingContextID` is the ``ExecutionContext/executionContextID`` of the context
    /// whose work settles the promise: the context the operator hands its callback, timer or
    /// work to. `awaitPromise` throws ``PromiseError/Code-swift.struct/deadlock`` when a thread
    /// running that context waits for the promise while it is pending. `nil` for a promise
    /// settled inline by the promises it waits for (a combinator, linked to its inputs); the
    /// scheduler checks, in debug builds, that work handed to a context is for a promise
    /// naming it.
    ///
    /// `linkage` is ``Linkage/watched`` only for an adapter's promise
    /// (``pending(resolvedOn:)``); every operator's promise is settled by its operator.
    ///
    /// - Parameters:
    ///   - resolvingContextID: The resolving context's identity, or `nil`.
    ///   - linkage: How consumers link to the promise.
    @_alwaysEmitIntoClient
    init(resolvingContextID: ObjectIdentifier?, linkage: Linkage = .held) {
        attention = Atomic(false)
        storage = Lock(false)
        self.linkage = linkage
        state = State(resolvingContextID: resolvingContextID)
    }

    /// Creates a promise fulfilled with `value`.
    ///
    /// - Parameter value: The value.
    @_disfavoredOverload  // a closure argument means the closure initializers
    @_alwaysEmitIntoClient
    public init(_ value: Value) {
        attention = Atomic(false)
        storage = Lock(false)
        linkage = .held
        state = State(result: .success(value))
    }

    /// Creates a promise rejected with `error`.
    ///
    /// Give the value type explicitly (`Promise<Int>(error)`): it cannot be inferred from an error.
    /// When the value type can hold the error itself (`Promise<any Error>(error)`), the call is
    /// ambiguous with ``init(_:)-(Value)``: make such a promise with ``pending()`` and settle it
    /// with its resolver's ``PromiseResolver/reject(_:)`` or ``PromiseResolver/fulfill(_:)``.
    ///
    /// - Parameter error: The reason. A `CancellationError` makes a cancelled promise.
    @_disfavoredOverload  // inside a chain, `Promise(x)` must not leave the value type open
    @_alwaysEmitIntoClient
    public init(_ error: any Error) {
        attention = Atomic(true)
        storage = Lock(false)
        linkage = .held
        state = State(result: .failure(error))
    }

    /// Creates a pending promise and the resolver that settles it.
    ///
    /// ```swift
    /// let (promise, resolver) = Promise<Int>.pending()
    /// startWork { result in resolver.resolve(result) }
    /// return promise
    /// ```
    ///
    /// Only the resolver can settle the promise (consumers can still ``cancel()`` it). Keep
    /// it until the work is done: if the resolver is released while the promise is pending,
    /// the promise is rejected with ``PromiseError/Code-swift.struct/brokenPromise``.
    ///
    /// - Returns: A new pending promise and its resolver.
    @_alwaysEmitIntoClient
    public static func pending() -> (promise: Promise<Value>, resolver: PromiseResolver<Value>) {
        let resolver = pendingResolver(heldBy: .resolver)
        return (resolver.promise, resolver)
    }

    /// The resolver of a new pending promise, for the report of its release (``ResolverHolder``).
    @_alwaysEmitIntoClient
    static func pendingResolver(heldBy holder: ResolverHolder) -> PromiseResolver<Value> {
        let promise = Promise(state: State())
        promise.trackIfTesting()
        return PromiseResolver(promise, holder: holder)
    }

    /// While `PromiseTesting` tracks promise work, counts this pending promise as work in
    /// flight until it settles or is deallocated; otherwise does nothing.
    @_alwaysEmitIntoClient
    func trackIfTesting() {
        guard Tracking.isEnabled else { return }
        Tracking.begin()
        withState { state in
            state.tracked = true
            attention.store(true, ordering: .relaxed)
        }
    }

    deinit {
        guard attention.load(ordering: .relaxed) else { return }
        // This runs unspecialized: keep the path to one lock section
        // whose result type is not generic (each generic type costs a metadata lookup here).
        // What to do, decided under the lock: report a rejection nobody observed, or break the
        // dependents of a pending promise.
        let (unobserved, broken): ((any Error)?, Bool) = withState { state in
            if state.tracked {
                state.tracked = false
                Tracking.end()
            }
            guard let result = state.result else { return (nil, !state.callbacks.isEmpty) }
            if !state.observed, case .failure(let error) = result { return (error, false) }
            return (nil, false)
        }
        if let unobserved {
            reportUnobserved(unobserved, of: Value.self)
            return
        }
        guard broken else { return }
        let callbacks = withState { $0.callbacks.take() }
        let error = reportBroken(Value.self)
        Scheduler.runImmediately { turn in
            callbacks.dispatchAll(.failure(error), from: ObjectIdentifier(self), in: turn)
        }
    }

    // MARK: Resolving

    /// Fulfils the promise with `value`, unless it is already resolved: for this package's
    /// adapters, which settle the promises they make. Everyone else settles a promise through
    /// its ``PromiseResolver``.
    ///
    /// - Parameter value: The value.
    @_alwaysEmitIntoClient
    package func fulfill(_ value: Value) {
        resolve(.success(value), by: .outside)
    }

    /// Rejects the promise with `error`, unless it is already resolved (for adapters, as
    /// ``fulfill(_:)``).
    ///
    /// - Parameter error: The reason. A `CancellationError` cancels the promise.
    @_alwaysEmitIntoClient
    package func reject(_ error: any Error) {
        resolve(.failure(error), by: .outside)
    }

    /// Fulfils or rejects the promise with `result`, unless it is already resolved (for
    /// adapters, as ``fulfill(_:)``).
    ///
    /// - Parameter result: The outcome.
    @_alwaysEmitIntoClient
    package func resolve(_ result: Result<Value, any Error>) {
        resolve(result, by: .outside)
    }

    /// Cancels the promise if it is pending: rejects it with `CancellationError`, runs its
    /// ``onCancel(on:_:)`` handlers, rejects its dependents, and withdraws its interest from
    /// the promise it waits for (which is cancelled in turn when no other consumer is left).
    ///
    /// Does nothing if the promise is already resolved.
    ///
    /// A promise of work that cannot always be stopped (a PromiseSQLite statement or
    /// transaction) settles once the work has reacted: with `CancellationError` when it was
    /// stopped, with its real outcome when it had already completed (a `COMMIT` that was
    /// running), so that a cancelled promise never hides a change that was made.
    @_alwaysEmitIntoClient
    public func cancel() {
        if let interceptor = cancelInterceptor() {
            interceptor.body()
            return
        }
        resolve(.failure(CancellationError()), by: .outside)
    }

    /// The handler that takes this pending promise's cancellation requests, if an adapter
    /// registered one.
    @_alwaysEmitIntoClient
    func cancelInterceptor() -> CancelHandler? {
        withState { state in
            guard state.result == nil, !state.cancelHandlers.isEmpty else { return nil }
            return state.cancelHandlers.first { $0.interceptsRequests }
        }
    }

    /// Resolves the promise, as `settler` settles it (``Settler``). `handled` says a rejection
    /// was already seen by a handler (`catch` passing it on), so it is not reported as
    /// unhandled when nobody observes this promise.
    @_alwaysEmitIntoClient
    func resolve(_ result: Result<Value, any Error>, by settler: Settler, handled: Bool = false) {
        let settlement: Settlement? = withState { state in
            guard state.result == nil else { return nil }
            if handled { state.observed = true }
            var settlement = Self.settle(&state, with: result)
            settlement.upstream = takeUpstream()
            attention.store(state.needsDeinitWork, ordering: .relaxed)
            return settlement
        }
        guard let settlement else { return }
        finish(settlement, nested: settler == .chain)
        if settler == .outside, let upstream = settlement.upstream {
            withdrawUpward(from: upstream)
        }
    }

    @_alwaysEmitIntoClient
    static func settle(
        _ state: inout State,
        with result: Result<Value, any Error>
    ) -> Settlement {
        var settlement = Settlement()
        state.result = result
        if case .failure(let error) = result, error is CancellationError {
            settlement.runHandlers = true
        }
        // A swap moves the handlers out without retaining or releasing the array (usually the
        // shared empty one).
        swap(&settlement.handlers, &state.cancelHandlers)
        if !state.callbacks.isEmpty {
            state.deliveryScheduled = true
            settlement.deliver = true
        } else if state.tracked {
            // With callbacks, a tracked promise counts on until `deliverCallbacks` has handed
            // them to their contexts, whose jobs count from then on.
            state.tracked = false
            trackedPromiseSettled()
        }
        return settlement
    }

    /// Takes the upstream link out (under the lock), for the caller to withdraw from and to
    /// release after the lock.
    @_alwaysEmitIntoClient
    func takeUpstream() -> (any PromiseNode)? {
        guard upstream != nil else { return nil }
        var taken: (any PromiseNode)?
        swap(&taken, &upstream)
        return taken
    }

    /// What a consumer's link to this promise holds (``Linkage``): the promise, or a weak
    /// ``WatchedSource`` of an adapter's promise. Read inside this promise's lock, as the link
    /// is made.
    @_alwaysEmitIntoClient
    var consumerLink: any PromiseNode {
        switch linkage {
        case .held: return self
        case .watched: return WatchedSource(self)
        }
    }

    /// Runs the cancel handlers and delivers the callbacks of a promise just settled.
    /// `nested` says the library itself settled it, after any user callback returned (a
    /// chaining method forwarding a result), so delivery may happen at once, nested in the
    /// current drain, instead of after it.
    @_alwaysEmitIntoClient
    func finish(_ settlement: Settlement, nested: Bool = false) {
        if settlement.runHandlers {
            for handler in settlement.handlers where handler.role == .stopsWork {
                handler.run()
            }
        }
        // Deliver now, from specialized code, unless this thread is already draining: then the
        // drain loop delivers after the current callback returns (which keeps a long chain off
        // the stack), or, for a nested settlement, at once up to a small depth.
        if settlement.deliver, let turn = Scheduler.beginDelivery(of: self, nested: nested) {
            deliverCallbacks(in: turn)
            Scheduler.endDelivery(turn)
        }
    }
}

/// Ends the count of a promise that ``Promise/trackIfTesting()`` counted.
@usableFromInline
func trackedPromiseSettled() {
    Tracking.end()
}

/// Reports a rejection of a `Promise<valueType>` that nobody observed, unless it is a
/// cancellation or a broken promise's (reported when it broke). Not generic, so every value
/// type's `deinit` shares it.
func reportUnobserved(_ error: any Error, of valueType: Any.Type) {
    guard !(error is CancellationError), (error as? PromiseError)?.code != .brokenPromise else { return }
    Promises.report(PromiseDiagnostic(kind: .unhandledRejection, error: error, valueType: "\(valueType)"))
}

/// Reports a pending `Promise<valueType>` deallocated with dependents, and returns the error
/// they are rejected with.
func reportBroken(_ valueType: Any.Type) -> PromiseError {
    let error = PromiseError.broken(valueType)
    Promises.report(PromiseDiagnostic(kind: .brokenPromise, error: error, valueType: "\(valueType)"))
    return error
}
