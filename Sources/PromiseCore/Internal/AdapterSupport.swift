/// Hooks for the execution contexts that this package's adapter products define (PromiseUV's
/// `UVLoop`). `package` access: not part of the public API, and free to change with the
/// adapters that use it.
@usableFromInline
package enum AdapterSupport {
    /// Runs `work` as one turn of the context identified by `contextID`: callbacks for that
    /// context that become ready while `work` runs (a promise it resolves) run right after it,
    /// without another hop, and ``awaitPromise(_:timeout:)`` called meanwhile can detect a
    /// deadlock on that context.
    ///
    /// - Parameters:
    ///   - contextID: The context's ``ExecutionContext/executionContextID``.
    ///   - work: Library code running on that context (never user code that resolves promises
    ///     with `fulfill` and expects its callbacks later).
    @_alwaysEmitIntoClient
    package static func runTurn(_ contextID: ObjectIdentifier?, _ work: () -> Void) {
        Scheduler.runTurn(contextID, work)
    }

    /// ``runTurn(_:_:)`` for work that settles many promises at once (a pass of an event
    /// loop): the callbacks it hands to a serial context (`Promises.defaultQueue`,
    /// `DispatchQueue.main`, a `UVLoop`) run in one job on that context instead of one job
    /// each, handed to the context when `work` returns, so the context is woken once per pass.
    /// A blocking wait inside `work` (``awaitPromise(_:timeout:)``) hands them over first;
    /// `work` must not block in any other way on a callback it hands to another context.
    ///
    /// - Parameters:
    ///   - contextID: The context's ``ExecutionContext/executionContextID``.
    ///   - work: Library code running on that context.
    package static func runBatchedTurn(_ contextID: ObjectIdentifier?, _ work: () -> Void) {
        Scheduler.runBatchedTurn(contextID, work)
    }

    /// Submits the callbacks that the calling thread's batched turn (``runBatchedTurn(_:_:)``)
    /// holds for the end of the turn, if it runs one: for a blocking wait of this package's
    /// own (PromiseTesting's `waitForPromises`), before it blocks.
    package static func handOverHeldHops() {
        Scheduler.handOverHeldHops()
    }

    /// Submits `work` to `context` as a turn of its own, as a callback's hop is: inside a
    /// batched turn (``runBatchedTurn(_:_:)``) it keeps its place among the turn's callbacks
    /// for that context.
    ///
    /// - Parameters:
    ///   - context: Where `work` runs.
    ///   - work: The work; runs once, unless the context refuses it.
    @_alwaysEmitIntoClient
    package static func submit(_ context: any ExecutionContext, _ work: @escaping @Sendable () -> Void) {
        Scheduler.submit(context, work)
    }

    /// The number of the attempt of ``retry(on:attempts:delay:condition:_:)`` (or its backoff
    /// form) whose work runs now on this thread, 1 for the first try; `nil` outside a retry's
    /// work. An adapter that records spans reads it where an operation starts, and marks the
    /// operation as a retry (PromiseCurl's `http.request.resend_count`).
    @TaskLocal package static var retryAttempt: Int?

    /// Runs `work`, the work of attempt `number` of a retry, with ``retryAttempt`` set to it.
    @usableFromInline
    package static func runningRetryAttempt<T>(_ number: Int, _ work: () throws -> T) rethrows -> T {
        try $retryAttempt.withValue(number, operation: work)
    }
}

extension Promise {
    /// A pending promise that work on the context `contextID` resolves, so that
    /// ``awaitPromise(_:timeout:)`` called on that context fails with a deadlock error
    /// instead of hanging.
    ///
    /// The adapter holds the promise and settles it. If it drops the promise unsettled, the
    /// promise is deallocated and its dependents are rejected with
    /// ``PromiseError/Code-swift.struct/brokenPromise``: consumers link to it weakly
    /// (``Linkage/watched``), so holding a dependent does not keep it alive.
    ///
    /// - Parameter contextID: The resolving context's identity.
    /// - Returns: A new pending promise.
    @_alwaysEmitIntoClient
    package static func pending(resolvedOn contextID: ObjectIdentifier?) -> Promise<Value> {
        let promise = Promise(resolvingContextID: contextID, linkage: .watched)
        promise.trackIfTesting()
        return promise
    }

    /// ``pending(resolvedOn:)`` as an initializer, for an adapter's public convenience
    /// initializer in another module of the package (PromiseNIO's `Promise(future)`).
    ///
    /// - Parameter contextID: The resolving context's identity.
    @_alwaysEmitIntoClient
    package convenience init(pendingResolvedOn contextID: ObjectIdentifier?) {
        self.init(resolvingContextID: contextID, linkage: .watched)
        trackIfTesting()
    }

