/// Turns an API that takes a completion handler with no arguments into a promise.
///
/// `work` runs at once, on the calling thread. Only the first call of the handler counts.
/// If the handler is released without being called, the promise is rejected with
/// ``PromiseError/Code-swift.struct/brokenPromise``.
///
/// - Parameter work: Calls the API, passing it the handler.
/// - Returns: A promise fulfilled when the handler is called.
@_alwaysEmitIntoClient
public func wrap(_ work: (@escaping @Sendable () -> Void) throws -> Void) -> Promise<Void> {
    let promise = Promise<Void>.pendingResolver(heldBy: .closures)
    do { try work { promise.fulfill(()) } } catch { promise.reject(error) }
    return promise.promise
}

/// Turns an API whose completion handler takes a value into a promise.
///
/// - Parameter work: Calls the API, passing it the handler.
/// - Returns: A promise fulfilled with the value the handler receives.
@_alwaysEmitIntoClient
public func wrap<Value: Sendable>(_ work: (@escaping @Sendable (Value) -> Void) throws -> Void) -> Promise<Value> {
    let promise = Promise<Value>.pendingResolver(heldBy: .closures)
    do { try work { promise.fulfill($0) } } catch { promise.reject(error) }
    return promise.promise
}

/// Turns an API whose completion handler takes an optional error into a promise.
///
/// - Parameter work: Calls the API, passing it the handler.
/// - Returns: A promise fulfilled when the handler gets `nil`, rejected when it gets an error.
@_alwaysEmitIntoClient
public func wrap(_ work: (@escaping @Sendable ((any Error)?) -> Void) throws -> Void) -> Promise<Void> {
    let promise = Promise<Void>.pendingResolver(heldBy: .closures)
    do {
        try work { error in
            if let error { promise.reject(error) } else { promise.fulfill(()) }
        }
    } catch {
        promise.reject(error)
    }
    return promise.promise
}

/// Turns an API whose completion handler takes an optional value and an optional error
/// into a promise.
///
/// An error wins over a value. A handler called with neither rejects with
/// ``PromiseError/Code-swift.struct/invalidArgument``.
///
/// - Parameter work: Calls the API, passing it the handler.
/// - Returns: A promise for the value.
@_alwaysEmitIntoClient
public func wrap<Value: Sendable>(_ work: (@escaping @Sendable (Value?, (any Error)?) -> Void) throws -> Void) -> Promise<Value> {
    let promise = Promise<Value>.pendingResolver(heldBy: .closures)
    do {
        try work { value, error in
            if let error {
                promise.reject(error)
            } else if let value {
                promise.fulfill(value)
            } else {
                promise.reject(PromiseError(.invalidArgument, message: "wrap: the completion handler got neither a value nor an error"))
            }
        }
    } catch {
        promise.reject(error)
    }
    return promise.promise
}

/// Turns an API whose completion handler takes a `Result` into a promise.
///
/// - Parameter work: Calls the API, passing it the handler.
/// - Returns: A promise resolved with the result.
@_alwaysEmitIntoClient
public func wrap<Value: Sendable, Failure: Error>(
    _ work: (@escaping @Sendable (Result<Value, Failure>) -> Void) throws -> Void
) -> Promise<Value> {
    let promise = Promise<Value>.pendingResolver(heldBy: .closures)
    do {
        try work { result in promise.resolve(result.mapError { $0 as any Error }) }
    } catch {
        promise.reject(error)
    }
    return promise.promise
}

/// Turns an API whose completion handler takes an optional error first and an optional value
/// second (Node's error-first convention) into a promise.
///
/// ```swift
/// let row = wrap { done in legacyStore.read(key: "user:7", completion: done) }
/// // legacyStore.read calls done(nil, row) or done(error, nil)
/// ```
///
/// An error wins over a value. A handler called with neither rejects with
/// ``PromiseError/Code-swift.struct/invalidArgument``.
///
/// - Parameter work: Calls the API, passing it the handler.
/// - Returns: A promise for the value.
@_alwaysEmitIntoClient
public func wrap<Value: Sendable>(_ work: (@escaping @Sendable ((any Error)?, Value?) -> Void) throws -> Void) -> Promise<Value> {
    wrap { (handler: @escaping @Sendable (Value?, (any Error)?) -> Void) in
        try work { error, value in handler(value, error) }
    }
}

/// Turns an API whose completion handler takes two optional values and an optional error
/// (`(Data?, Response?, Error?)`, say) into a promise of both values.
///
/// ```swift
/// let pair = wrap { done in legacyClient.fetch(request, completion: done) }   // Promise<(Data?, Response?)>
/// ```
///
/// An error wins over the values. Otherwise the promise is fulfilled with the two values as
/// they came, either of which may be `nil` (a response without a body, say). A handler called
/// with no value and no error rejects with ``PromiseError/Code-swift.struct/invalidArgument``.
///
/// - Parameter work: Calls the API, passing it the handler.
/// - Returns: A promise for the two values.
@_alwaysEmitIntoClient
public func wrap<First: Sendable, Second: Sendable>(
    _ work: (@escaping @Sendable (First?, Second?, (any Error)?) -> Void) throws -> Void
) -> Promise<(First?, Second?)> {
    let promise = Promise<(First?, Second?)>.pendingResolver(heldBy: .closures)
    do {
        try work { first, second, error in
            if let error {
                promise.reject(error)
            } else if first == nil && second == nil {
                promise.reject(PromiseError(.invalidArgument, message: "wrap: the completion handler got neither a value nor an error"))
            } else {
                promise.fulfill((first, second))
            }
        }
    } catch {
        promise.reject(error)
    }
    return promise.promise
}
