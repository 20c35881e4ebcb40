/// Runs `work`, and runs it again after `delay` each time the promise it returns is rejected,
/// up to `attempts` more times: at most `attempts + 1` tries in all, so `retry(attempts: 3)`
/// tries up to four times and `retry(attempts: 0)` once.
///
/// ```swift
/// retry(attempts: 3, delay: .milliseconds(200), condition: { _, error in error is TransientError }) {
///     client.get(url)
/// }
/// ```
///
/// Cancelling the returned promise stops the timer and cancels the attempt in progress.
/// A `CancellationError` from an attempt is never retried.
///
/// - Parameters:
///   - context: Where `work` and `condition` run and whose clock times `delay`; `nil` means
///     ``Promises/defaultContext``.
///   - attempts: How many times to retry after the first try (google/promises' meaning), so
///     `work` runs at most `attempts + 1` times; the default is one retry (two tries).
///     Negative counts as 0.
///   - delay: How long to wait before each retry; the default is one second.
///   - condition: Called after a rejected attempt with the number of retries still allowed
///     (google/promises' remaining attempts: `attempts` when the first try fails, 1 when the
///     try before the last retry fails) and the error; return `false` to stop and reject with
///     that error. Not called once no retries are left. `nil` retries every error.
///   - work: Starts one attempt. Throwing counts as a rejected attempt.
/// - Returns: A promise for the first successful attempt's value, or the last error.
@_alwaysEmitIntoClient
public func retry<Value: Sendable>(
    on context: (any ExecutionContext)? = nil,
    attempts: Int = 1,
    delay: Duration = .seconds(1),
    condition: (@Sendable (_ remainingAttempts: Int, _ error: any Error) -> Bool)? = nil,
    _ work: @escaping @Sendable () throws -> Promise<Value>
) -> Promise<Value> {
    Retrier<Value>.start(
        on: context ?? Promises.defaultContext,
        retries: max(0, attempts),
        delay: { _ in delay },
        condition: condition,
        work: { _ in try work() }
    )
}

/// Runs `work`, and runs it again each time the promise it returns is rejected, up to
/// `attempts` more times (at most `attempts + 1` tries in all), waiting longer before each
/// retry as `backoff` says.
///
/// ```swift
/// retry(attempts: 5, backoff: .exponential(initial: .milliseconds(200), maximum: .seconds(5))) { attempt in
///     print("attempt \(attempt)")
///     return client.get(url)
/// }
/// ```
///
/// Cancelling the returned promise stops the timer and cancels the attempt in progress.
/// A `CancellationError` from an attempt is never retried.
///
/// - Parameters:
///   - context: Where `work` and `condition` run and whose clock times the delays; `nil`
///     means ``Promises/defaultContext``.
///   - attempts: How many times to retry after the first try, so `work` runs at most
///     `attempts + 1` times (`retry(attempts: 5, …)` up to six). Negative counts as 0.
///   - backoff: How long to wait before each retry.
///   - condition: Called after a rejected attempt with the number of retries still allowed
///     (google/promises' remaining attempts, as in ``retry(on:attempts:delay:condition:_:)``:
///     `attempts` when the first try fails, 1 when the try before the last retry fails) and
///     the error; return `false` to stop and reject with that error. Not called once no
///     retries are left. `nil` retries every error. `work`, not `condition`, gets the
///     attempt's number.
///   - work: Starts one attempt, given its number: 1 for the first try, 2 for the first
///     retry, and so on. Throwing counts as a rejected attempt.
/// - Returns: A promise for the first successful attempt's value, or the last error.
@_alwaysEmitIntoClient
public func retry<Value: Sendable>(
    on context: (any ExecutionContext)? = nil,
    attempts: Int,
    backoff: Backoff,
    condition: (@Sendable (_ remainingAttempts: Int, _ error: any Error) -> Bool)? = nil,
    _ work: @escaping @Sendable (_ attempt: Int) throws -> Promise<Value>
) -> Promise<Value> {
    let random = Lock(SystemRandomNumberGenerator())
    return Retrier<Value>.start(
        on: context ?? Promises.defaultContext,
        retries: max(0, attempts),
        delay: { retry in random.withLock { backoff.delay(beforeRetry: retry, using: &$0) } },
        condition: condition,
        work: work
    )
}

/// The state of one `retry` call.
@usableFromInline
final class Retrier<Value: Sendable>: Sendable {
    /// The retry's progress, under ``state``'s lock.
    @usableFromInline
    struct State {
        /// Retries left.
        @usableFromInline var remaining: Int
        /// The number of the attempt running or last run: 1 from the start, counted up by
        /// the timer before a retry as it fires.
        @usableFromInline var attempt: Int
        /// The attempt's promise while it runs, held weakly.
        @usableFromInline var current: WeakNode?
        /// The timer before the next attempt, while it waits.
        @usableFromInline var timer: ScheduledWork?
        /// Whether the retry was stopped (its promise cancelled).
        @usableFromInline var stopped: Bool

