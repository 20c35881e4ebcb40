
/// Runs `work`, and runs it again after `delay` each time the promise it returns is rejected,
/// up to `attempts` more times.
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
///   - attempts: How many times to retry after the first try (google/promises' meaning);
///     the default is one retry.
///   - delay: How long to wait before each retry; the default is one second.
///   - condition: Called with the number of retries left and the error; return `false` to
///     stop and reject with that error. `nil` retries every error.
///   - work: Starts one attempt. Throwing counts as a rejected attempt.
/// - Returns: A promise for the first successful attempt's value, or the last error.
public func retry<Value: Sendable>(
    on context: (any ExecutionContext)? = nil,
    attempts: Int = 1,
    delay: Duration = .seconds(1),
    condition: (@Sendable (_ remainingAttempts: Int, _ error: any Error) -> Bool)? = nil,
    _ work: @escaping @Sendable () throws -> Promise<Value>
) -> Promise<Value> {
    let context = context ?? Promises.defaultContext
    let retrier = Retrier(context: context, delay: delay, remaining: max(0, attempts), condition: condition, work: work)
    retrier.result.onCancel { retrier.stop() }
    Scheduler.submit(context, owner: retrier.result) { retrier.attempt() }
    return retrier.result
}

/// The state of one `retry` call.
private final class Retrier<Value: Sendable>: Sendable {
    private struct State {
        var remaining: Int
        var current: WeakNode?
        var timer: ScheduledWork?
        var stopped = false
    }

    let result: Promise<Value>
    private let context: any ExecutionContext
    private let delay: Duration
    private let condition: (@Sendable (Int, any Error) -> Bool)?
    private let work: @Sendable () throws -> Promise<Value>
    private let state: Lock<State>

    init(
        context: any ExecutionContext,
        delay: Duration,
        remaining: Int,
        condition: (@Sendable (Int, any Error) -> Bool)?,
        work: @escaping @Sendable () throws -> Promise<Value>
    ) {
        self.result = Promise(resolvingContextID: context.executionContextID)
        self.context = context
        self.delay = delay
        self.condition = condition
        self.work = work
        self.state = Lock(State(remaining: remaining))
    }

    /// Starts one attempt; runs on `context`.
    func attempt() {
        guard result.isPending else { return }
        let promise: Promise<Value>
        do {
            promise = try work()
        } catch {
            failed(error)
            return
        }
        let pending = promise.subscribe(on: nil) { [self] outcome in
            switch outcome {
            case .success:
                result.resolve(outcome, fromUpstream: true)
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

    private func failed(_ error: any Error) {
        let remaining = state.withLock { state in
            state.current = nil
            return state.remaining
        }
        guard remaining > 0, !(error is CancellationError), result.isPending else {
            result.resolve(.failure(error), fromUpstream: true)
            return
        }
        // The condition runs on the context, like the work.
        Scheduler.submit(context, owner: result) { [self] in
            guard result.isPending else { return }
            guard condition?(remaining, error) ?? true else {
                result.resolve(.failure(error), fromUpstream: true)
                return
            }
            let timer = Scheduler.schedule(on: context, owner: result, after: delay) { [self] in
                // The fired timer's handle references this closure, which references self.
                state.withLock { $0.timer = nil }
                self.attempt()
            }
            let stopped = state.withLock { state in
                state.remaining -= 1
                state.timer = timer
                return state.stopped
            }
            if stopped { timer.cancel() }
        }
    }

    /// Cancels the pending timer and withdraws from the attempt in progress.
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
