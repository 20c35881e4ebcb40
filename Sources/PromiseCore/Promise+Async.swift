extension Promise {
    /// Runs `work` in a new `Task` and resolves the promise with its result.
    ///
    /// Cancelling the promise cancels the task.
    ///
    /// ```swift
    /// let promise = Promise { try await fetchUser(id: 42) }
    /// ```
    ///
    /// - Parameter work: The asynchronous work.
    @_alwaysEmitIntoClient
    public convenience init(work: @escaping @Sendable () async throws -> Value) {
        self.init(resolvingContextID: nil)
        trackIfTesting()
        let task = Task { [self] in
            do {
                let value = try await work()
                self.resolve(.success(value), by: .chain)
            } catch {
                self.resolve(.failure(error), by: .chain)
            }
        }
        onCancel { task.cancel() }
    }

    /// Waits for the promise without blocking a thread.
    ///
    /// It runs in the caller's isolation (`nonisolated(nonsending)`): awaited from the main
    /// actor, a promise that is already settled returns without leaving it. A context whose
    /// work is about to settle the promise may have it check for the result for a few
    /// microseconds before the task suspends, which spares the wake-up that resuming costs
    /// (PromiseSQLite's connections do, for `SQLiteConfiguration.pollBeforeSleeping`).
    ///
    /// If the calling task is cancelled while waiting, this throws `CancellationError` at
    /// once (after the few microseconds of such a check) and withdraws its interest in the
    /// promise: the promise is cancelled when nothing else waits for it.
    ///
    /// - Returns: The value.
    /// - Throws: The rejection reason, or `CancellationError`.
    @discardableResult
    @_alwaysEmitIntoClient
    nonisolated(nonsending) public func get() async throws -> Value {
        if let result = deliveredResult {
            return try result.get()
        }
        let waiter = Promise<Value>(resolvingContextID: nil)
        subscribe(linking: waiter) { waiter.resolve($0, by: .chain) }
        // The context is looked up once, for both questions below.
        let runner = pendingWaitingThreadRunner()
        // Polling comes before the cancellation handler, whose installation from the main
        // actor costs two thread switches (see `pollLimitBeforeSuspending`).
        var polled = false
        if let runner, !Task.isCancelled, let limit = runner.pollLimit(settling: ObjectIdentifier(self)) {
            polled = true
            if let result = waiter.poll(for: limit, delivered: true) {
                return try result.get()
            }
        }
        return try await withTaskCancellationHandler {
            // Inside the handler, so cancelling the task reaches work that runs here. Work
            // that ran here settled the waiter before returning, and a result polled for
            // arrived without one: no suspension is needed then.
            if let runner, isPending,
                let result = result(
                    after: runner.run(settling: ObjectIdentifier(self), blocking: false),
                    watching: waiter, delivered: true, mayPoll: !polled)
            {
                return try result.get()
            }
            return try await withCheckedThrowingContinuation { continuation in
                waiter.subscribe(on: nil) { continuation.resume(with: $0) }
            }
        } onCancel: {
            waiter.cancel()
        }
    }
}

extension Promise {
    /// Asks the context that resolves this pending promise to do that work on this thread,
    /// which is about to wait for it (see ``WaitingThreadRunner``): whether it did, or how to
    /// wait.
    @_alwaysEmitIntoClient
    func runOnWaitingThread(blocking: Bool) -> WaitingThreadOutcome {
        guard waitingThreadRunnersExist(),
            let id = withState({ $0.result == nil ? $0.resolvingContextID : nil })
        else { return .declined }
        return askWaitingThreadRunner(of: id, settling: ObjectIdentifier(self), blocking: blocking)
    }

    /// Asks this pending promise's context for help before this thread waits (see
    /// ``runOnWaitingThread(blocking:)``), then reads `target`'s result (this promise, or a
    /// waiter it settles): at once when the work ran here, by polling when the context asks
    /// for that.
    ///
    /// - Parameters:
    ///   - blocking: Whether the thread is about to block rather than suspend.
    ///   - target: The promise whose result the caller returns.
    ///   - delivered: Read ``deliveredResult`` (as ``get()`` does) rather than
    ///     ``currentResult``.
    /// - Returns: The result, or `nil` when the caller has to wait for it.
    @_alwaysEmitIntoClient
    func resultFromWaitingThread(blocking: Bool, watching target: Promise<Value>, delivered: Bool) -> Result<Value, any Error>? {
        result(after: runOnWaitingThread(blocking: blocking), watching: target, delivered: delivered)
    }

