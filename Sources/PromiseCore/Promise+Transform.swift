extension Promise {
    /// Transforms the value once this promise is fulfilled: the one-form name for
    /// ``then(on:_:)-(_,(Value)->NewValue)``.
    ///
    /// `map`, ``flatMap(on:_:)`` and ``done(on:_:)`` each have one form, so the compiler checks
    /// a chain of them link by link however long it grows; the overloaded `then` makes it weigh
    /// three forms per link, which stops compiling after a few one-line links (see
    /// <doc:TypeInference>).
    ///
    /// ```swift
    /// let total = fetchCart().map { $0.items.count }.map { $0 * 2 }   // Promise<Int>
    /// ```
    ///
    /// If this promise is rejected, `body` does not run and the returned promise is rejected
    /// with the same error. If the returned promise is cancelled before `body` starts, `body`
    /// does not run.
    ///
    /// - Parameters:
    ///   - context: Where `body` runs; `nil` means ``Promises/defaultContext``.
    ///   - body: Transforms the value. Throwing rejects the returned promise.
    /// - Returns: A promise for `body`'s result. A `body` that returns a promise gives a
    ///   `Promise<Promise<T>>`; use ``flatMap(on:_:)`` to wait for it instead.
    @_alwaysEmitIntoClient
    public func map<NewValue: Sendable>(
        on context: (any ExecutionContext)? = nil,
        _ body: @escaping @Sendable (Value) throws -> NewValue
    ) -> Promise<NewValue> {
        derive(on: context, passthrough: .failure) { (child: Promise<NewValue>) in
            { result in
                switch result {
                case .success(let value):
                    guard child.isPending else { return }
                    child.resolve(Result { try body(value) }, by: .chain)
                case .failure(let error):
                    child.resolve(.failure(error), by: .chain)
                }
            }
        }
    }

    /// Starts the next step with the value once this promise is fulfilled, and settles like
    /// the promise it returns: the one-form name for
    /// ``then(on:_:)-(_,(Value)->Promise<NewValue>)`` (SwiftNIO's `flatMap`, PromiseKit's `then`).
    ///
    /// ```swift
    /// let orders = fetchUser(id: 7).flatMap { fetchOrders(for: $0.id) }   // Promise<[Order]>
    /// ```
    ///
    /// - Parameters:
    ///   - context: Where `body` runs; `nil` means ``Promises/defaultContext``.
    ///   - body: Starts the next step. Throwing rejects the returned promise.
    /// - Returns: A promise resolved like the one `body` returns. Cancelling it cancels that
    ///   promise too (when nothing else waits for it).
    @_alwaysEmitIntoClient
    public func flatMap<NewValue: Sendable>(
        on context: (any ExecutionContext)? = nil,
        _ body: @escaping @Sendable (Value) throws -> Promise<NewValue>
    ) -> Promise<NewValue> {
        derive(on: context, passthrough: .failure) { (child: Promise<NewValue>) in
            { result in
                switch result {
                case .success(let value):
                    guard child.isPending else { return }
                    do {
                        child.adopt(try body(value))
                    } catch {
                        child.resolve(.failure(error), by: .chain)
                    }
                case .failure(let error):
                    child.resolve(.failure(error), by: .chain)
                }
            }
        }
    }

    /// Uses the value once this promise is fulfilled, and passes the value on: the one-form
    /// name for ``then(on:_:)-(_,(Value)->Void)``.
    ///
    /// Unlike PromiseKit's `done`, which ends a chain with a `Promise<Void>`, this `done`
    /// returns the same value, so a chain can log or record in the middle:
    ///
    /// ```swift
    /// fetchUser(id: 7).done { log("loaded \($0.name)") }.map { $0.name }
    /// ```
    ///
    /// A one-line `body` whose expression has a value (a `@discardableResult` call, say)
    /// still passes this promise's value on; the expression's value is dropped.
    ///
    /// - Parameters:
    ///   - context: Where `body` runs; `nil` means ``Promises/defaultContext``.
    ///   - body: Uses the value. Throwing rejects the returned promise.
    /// - Returns: A promise fulfilled with the same value once `body` has returned.
    @discardableResult
    @_alwaysEmitIntoClient
    public func done(
        on context: (any ExecutionContext)? = nil,
        _ body: @escaping @Sendable (Value) throws -> Void
    ) -> Promise<Value> {
        map(on: context) { (value: Value) throws -> Value in
            try body(value)
            return value
        }
    }

    /// Turns a rejection into another attempt: the one-form name for
    /// ``recover(on:policy:_:)-(_,_,(Error)->Promise<Value>)`` (SwiftNIO's `flatMapError`).
    ///
    /// ```swift
    /// let page = client.get(primary).flatMapError { _ in client.get(mirror) }
    /// ```
    ///
    /// - Parameters:
    ///   - context: Where `body` runs; `nil` means ``Promises/defaultContext``.
    ///   - policy: Which errors `body` sees; others pass through. Cancellation passes
    ///     through by default.
    ///   - body: Returns a promise to continue with, or throws to reject with another error.
    /// - Returns: A promise fulfilled with this promise's value, or resolved like `body`'s promise.
    @_alwaysEmitIntoClient
    public func flatMapError(
        on context: (any ExecutionContext)? = nil,
        policy: CatchPolicy = .allErrorsExceptCancellation,
        _ body: @escaping @Sendable (any Error) throws -> Promise<Value>
    ) -> Promise<Value> {
        derive(on: context, passthrough: .success) { (child: Promise<Value>) in
            { result in
                guard case .failure(let error) = result, policy.handles(error) else {
                    child.resolve(result, by: .chain)
                    return
                }
                guard child.isPending else { return }
                do {
                    child.adopt(try body(error))
                } catch {
                    child.resolve(.failure(error), by: .chain)
                }
            }
        }
    }
}
