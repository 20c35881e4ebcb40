/// Waits for every promise in `promises` to settle and fulfils with each outcome, in the same
/// order. It never rejects: a rejected or cancelled input is a `.failure` in the array.
///
/// ```swift
/// allSettled(urls.map { client.get($0) }).then { outcomes in
///     let failures = outcomes.filter { if case .failure = $0 { true } else { false } }
///     print("\(outcomes.count - failures.count) fetched, \(failures.count) failed")
/// }
/// ```
///
/// Cancelling the returned promise withdraws from every input still pending (each is
/// cancelled unless something else waits for it).
///
/// - Parameter promises: The promises to wait for. An empty array fulfils with `[]` at once.
/// - Returns: A promise for the outcomes, in input order.
@_alwaysEmitIntoClient
public func allSettled<Value: Sendable>(_ promises: [Promise<Value>]) -> Promise<[Result<Value, any Error>]> {
    settleAll(promises, rejectingWhenAllFail: false)
}

/// The shared body of the array `allSettled` and `any`: every outcome, in input order; with
/// `rejectingWhenAllFail`, a rejection with the first input's error when no input succeeded.
@usableFromInline @_alwaysEmitIntoClient
func settleAll<Value: Sendable>(
    _ promises: [Promise<Value>],
    rejectingWhenAllFail: Bool
) -> Promise<[Result<Value, any Error>]> {
    if promises.isEmpty { return Promise([]) }
    let result = Promise<[Result<Value, any Error>]>(resolvingContextID: nil)
    let combination = Combination(count: promises.count)
    let outcomes = Gathered<Result<Value, any Error>>(count: promises.count)
    result.combine(combination)
    for index in promises.indices {
        let promise = promises[index]
        let pending = promise.subscribe(on: nil) { outcome in
            outcomes.store(outcome, at: index)
            guard combination.countDown() else { return }
            let all = outcomes.take()
            if rejectingWhenAllFail, all.allSatisfy({ if case .failure = $0 { true } else { false } }),
                case .failure(let first) = all[0]
            {
                result.resolve(.failure(first), by: .chain)
            } else {
                result.resolve(.success(all), by: .chain)
            }
        }
        if pending { combination.track(promise) }
    }
    return result
}

/// Waits for promises of different types to settle and fulfils with a tuple of their outcomes.
/// It never rejects.
///
/// ```swift
/// allSettled(fetchUser(id), fetchAvatar(id)).then { user, avatar in
///     let name = (try? user.get())?.name ?? "unknown"
///     let picture = (try? avatar.get()) ?? .placeholder
/// }
/// ```
///
/// Cancelling the returned promise withdraws from every input still pending.
///
/// - Parameter promises: The promises to wait for.
/// - Returns: A promise for a tuple of the outcomes, in argument order.
@_alwaysEmitIntoClient
public func allSettled<each Value: Sendable>(
    _ promises: repeat Promise<each Value>
) -> Promise<(repeat Result<each Value, any Error>)> {
    settleEach(repeat each promises, allFailed: nil)
}

/// Waits until promises of different types have settled, and fulfils with a tuple of their
/// outcomes unless every one was rejected (google/promises' `any`, for any number of
/// arguments; the counterpart of ``any(_:)->Promise<[Result<Value,Error>]>``).
///
/// ```swift
/// any(primary.get(path), mirror.get(path)).then { first, second in
///     let page = (try? first.get()) ?? (try? second.get())
/// }
/// ```
///
/// When every input is rejected, the returned promise is rejected with the first argument's
/// error. Cancelling it withdraws from every input still pending.
///
/// - Parameter promises: The promises to wait for.
/// - Returns: A promise for a tuple of the outcomes, in argument order.
@_alwaysEmitIntoClient
public func any<each Value: Sendable>(
    _ promises: repeat Promise<each Value>
) -> Promise<(repeat Result<each Value, any Error>)> {
    settleEach(repeat each promises, allFailed: { $0 })
}