    /// Reads `target`'s result after a context's answer to a waiting thread: at once when the
    /// work ran here, by polling when the context asks for that.
    ///
    /// - Parameters:
    ///   - outcome: What the context did.
    ///   - target: The promise whose result the caller returns.
    ///   - delivered: Read ``deliveredResult`` rather than ``currentResult``.
    ///   - mayPoll: Whether to poll when asked to (`false`: the caller polled already).
    /// - Returns: The result, or `nil` when the caller has to wait for it.
    @_alwaysEmitIntoClient
    func result(
        after outcome: WaitingThreadOutcome, watching target: Promise<Value>, delivered: Bool, mayPoll: Bool = true
    ) -> Result<Value, any Error>? {
        switch outcome {
        case .ran: delivered ? target.deliveredResult : target.currentResult
        case .poll(let limit): mayPoll ? target.poll(for: limit, delivered: delivered) : nil
        case .declined: nil
        }
    }

    /// Checks for the result until it comes or `limit` passes (a runner's
    /// ``WaitingThreadHelp/poll(for:)``).
    ///
    /// - Parameters:
    ///   - limit: How long to keep checking, at most a second.
    ///   - delivered: Wait for ``deliveredResult`` (as ``get()`` does) rather than
    ///     ``currentResult``.
    /// - Returns: The result, or `nil` when it did not come in time.
    @_alwaysEmitIntoClient
    func poll(for limit: Duration, delivered: Bool) -> Result<Value, any Error>? {
        let clock = ContinuousClock()
        var now = clock.now
        // At most a second: a longer limit would be a spin, and a limit of the longest
        // `Duration` would overflow the instant.
        let deadline = now.advanced(by: min(limit, .seconds(1)))
        repeat {
            if let result = delivered ? deliveredResult : currentResult { return result }
            // Look at the result about once a microsecond, not as often as possible: taking
            // the lock that often would delay the thread that is about to settle it.
            let next = now.advanced(by: .microseconds(1))
            repeat { now = clock.now } while now < next
        } while now < deadline
        return nil
    }
}

extension Promise {
    /// The ``WaitingThreadRunner`` of the context that resolves this pending promise, if any
    /// (one atomic load while none was ever registered).
    @_alwaysEmitIntoClient
    func pendingWaitingThreadRunner() -> RegisteredRunner? {
        guard waitingThreadRunnersExist(), let id = withState({ $0.result == nil ? $0.resolvingContextID : nil }) else { return nil }
        return RegisteredRunner(for: id)
    }
}

/// A registered ``WaitingThreadRunner``, for inlinable code, which cannot name SPI.
@usableFromInline
struct RegisteredRunner {
    let runner: any WaitingThreadRunner

    /// The runner registered for the context `id`, if one is and it is still alive.
    @usableFromInline
    init?(for id: ObjectIdentifier) {
        guard let runner = ContextRegistry.waitingThreadRunner(for: id) else { return nil }
        self.runner = runner
    }

    /// The runner's ``WaitingThreadRunner/pollLimitBeforeSuspending(settling:)``.
    @usableFromInline
    func pollLimit(settling promise: ObjectIdentifier) -> Duration? {
        runner.pollLimitBeforeSuspending(settling: promise)
    }

    /// The runner's ``WaitingThreadRunner/runOnWaitingThread(settling:blocking:)``.
    @usableFromInline
    func run(settling promise: ObjectIdentifier, blocking: Bool) -> WaitingThreadOutcome {
        WaitingThreadOutcome(runner.runOnWaitingThread(settling: promise, blocking: blocking))
    }
}

/// Whether a ``WaitingThreadRunner`` was ever registered (one atomic load).
@usableFromInline
func waitingThreadRunnersExist() -> Bool {
    ContextRegistry.hasWaitingThreadRunners
}

/// Asks the runner registered for `context`, if any, to settle `promise` on this thread.
@usableFromInline
func askWaitingThreadRunner(of context: ObjectIdentifier, settling promise: ObjectIdentifier, blocking: Bool) -> WaitingThreadOutcome {
    RegisteredRunner(for: context)?.run(settling: promise, blocking: blocking) ?? .declined
}

/// ``WaitingThreadHelp`` for inlinable code, which cannot name SPI.
@usableFromInline
enum WaitingThreadOutcome {
    case ran
    case declined
    case poll(Duration)

    /// The same answer.
    init(_ help: WaitingThreadHelp) {
        switch help {
        case .ran: self = .ran
        case .declined: self = .declined
        case .poll(let limit): self = .poll(limit)
        }
    }
}
