extension Promise {
    /// Registers `handler` to run if this promise is cancelled: the producer's hook for
    /// stopping the work behind the promise.
    ///
    /// A handler runs at most once, right after the promise is rejected with
    /// `CancellationError`, before its dependents hear of it. If the promise is already
    /// cancelled, the handler runs now; if it is resolved any other way, the handler is dropped.
    ///
    /// - Parameters:
    ///   - context: Where the handler runs; `nil` means immediately, on the thread that
    ///     cancels (keep such a handler short and thread-safe).
    ///   - handler: Stops the work.
    /// - Returns: This promise, for chaining.
    @discardableResult
    @_alwaysEmitIntoClient
    public func onCancel(
        on context: (any ExecutionContext)? = nil,
        _ handler: @escaping @Sendable () -> Void
    ) -> Promise<Value> {
        addCancelHandler(CancelHandler(context: context, body: handler))
        return self
    }

    /// Stores `handler` to run on cancellation, runs it now if this promise is already
    /// cancelled, and drops it if the promise settled any other way. Shared by ``onCancel(on:_:)``
    /// and the adapters' specialized registration.
    @_alwaysEmitIntoClient
    func addCancelHandler(_ handler: CancelHandler) {
        let runNow: Bool = withState { state in
            guard let result = state.result else {
                state.cancelHandlers.append(handler)
                return false
            }
            if case .failure(let error) = result, error is CancellationError { return true }
            return false
        }
        if runNow, handler.role == .stopsWork { handler.run() }
    }
}