/// The shared body of the variadic `allSettled` and `any`: `allFailed`, when given, turns the
/// first argument's error into the rejection used when every input failed.
@usableFromInline @_alwaysEmitIntoClient
func settleEach<each Value: Sendable>(
    _ promises: repeat Promise<each Value>,
    allFailed: (@Sendable (any Error) -> any Error)?
) -> Promise<(repeat Result<each Value, any Error>)> {
    var count = 0
    for _ in repeat each promises { count += 1 }
    let result = Promise<(repeat Result<each Value, any Error>)>(resolvingContextID: nil)
    if count == 0 {
        return result.fulfilled(with: (repeat settledNow(each promises)))
    }
    let combination = Combination(count: count)
    let slots = (repeat Slot<Result<each Value, any Error>>())
    let finish: @Sendable () -> Void = {
        let outcomes = (repeat (each slots).value)
        if let allFailed {
            var firstError: (any Error)?
            var succeeded = false
            for outcome in repeat each outcomes {
                switch outcome {
                case .success: succeeded = true
                case .failure(let error): if firstError == nil { firstError = error }
                }
            }
            if !succeeded, let firstError {
                result.resolve(.failure(allFailed(firstError)), by: .chain)
                return
            }
        }
        result.resolve(.success(outcomes), by: .chain)
    }
    result.combine(combination)
    repeat settle(each promises, into: each slots, combination: combination, finish: finish)
    return result
}

/// The outcome of an input of an empty pack; never called, since an empty pack has no inputs.
@usableFromInline @_alwaysEmitIntoClient
func settledNow<Value: Sendable>(_ promise: Promise<Value>) -> Result<Value, any Error> {
    promise.currentResult!
}

@usableFromInline @_alwaysEmitIntoClient
func settle<Value: Sendable>(
    _ promise: Promise<Value>,
    into slot: Slot<Result<Value, any Error>>,
    combination: Combination,
    finish: @escaping @Sendable () -> Void
) {
    let pending = promise.subscribe(on: nil) { outcome in
        slot.store(outcome)
        if combination.countDown() { finish() }
    }
    if pending { combination.track(promise) }
}

/// Fulfils with the first of `promises` to be fulfilled, and withdraws from the rest (each is
/// cancelled unless something else waits for it). Rejections do not end the race: the
/// returned promise is rejected only when every input is rejected, with the first input's
/// error.
///
/// ```swift
/// race(fulfilled: mirrors.map { client.get($0 + path) }).then { page in … }
/// ```
///
/// Unlike ``race(_:)``, which settles like whichever input settles first, a fast failure
/// here waits for a slower success. Cancelling the returned promise withdraws from every
/// input.
///
/// - Parameter promises: The competitors. An empty array rejects with
///   ``PromiseError/Code-swift.struct/invalidArgument``, since nothing could ever fulfil it.
/// - Returns: A promise for the first value.
@_alwaysEmitIntoClient
public func race<Value: Sendable>(fulfilled promises: [Promise<Value>]) -> Promise<Value> {
    if promises.isEmpty {
        return Promise(PromiseError(.invalidArgument, message: "race(fulfilled:) needs at least one promise; an empty race never settles"))
    }
    let result = Promise<Value>(resolvingContextID: nil)
    let combination = Combination(count: promises.count)
    let errors = promises.map { _ in Slot<any Error>() }
    result.combine(combination)
    for (index, promise) in promises.enumerated() {
        let slot = errors[index]
        let pending = promise.subscribe(on: nil) { outcome in
            switch outcome {
            case .success:
                if combination.decide() {
                    result.resolve(outcome, by: .chain)
                    combination.withdrawAll()
                }
            case .failure(let error):
                slot.store(error)
                if combination.countDown() {
                    result.resolve(.failure(errors[0].value), by: .chain)
                }
            }
        }
        if pending { combination.track(promise) }
    }
    return result
}
