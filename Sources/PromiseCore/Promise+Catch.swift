extension Promise {
    /// Runs `body` with the error if this promise is rejected, and passes the rejection on.
    ///
    /// By default `body` is not called for `CancellationError`; pass
    /// ``CatchPolicy/allErrors`` to see cancellations too.
    ///
    /// - Parameters:
    ///   - context: Where `body` runs; `nil` means ``Promises/defaultContext``.
    ///   - policy: Which errors `body` sees.
    ///   - body: Handles the error.
    /// - Returns: A promise resolved like this one, once `body` has returned.
    @discardableResult
    @_alwaysEmitIntoClient
    public func `catch`(
        on context: (any ExecutionContext)? = nil,
        policy: CatchPolicy = .allErrorsExceptCancellation,
        _ body: @escaping @Sendable (any Error) -> Void
    ) -> Promise<Value> {
        derive(on: context, passthrough: .success) { (child: Promise<Value>) in
            { result in
                if case .failure(let error) = result, policy.handles(error) {
                    body(error)
                    // The error was handled here: the rejection passed on is not "unhandled".
                    child.resolve(result, by: .chain, handled: true)
                    return
                }
                child.resolve(result, by: .chain)
            }
        }
    }

    /// Turns a rejection into a value.
    ///
    /// - Parameters:
    ///   - context: Where `body` runs; `nil` means ``Promises/defaultContext``.
    ///   - policy: Which errors `body` sees; others pass through. Cancellation passes
    ///     through by default.
    ///   - body: Returns a replacement value, or throws to reject with another error.
    /// - Returns: A promise fulfilled with this promise's value or `body`'s replacement.
    @_alwaysEmitIntoClient
    public func recover(
        on context: (any ExecutionContext)? = nil,
        policy: CatchPolicy = .allErrorsExceptCancellation,
        _ body: @escaping @Sendable (any Error) throws -> Value
    ) -> Promise<Value> {
        derive(on: context, passthrough: .success) { (child: Promise<Value>) in
            { result in
                guard case .failure(let error) = result, policy.handles(error) else {
                    child.resolve(result, by: .chain)
                    return
                }
                guard child.isPending else { return }
                child.resolve(Result { try body(error) }, by: .chain)
            }
        }
    }

    /// Turns a rejection into another attempt.
    ///
    /// - Parameters:
    ///   - context: Where `body` runs; `nil` means ``Promises/defaultContext``.
    ///   - policy: Which errors `body` sees; others pass through.
    ///   - body: Returns a promise to continue with, or throws to reject with another error.
    /// - Returns: A promise fulfilled with this promise's value, or resolved like `body`'s promise.
    @_disfavoredOverload  // a closure that only throws means the value-returning overload
    @_alwaysEmitIntoClient
    public func recover(
        on context: (any ExecutionContext)? = nil,
        policy: CatchPolicy = .allErrorsExceptCancellation,
        _ body: @escaping @Sendable (any Error) throws -> Promise<Value>
    ) -> Promise<Value> {
        flatMapError(on: context, policy: policy, body)
    }

    /// Runs `body` whatever the outcome: fulfilled, rejected or cancelled.
    ///
    /// - Parameters:
    ///   - context: Where `body` runs; `nil` means ``Promises/defaultContext``.
    ///   - body: Cleans up.
    /// - Returns: A promise resolved like this one, once `body` has returned.
    @discardableResult
    @_alwaysEmitIntoClient
    public func always(
        on context: (any ExecutionContext)? = nil,
        _ body: @escaping @Sendable () -> Void
    ) -> Promise<Value> {
        derive(on: context) { (child: Promise<Value>) in
            { result in
                body()
                child.resolve(result, by: .chain)
            }
        }
    }

    /// Rejects with ``PromiseError/Code-swift.struct/validationFailure`` if `predicate`
    /// returns `false` for the value.
    ///
    /// - Parameters:
    ///   - context: Where `predicate` runs; `nil` means ``Promises/defaultContext``.
    ///   - predicate: Checks the value. Throwing rejects with the thrown error.
    /// - Returns: A promise fulfilled with the value if it passes.
    @_alwaysEmitIntoClient
    public func validate(
        on context: (any ExecutionContext)? = nil,
        _ predicate: @escaping @Sendable (Value) throws -> Bool
    ) -> Promise<Value> {
        then(on: context) { (value: Value) throws -> Value in
            guard try predicate(value) else {
                throw PromiseError(.validationFailure, message: "validate: the predicate rejected the \(Value.self) value")
            }
            return value
        }
    }
}
