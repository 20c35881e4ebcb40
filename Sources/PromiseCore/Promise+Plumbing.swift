public import Synchronization

// The machinery the chaining operators and the drain loop share: registering callbacks,
// links to sources, adopting returned promises, and the `PromiseNode` side of a promise.

extension Promise {
    /// Registers `callback` as a consumer. Returns `true` if the promise was pending (so the
    /// caller should link its derived promise upward), `false` if the callback was dispatched
    /// because the result is already known.
    @_alwaysEmitIntoClient
    @discardableResult
    func subscribe(_ callback: Callback<Value>) -> Bool {
        subscribe(callback) { _ in }
    }

    /// ``subscribe(_:)`` for a callback whose owner is `child`, which is linked to this
    /// promise for upward cancellation when the callback has to wait: inside this promise's
    /// lock, together with the callback, so that the delivery that hands the callback over
    /// clears the link (`Internal/UpstreamLink.swift`). `child` must be new: pending, not
    /// linked to anything, and not yet reachable from another thread, because its link is
    /// written without its own lock.
    @_alwaysEmitIntoClient
    @discardableResult
    func subscribe<Child: Sendable>(_ callback: Callback<Value>, linking child: Promise<Child>) -> Bool {
        subscribe(callback) { child.upstream = $0.consumerLink }
    }

    /// ``subscribe(_:)``, calling `link` with this promise inside the lock when the callback
    /// is stored to wait.
    @_alwaysEmitIntoClient
    func subscribe(_ callback: Callback<Value>, link: (Promise<Value>) -> Void) -> Bool {
        let ready: Result<Value, any Error>? = withState { state in
            state.observed = true
            state.consumers += 1
            if let result = state.result, !state.deliveryScheduled {
                attention.store(false, ordering: .relaxed)
                return result
            }
            state.callbacks.append(callback)
            link(self)
            attention.store(state.result == nil, ordering: .relaxed)
            return nil
        }
        guard let ready else { return true }
        defer { callback.withdrawAnnouncement() }
        if callback.context == nil {
            Scheduler.runSettled({ DeferredCallback(callback.body, ready) }) { callback.body(ready) }
        } else {
            // Never run before `then` returns: even for the current context, take a fresh hop.
            switch (callback.passthrough, ready) {
            case (.success, .success), (.failure, .failure):
                Scheduler.runSettled({ DeferredCallback(callback.body, ready) }) { callback.body(ready) }
            default:
                Scheduler.submitDelivery(callback.context!, owner: callback.owner, callback.body, ready)
            }
        }
        return false
    }

    /// Registers a callback running on `context` (`nil`: in the resolving thread's drain).
    @_alwaysEmitIntoClient
    @discardableResult
    func subscribe(
        on context: (any ExecutionContext)?,
        passthrough: Callback<Value>.Passthrough = .none,
        owner: (any PromiseNode)? = nil,
        _ body: @escaping @Sendable (Result<Value, any Error>) -> Void
    ) -> Bool {
        subscribe(Callback(context, passthrough: passthrough, owner: owner, body))
    }

    /// Registers a callback that runs in the resolving thread's drain and finishes `child`,
    /// linking `child` to this promise for upward cancellation while the callback waits.
    /// `child` must be new, as for ``subscribe(_:linking:)``.
    @_alwaysEmitIntoClient
    @discardableResult
    func subscribe<Child: Sendable>(
        linking child: Promise<Child>,
        _ body: @escaping @Sendable (Result<Value, any Error>) -> Void
    ) -> Bool {
        subscribe(Callback(CallbackTarget.inDrain(), owner: child, body), linking: child)
    }

    /// The start of every chaining operator: a pending child promise resolved on `context`
    /// (``Promises/defaultContext`` when `nil`), the callback `makeCallback` builds for it
    /// registered on this promise, and the child linked to this promise for upward cancellation
    /// while this promise is pending.
    ///
    /// `makeCallback` runs once, at once; the callback it returns is the only allocation beyond
    /// the child, as when an operator writes these steps out itself.
    @_alwaysEmitIntoClient
    func derive<NewValue: Sendable>(
        on context: (any ExecutionContext)?,
        passthrough: Callback<Value>.Passthrough = .none,
        _ makeCallback: (Promise<NewValue>) -> @Sendable (Result<Value, any Error>) -> Void
    ) -> Promise<NewValue> {
        let target = callbackTarget(context)
        let child = Promise<NewValue>(resolvingContextID: target.resolvingContextID)
        subscribe(Callback(target, passthrough: passthrough, owner: child, makeCallback(child)), linking: child)
        return child
    }

