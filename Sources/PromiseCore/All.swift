/// Waits for every promise in `promises` and fulfils with their values, in the same order.
///
/// Rejects with the first rejection; the other inputs are then withdrawn from (each is
/// cancelled unless something else waits for it). Cancelling the returned promise does the same.
///
/// - Parameter promises: The promises to wait for. An empty array fulfils with `[]` at once.
/// - Returns: A promise for all the values.
@_alwaysEmitIntoClient
public func all<Value: Sendable>(_ promises: [Promise<Value>]) -> Promise<[Value]> {
    if promises.isEmpty { return Promise([]) }
    let result = Promise<[Value]>(resolvingContextID: nil)
    let combination = Combination(count: promises.count)
    let values = Gathered<Value>(count: promises.count)
    result.combine(combination)
    for index in promises.indices {
        let promise = promises[index]
        let pending = promise.subscribe(on: nil) { outcome in
            switch outcome {
            case .success(let value):
                values.store(value, at: index)
                if combination.countDown() {
                    result.resolve(.success(values.take()), by: .chain)
                }
            case .failure(let error):
                if combination.decide() {
                    result.resolve(.failure(error), by: .chain)
                    combination.withdrawAll()
                }
            }
        }
        if pending { combination.track(promise) }
    }
    return result
}

/// Waits for promises of different types and fulfils with a tuple of their values.
///
/// ```swift
/// all(fetchUser(id), fetchAvatar(id), fetchSettings(id)).then { user, avatar, settings in … }
/// ```
///
/// Rejects with the first rejection, withdrawing from the others, like ``all(_:)->Promise<[Value]>``.
///
/// - Parameter promises: The promises to wait for.
/// - Returns: A promise for a tuple of the values, in argument order.
@_alwaysEmitIntoClient
public func all<each Value: Sendable>(_ promises: repeat Promise<each Value>) -> Promise<(repeat each Value)> {
    var count = 0
    for _ in repeat each promises { count += 1 }
    if count == 0 {
        return Promise<(repeat each Value)>(resolvingContextID: nil).fulfilled(with: (repeat (each promises).value!))
    }
    let result = Promise<(repeat each Value)>(resolvingContextID: nil)
    let combination = Combination(count: count)
    let slots = (repeat Slot<each Value>())
    let finish: @Sendable () -> Void = {
        result.resolve(.success((repeat (each slots).value)), by: .chain)
    }
    result.combine(combination)
    repeat attach(each promises, to: each slots, combination: combination, result: result, finish: finish)
    return result
}

@usableFromInline @_alwaysEmitIntoClient
func attach<Value: Sendable, Combined: Sendable>(
    _ promise: Promise<Value>,
    to slot: Slot<Value>,
    combination: Combination,
    result: Promise<Combined>,
    finish: @escaping @Sendable () -> Void
) {
    let pending = promise.subscribe(on: nil) { outcome in
        switch outcome {
        case .success(let value):
            slot.store(value)
            if combination.countDown() { finish() }
        case .failure(let error):
            if combination.decide() {
                result.resolve(.failure(error), by: .chain)
                combination.withdrawAll()
            }
        }
    }
    if pending { combination.track(promise) }
}

extension Promise {
    /// Fulfils this fresh promise and returns it (used for the empty `all()`).
    @_alwaysEmitIntoClient
    func fulfilled(with value: Value) -> Promise<Value> {
        resolve(.success(value), by: .chain)
        return self
    }
}

/// Waits until every promise has settled, and fulfils with each outcome
/// (google/promises' `any`: "all settled, unless all failed").
///
/// The returned promise is rejected only when every input is rejected; it is then rejected
/// with the first input's error. This is google/promises' meaning of `any`; for "the first to
/// fulfil" use ``race(_:)`` after filtering, and for "the first to settle" use ``race(_:)``.
///
/// - Parameter promises: The promises to wait for. An empty array fulfils with `[]` at once.
/// - Returns: A promise for the outcomes, in the same order.
@_alwaysEmitIntoClient
public func any<Value: Sendable>(_ promises: [Promise<Value>]) -> Promise<[Result<Value, any Error>]> {
    settleAll(promises, rejectingWhenAllFail: true)
}

/// Settles like the first of `promises` to settle, and withdraws from the rest (each is
/// cancelled unless something else waits for it).
///
/// - Parameter promises: The competitors. An empty array rejects with
///   ``PromiseError/Code-swift.struct/invalidArgument``, since nothing could ever settle it.
/// - Returns: A promise resolved like the winner.
@_alwaysEmitIntoClient
public func race<Value: Sendable>(_ promises: [Promise<Value>]) -> Promise<Value> {
    if promises.isEmpty {
        return Promise(PromiseError(.invalidArgument, message: "race needs at least one promise; an empty race never settles"))
    }
    let result = Promise<Value>(resolvingContextID: nil)
    let combination = Combination(count: promises.count)
    result.combine(combination)
    for promise in promises {
        let pending = promise.subscribe(on: nil) { outcome in
            if combination.decide() {
                result.resolve(outcome, by: .chain)
                combination.withdrawAll()
            }
        }
        if pending { combination.track(promise) }
    }
    return result
}
