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
    /// - Returns: A promise for `body`'s result.
    @inlinable
    public func then<NewValue: Sendable>(
        on context: (any ExecutionContext)? = nil,
        _ body: @escaping @Sendable (Value) throws -> NewValue
    ) -> Promise<NewValue> {
        let context = context ?? Promises.defaultContext
        let child = Promise<NewValue>(resolvingContextID: context.executionContextID)
        let pending = subscribe(on: context, passthrough: .failure, owner: child) { result in
            switch result {
            case .success(let value):
                guard child.isPending else { return }
                child.resolve(Result { try body(value) }, fromUpstream: true)
            case .failure(let error):
                child.resolve(.failure(error), fromUpstream: true)
            }
        }
        if pending { child.link(to: self) }
        return child
    }

    /// Runs `body` with the value once this promise is fulfilled, and resolves the returned
    /// promise like the promise `body` returns.
    ///
    /// - Parameters:
    ///   - context: Where `body` runs; `nil` means ``Promises/defaultContext``.
    ///   - body: Starts the next step. Throwing rejects the returned promise.
    /// - Returns: A promise resolved like the one `body` returns. Cancelling it cancels that
    ///   promise too (when nothing else waits for it).
    @inlinable
    public func then<NewValue: Sendable>(
        on context: (any ExecutionContext)? = nil,
        _ body: @escaping @Sendable (Value) throws -> Promise<NewValue>
    ) -> Promise<NewValue> {
        let context = context ?? Promises.defaultContext
        let child = Promise<NewValue>(resolvingContextID: context.executionContextID)
        let pending = subscribe(on: context, passthrough: .failure, owner: child) { result in
            switch result {
            case .success(let value):
                guard child.isPending else { return }
                do {
                    child.adopt(try body(value))
                } catch {
                    child.resolve(.failure(error), fromUpstream: true)
                }
            case .failure(let error):
                child.resolve(.failure(error), fromUpstream: true)
            }
        }
        if pending { child.link(to: self) }
        return child
    }

    /// Runs `body` with the value once this promise is fulfilled, and passes the value on
    /// (google/promises' `then` with a `Void` block).
    ///
    /// - Parameters:
    ///   - context: Where `body` runs; `nil` means ``Promises/defaultContext``.
    ///   - body: Uses the value. Throwing rejects the returned promise.
    /// - Returns: A promise fulfilled with the same value once `body` has returned.
    @discardableResult
    @inlinable
    public func then(
        on context: (any ExecutionContext)? = nil,
        _ body: @escaping @Sendable (Value) throws -> Void
    ) -> Promise<Value> {
        then(on: context) { (value: Value) throws -> Value in
            try body(value)
            return value
        }
    }
}