        @_alwaysEmitIntoClient
        init(remaining: Int) {
            self.remaining = remaining
            self.attempt = 1
            self.current = nil
            self.timer = nil
            self.stopped = false
        }
    }

    @usableFromInline let result: Promise<Value>
    @usableFromInline let context: any ExecutionContext
    /// The delay before retry number `n` (1 for the first retry).
    @usableFromInline let delay: @Sendable (Int) -> Duration
    /// Called with the retries left after a failed attempt (at least 1) and its error.
    @usableFromInline let condition: (@Sendable (Int, any Error) -> Bool)?
    /// Starts attempt number `n` (1 for the first try).
    @usableFromInline let work: @Sendable (Int) throws -> Promise<Value>
    @usableFromInline let state: Lock<State>

    @_alwaysEmitIntoClient
    init(
        context: any ExecutionContext,
        retries: Int,
        delay: @escaping @Sendable (Int) -> Duration,
        condition: (@Sendable (Int, any Error) -> Bool)?,
        work: @escaping @Sendable (Int) throws -> Promise<Value>
    ) {
        self.result = Promise(resolvingContextID: context.executionContextID)
        self.context = context
        self.delay = delay
        self.condition = condition
        self.work = work
        self.state = Lock(State(remaining: retries))
    }

    /// Starts the first attempt on `context` and returns the promise for the outcome.
    @_alwaysEmitIntoClient
    static func start(
        on context: any ExecutionContext,
        retries: Int,
        delay: @escaping @Sendable (Int) -> Duration,
        condition: (@Sendable (Int, any Error) -> Bool)?,
        work: @escaping @Sendable (Int) throws -> Promise<Value>
    ) -> Promise<Value> {
        let retrier = Retrier(context: context, retries: retries, delay: delay, condition: condition, work: work)
        retrier.result.onCancel { retrier.stop() }
        Scheduler.submit(context, owner: retrier.result) { retrier.attempt(1) }
        return retrier.result
    }

    /// Starts attempt `number`; runs on `context`.
    @_alwaysEmitIntoClient
    func attempt(_ number: Int) {
        guard result.isPending else { return }
        let promise: Promise<Value>
        do {
            promise = try AdapterSupport.runningRetryAttempt(number) { try work(number) }
        } catch {
            failed(error)
            return
        }
        let pending = promise.subscribe(on: nil) { [self] outcome in
            switch outcome {
            case .success:
                result.resolve(outcome, by: .chain)
            case .failure(let error):
                failed(error)
            }
        }
        if pending {
            let stopped = state.withLock { state in
                state.current = WeakNode(promise)
                return state.stopped
            }
            if stopped { withdrawUpward(from: promise) }
        }
    }

    @_alwaysEmitIntoClient
    func failed(_ error: any Error) {
        let (remaining, number) = state.withLock { state in
            state.current = nil
            return (state.remaining, state.attempt)
        }
        guard remaining > 0, !(error is CancellationError), result.isPending else {
            result.resolve(.failure(error), by: .chain)
            return
        }
        // The condition runs on the context, like the work.
        Scheduler.submit(context, owner: result) { [self] in
            guard result.isPending else { return }
            guard condition?(remaining, error) ?? true else {
                result.resolve(.failure(error), by: .chain)
                return
            }
            // Counted before the timer is scheduled: on a concurrent context the next attempt
            // can start, fail and come back here before this closure goes on.
            let counted = state.withLock { state in
                guard !state.stopped else { return false }
                state.remaining -= 1
                return true
            }
            guard counted else { return }
            let timer = Scheduler.schedule(on: context, owner: result, after: delay(number)) { [self] in
                // The fired timer's handle references this closure, which references self.
                let next = state.withLock { state in
                    state.timer = nil
                    state.attempt += 1
                    return state.attempt
                }
                self.attempt(next)
            }
            let stopped = state.withLock { state in
                // Kept for `stop()` only while it has not fired (firing counts the next
                // attempt): a fired timer's handle would keep this retrier alive.
                if !state.stopped && state.attempt == number { state.timer = timer }
                return state.stopped
            }
            if stopped { timer.cancel() }
        }
    }

    /// Cancels the pending timer and withdraws from the attempt in progress.
    @_alwaysEmitIntoClient
    func stop() {
        let (timer, current) = state.withLock { state in
            state.stopped = true
            defer { state.timer = nil; state.current = nil }
            return (state.timer, state.current)
        }
        timer?.cancel()
        current?.withdraw()
    }
}
