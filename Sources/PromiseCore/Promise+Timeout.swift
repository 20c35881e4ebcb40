extension Promise {
    /// Rejects with ``PromiseError/Code-swift.struct/timedOut`` if this promise is still
    /// pending after `interval`, and withdraws interest from this promise so the work behind
    /// it stops (it is cancelled when nothing else waits for it).
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
        let timer = Scheduler.schedule(on: context, owner: child, after: interval) {
            child.resolve(.failure(PromiseError.timedOut(after: interval, label: label)), fromUpstream: false)
        }
        // The timer can already reach `child` from another thread, so the link is written
        // under `child`'s lock (nested inside this promise's: no code takes them the other way).
        // A timer that fired before the link found nothing to withdraw from: withdraw here.
        let callback = Callback<Value>(CallbackTarget.inDrain(), owner: child) { result in
            timer.cancel()
            child.resolve(result, fromUpstream: true)
        }
        var timedOutFirst = false
        let pending = subscribe(callback) { source in
            child.withState { state in
                if state.result == nil {
                    child.upstream = source
                } else {
                    timedOutFirst = true
                }
            }
        }
        if timedOutFirst {
            withdrawUpward(from: self)
        } else if pending {
            child.onCancel { timer.cancel() }
        }
        return child
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
                    child.resolve(.success(value), fromUpstream: true)
                }
                child.onCancel { timer.cancel() }
            case .failure:
                child.resolve(result, fromUpstream: true)
            }
        }
        return child
    }
}
