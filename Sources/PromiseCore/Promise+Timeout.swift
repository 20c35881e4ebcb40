extension Promise {
    /// Rejects with ``PromiseError/Code-swift.struct/timedOut`` if this promise is still
    /// pending after `interval`, and withdraws interest from this promise so the work behind
    /// it stops (it is cancelled when nothing else waits for it). The error says which: the
    /// work was told to stop, or it goes on because other consumers still wait for it.
    ///
    /// Give a `label` when several operations could time out, so the error says which one:
    ///
    /// ```swift
    /// client.get(url).timeout(.seconds(5), label: "GET \(url)")
    /// // PromiseError.timedOut: GET https://…: still pending after 5.0 seconds; …
    /// ```
    ///
    /// - Parameters:
    ///   - context: Whose clock times the interval; `nil` means ``Promises/defaultContext``.
    ///     A `DispatchQueue` uses its own timers, a `UVLoop` uses libuv timers.
    ///   - interval: How long to wait.
    ///   - label: What is being waited for; the `timedOut` error's message starts with it.
    /// - Returns: A promise resolved like this one, or rejected on time-out.
    @_alwaysEmitIntoClient
    public func timeout(
        on context: (any ExecutionContext)? = nil,
        _ interval: Duration,
        label: String? = nil
    ) -> Promise<Value> {
        let context = context ?? Promises.defaultContext
        let child = Promise<Value>(resolvingContextID: context.executionContextID)
        let timer = TimeoutTimer()
        subscribe(
            Callback<Value>(CallbackTarget.inDrain(), owner: child) { result in
                timer.finish()
                child.resolve(result, by: .chain)
            },
            linking: child
        )
        timer.arm(
            Scheduler.schedule(on: context, owner: child, after: interval) {
                child.expire(after: interval, label: label)
            }
        )
        child.onCancel { timer.finish() }
        return child
    }

    /// Rejects this pending `timeout` promise with ``PromiseError/Code-swift.struct/timedOut``.
    /// It first takes its callback back from the promise it waits for and withdraws its
    /// interest, so that the error can say what that did: the work was told to stop, or it
    /// goes on for the other consumers that still wait for it.
    @_alwaysEmitIntoClient
    func expire(after interval: Duration, label: String?) {
        var source: (any PromiseNode)?
        let pending = withState { state in
            guard state.result == nil else { return false }
            source = takeUpstream()
            return true
        }
        guard pending else { return }
        // No link left: the source handed the callback over (or is being deallocated) and its
        // result is on its way.
        var outcome = SourceOutcome.settled
        if let source = source?.linkTarget as? Promise<Value> {
            let withdrawal = source.withdraw(detaching: ObjectIdentifier(self))
            outcome = withdrawal.outcome
            withdrawUpward(from: withdrawal.next)
        }
        resolve(.failure(PromiseError.timedOut(after: interval, label: label, source: outcome)), by: .outside)
    }

    /// Delays fulfilment by `interval`; a rejection passes on at once.
    ///
    /// - Parameters:
    ///   - context: Whose clock times the interval; `nil` means ``Promises/defaultContext``.
    ///   - interval: How long to hold the value back.
    /// - Returns: A promise fulfilled with this promise's value `interval` after it arrives.
    ///   Cancelling it stops the timer.
    @_alwaysEmitIntoClient
    public func delay(on context: (any ExecutionContext)? = nil, _ interval: Duration) -> Promise<Value> {
        let context = context ?? Promises.defaultContext
        let child = Promise<Value>(resolvingContextID: context.executionContextID)
        subscribe(linking: child) { result in
            switch result {
            case .success(let value):
                guard child.isPending else { return }
                let timer = Scheduler.schedule(on: context, owner: child, after: interval) {
                    child.resolve(.success(value), by: .chain)
                }
                child.onCancel { timer.cancel() }
            case .failure:
                child.resolve(result, by: .chain)
            }
        }
        return child
    }
}