    /// Resolves this promise from library code that runs as a turn of its context (a timer
    /// firing, a pool job's completion), not from inside a user callback: its callbacks are
    /// delivered at once, from code specialized in the caller, like a chaining method's
    /// forwarded result (nested up to the scheduler's limit), instead of queued for the
    /// unspecialized drain loop.
    ///
    /// - Parameter result: The outcome.
    @_alwaysEmitIntoClient
    package func resolveFromLibrary(_ result: Result<Value, any Error>) {
        resolve(result, by: .chain)
    }

    /// ``onCancel(on:_:)`` with the handler run on the cancelling thread, specialized in the
    /// caller: an adapter registers one per timer or job, where the unspecialized public
    /// method's generic metadata lookups cost more than the registration itself.
    ///
    /// - Parameter handler: Stops the work; runs at most once, on the cancelling thread.
    @_alwaysEmitIntoClient
    package func onCancelFromLibrary(_ handler: @escaping @Sendable () -> Void) {
        addCancelHandler(CancelHandler(context: nil, body: handler))
    }

    /// Makes `handler` take this promise's cancellation requests (``cancel()``, and upward
    /// cancellation once every consumer has withdrawn) instead of settling it with
    /// `CancellationError` at once. The adapter must then settle the promise itself, promptly:
    /// with `CancellationError` when it stopped the work, or with the outcome when the work
    /// could no longer be stopped, so that the promise never reports "cancelled" for work that
    /// took effect.
    ///
    /// - Parameter handler: Asks the work to stop; runs on the cancelling thread, once per
    ///   request, so it must be idempotent. Never runs after the promise has settled.
    @_alwaysEmitIntoClient
    package func onCancelRequestFromLibrary(_ handler: @escaping @Sendable () -> Void) {
        addCancelHandler(CancelHandler(context: nil, role: .takesRequests, body: handler))
    }

    /// Calls `body` with this promise's result once it settles, on the settling thread inside
    /// its drain (at once, if it has settled), as one of its consumers: the rejection counts as
    /// handled, and the promise is not cancelled upward while `body` waits. For an adapter that
    /// hands the result to another library's callbacks (PromiseNIO's `EventLoopPromise`), which
    /// decide themselves where they run.
    ///
    /// - Parameter body: Receives the result; runs once, and must not block.
    @_alwaysEmitIntoClient
    package func whenResolvedFromLibrary(_ body: @escaping @Sendable (Result<Value, any Error>) -> Void) {
        subscribe(on: nil, body)
    }

    /// Records that the work behind this promise cannot be stopped (another library's future,
    /// which has no cancellation): cancelling the promise still settles it with
    /// `CancellationError` at once, and a `timeout` that gives up on it says the work goes on
    /// instead of saying it was told to stop.
    @_alwaysEmitIntoClient
    package func markWorkUnstoppableFromLibrary() {
        addCancelHandler(CancelHandler(context: nil, role: .marksUnstoppable) {})
    }

    /// Whether this promise is pending and has a callback waiting for its result (a `then`,
    /// a `done`, an `awaitPromise`, …), read in one step under the promise's lock.
    /// PromiseSignals' owner of signal actions asks it of a watch's promise when it holds the
    /// only reference: a promise that nothing holds and nothing waits for can never be
    /// observed, so its watch ends.
    @_alwaysEmitIntoClient
    package var isPendingWithCallbacks: Bool {
        withState { $0.result == nil && !$0.callbacks.isEmpty }
    }

    /// Calls `body` once this promise settles, without counting as a consumer (so upward
    /// cancellation is unchanged) and without marking a rejection as handled (so an unhandled
    /// one is still reported). For keep-alive bookkeeping.
    ///
    /// `body` runs on the settling thread, inside its drain; if the promise is already
    /// settled, it runs now. If the promise is deallocated while pending, `body` runs with the
    /// broken-promise rejection.
    ///
    /// - Parameter body: Runs once, when the promise settles.
    package func whenSettled(_ body: @escaping @Sendable () -> Void) {
        let settled: Bool = withState { state in
            if state.result != nil, !state.deliveryScheduled { return true }
            state.callbacks.append(Callback(nil, owner: nil) { _ in body() })
            attention.store(state.needsDeinitWork, ordering: .relaxed)
            return false
        }
        if settled { body() }
    }
}
