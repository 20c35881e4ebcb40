public import Synchronization

// What a promise's state says when asked: pending or settled, the value, the error, and the
// result as the chaining machinery reads it.

extension Promise {
    /// Whether the promise is neither fulfilled nor rejected yet.
    @_alwaysEmitIntoClient
    public var isPending: Bool { withState { $0.result == nil } }

    /// Whether the promise is fulfilled.
    @_alwaysEmitIntoClient
    public var isFulfilled: Bool {
        withState { state in
            if case .success = state.result { return true }
            return false
        }
    }

    /// Whether the promise is rejected (cancelled promises are rejected too).
    @_alwaysEmitIntoClient
    public var isRejected: Bool {
        withState { state in
            if case .failure = state.result { return true }
            return false
        }
    }

    /// Whether the promise was rejected with `CancellationError`.
    @_alwaysEmitIntoClient
    public var isCancelled: Bool {
        withState { state in
            if case .failure(let error) = state.result { return error is CancellationError }
            return false
        }
    }

    /// The value, if the promise is fulfilled.
    @_alwaysEmitIntoClient
    public var value: Value? {
        withState { state in
            if case .success(let value) = state.result { return value }
            return nil
        }
    }

    /// The error, if the promise is rejected. Reading it counts as handling the rejection.
    @_alwaysEmitIntoClient
    public var error: (any Error)? {
        withState { state in
            guard case .failure(let error) = state.result else { return nil }
            state.observed = true
            attention.store(false, ordering: .relaxed)
            return error
        }
    }

    /// The result, if resolved; reading it counts as handling a rejection.
    @_alwaysEmitIntoClient
    var currentResult: Result<Value, any Error>? {
        withState { state in
            if state.result != nil {
                state.observed = true
                attention.store(false, ordering: .relaxed)
            }
            return state.result
        }
    }

    /// The result once every callback registered before now has been handed over (the drain
    /// that delivers them has run), else `nil`; reading it counts as handling a rejection.
    /// ``get()`` waits for this, so code after `await promise.get()` sees the effects of the
    /// inline callbacks registered before it.
    @_alwaysEmitIntoClient
    var deliveredResult: Result<Value, any Error>? {
        withState { state in
            guard state.result != nil, !state.deliveryScheduled else { return nil }
            state.observed = true
            attention.store(false, ordering: .relaxed)
            return state.result
        }
    }
}