    /// Makes `source` this promise's upstream for cancellation, if this promise is pending
    /// (a combinator's `Combination`, which holds its inputs weakly).
    @_alwaysEmitIntoClient
    func link(to source: any PromiseNode) {
        withState { state in
            if state.result == nil { upstream = source }
        }
    }

    /// Resolves this promise like `inner` (a promise returned from a callback).
    @_alwaysEmitIntoClient
    func adopt(_ inner: Promise<Value>) {
        if inner === self {
            resolve(
                .failure(PromiseError(.chainingCycle, message: "a promise was resolved with itself, so it could never settle")),
                by: .chain
            )
            return
        }
        // The callback is inline and resolves this promise, which takes the link, when `inner`
        // delivers or breaks; so the link is made here, after the subscription, and only while
        // this promise is pending (`Internal/UpstreamLink.swift`).
        let wasPending = inner.subscribe(on: nil) { [self] result in
            self.resolve(result, by: .chain)
        }
        guard wasPending else { return }
        let linked = withState { state in
            guard state.result == nil else { return false }
            upstream = inner.consumerLink
            return true
        }
        if !linked {
            withdrawUpward(from: inner)
        }
    }
}

extension Promise: PromiseNode {
    @_alwaysEmitIntoClient
    func deliverCallbacks(in turn: Turn) {
        while true {
            let (callbacks, result) = withState { state in
                let callbacks = state.callbacks.take()
                if callbacks.isEmpty {
                    state.deliveryScheduled = false
                    // Every callback is handed over (and counted, if tracked, as its job).
                    if state.tracked {
                        state.tracked = false
                        trackedPromiseSettled()
                    }
                }
                return (callbacks, state.result)
            }
            guard let result, !callbacks.isEmpty else { return }
            callbacks.dispatchAll(result, from: ObjectIdentifier(self), in: turn)
        }
    }

    @usableFromInline
    func resolverReleased(heldBy holder: ResolverHolder) {
        guard isPending else { return }
        resolve(.failure(reportReleasedResolver(Value.self, holder: holder)), by: .outside)
    }

    @usableFromInline
    func withdrawConsumer() -> (any PromiseNode)? {
        withdraw(detaching: nil).next
    }

    /// One consumer loses interest: when it was the last and this promise is pending, this
    /// promise is cancelled (or its adapter is asked to stop the work). `consumer`, when given,
    /// also takes back the waiting callback it owns, so this promise never delivers to it.
    @_alwaysEmitIntoClient
    func withdraw(detaching consumer: ObjectIdentifier?) -> Withdrawal {
        var interceptor: CancelHandler?
        var detached: Callback<Value>?
        var settlement: Settlement?
        let outcome: SourceOutcome = withState { state in
            guard state.result == nil else { return .settled }
            defer { attention.store(state.needsDeinitWork, ordering: .relaxed) }
            if let consumer { detached = state.callbacks.remove(ownedBy: consumer) }
            state.withdrawn += 1
            let others = Int(state.consumers) - Int(state.withdrawn)
            guard others <= 0 else { return .stillWanted(consumers: others) }
            if let handler = state.cancelHandlers.first(where: { $0.interceptsRequests }) {
                interceptor = handler
                return .stopRequested
            }
            let unstoppable = state.cancelHandlers.contains { $0.role == .marksUnstoppable }
            var settled = Self.settle(&state, with: .failure(CancellationError()))
            settled.upstream = takeUpstream()
            settlement = settled
            return unstoppable ? .cancelledWhileWorkGoesOn : .cancelled
        }
        detached?.withdrawAnnouncement()
        if let interceptor { interceptor.body() }
        guard let settlement else { return Withdrawal(outcome: outcome, next: nil) }
        finish(settlement)
        return Withdrawal(outcome: outcome, next: settlement.upstream)
    }

    @usableFromInline
    func abandon() {
        resolve(
            .failure(PromiseError(.contextInvalidated, message: "the context that was to run this promise's callback was invalidated and dropped it")),
            by: .outside
        )
    }

    @usableFromInline
    var resolverInfo: ResolverInfo {
        withState { state in
            ResolverInfo(contextID: state.resolvingContextID, upstreams: upstream.map { [$0] } ?? [], isPending: state.result == nil)
        }
    }

    @usableFromInline
    func unlinkUpstream(from source: ObjectIdentifier) {
        // Moved out and, unless it links elsewhere (a combined promise's link to its
        // `Combination`), released after the lock, with no retain on the way.
        var taken: (any PromiseNode)?
        storage.withLockNonGeneric {
            swap(&taken, &upstream)
            if let current = taken, ObjectIdentifier(current) != source, !current.links(to: source) {
                swap(&taken, &upstream)
            }
        }
    }
}
