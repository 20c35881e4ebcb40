extension Promise {
    /// Runs `body` with the value once this promise is fulfilled, and resolves the returned
    /// promise with what `body` returns or throws.
    ///
    /// If this promise is rejected, `body` does not run and the returned promise is rejected
    /// with the same error. If the returned promise is cancelled before `body` starts, `body`
    /// does not run.
    ///
    /// - Parameters:
    ///   - context: Where `body` runs; `nil` means ``Promises/defaultContext``.
    ///   - body: Transforms the value. Throwing rejects the returned promise.
    /// `then` has three forms, picked by what `body` returns (see <doc:TypeInference>). Weighing
    /// them costs the compiler time in every link, so a chain of more than three one-line
    /// links should use the one-form names: ``map(on:_:)`` for this form.
    ///
    /// - Returns: A promise for `body`'s result.
    @_alwaysEmitIntoClient
    public func then<NewValue: Sendable>(
        on context: (any ExecutionContext)? = nil,
        _ body: @escaping @Sendable (Value) throws -> NewValue
    ) -> Promise<NewValue> {
        map(on: context, body)
    }

    /// Runs `body` with the value once this promise is fulfilled, and resolves the returned
    /// promise like the promise `body` returns.
    ///
    /// - Parameters:
    ///   - context: Where `body` runs; `nil` means ``Promises/defaultContext``.
    ///   - body: Starts the next step. Throwing rejects the returned promise.
    /// The one-form name of this form, for long chains, is ``flatMap(on:_:)``.
    ///
    /// - Returns: A promise resolved like the one `body` returns. Cancelling it cancels that
    ///   promise too (when nothing else waits for it).
    @_alwaysEmitIntoClient
    public func then<NewValue: Sendable>(
        on context: (any ExecutionContext)? = nil,
        _ body: @escaping @Sendable (Value) throws -> Promise<NewValue>
    ) -> Promise<NewValue> {
        flatMap(on: context, body)
    }

    /// Runs `body` with the value once this promise is fulfilled, and passes the value on
    /// (google/promises' `then` with a `Void` block).
    ///
    /// - Parameters:
    ///   - context: Where `body` runs; `nil` means ``Promises/defaultContext``.
    ///   - body: Uses the value. Throwing rejects the returned promise.
    /// The one-form name of this form, for long chains, is ``done(on:_:)``.
    ///
    /// - Returns: A promise fulfilled with the same value once `body` has returned.
    @discardableResult
    @_alwaysEmitIntoClient
    public func then(
        on context: (any ExecutionContext)? = nil,
        _ body: @escaping @Sendable (Value) throws -> Void
    ) -> Promise<Value> {
        done(on: context, body)
    }
}
