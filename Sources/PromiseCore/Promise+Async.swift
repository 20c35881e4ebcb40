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
    public convenience init(_ work: @escaping @Sendable () async throws -> Value) {
        self.init(resolvingContextID: nil)
        let task = Task { [self] in
            do {
                let value = try await work()
                self.resolve(.success(value), fromUpstream: true)
            } catch {
                self.resolve(.failure(error), fromUpstream: true)
            }
        }
        onCancel { task.cancel() }
    }

    /// Waits for the promise without blocking a thread.
    ///
    /// If the calling task is cancelled while waiting, this throws `CancellationError` at
    /// once and withdraws its interest in the promise: the promise is cancelled when nothing
    /// else waits for it.
    ///
    /// - Returns: The value.
    /// - Throws: The rejection reason, or `CancellationError`.
    @discardableResult
    public func get() async throws -> Value {
        if let result = deliveredResult {
            return try result.get()
        }
        let waiter = Promise<Value>(resolvingContextID: nil)
        subscribe(linking: waiter) { waiter.resolve($0, fromUpstream: true) }
        return try await withTaskCancellationHandler {
            // Inside the handler, so cancelling the task reaches work that runs here.
            _ = runOnWaitingThread(blocking: false)
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
    /// which is about to wait for it (see ``WaitingThreadRunner``). Returns whether it did.
    @inlinable
    func runOnWaitingThread(blocking: Bool) -> Bool {
        guard waitingThreadRunnersExist(),
            let id = withState({ $0.result == nil ? $0.resolvingContextID : nil })
        else { return false }
        return askWaitingThreadRunner(of: id, settling: ObjectIdentifier(self), blocking: blocking)
    }
}

/// Whether a ``WaitingThreadRunner`` was ever registered (one atomic load).
@usableFromInline
func waitingThreadRunnersExist() -> Bool {
    ContextRegistry.hasWaitingThreadRunners
}

/// Asks the runner registered for `context`, if any, to settle `promise` on this thread.
@usableFromInline
func askWaitingThreadRunner(of context: ObjectIdentifier, settling promise: ObjectIdentifier, blocking: Bool) -> Bool {
    guard let runner = ContextRegistry.waitingThreadRunner(for: context) else { return false }
    return runner.runOnWaitingThread(settling: promise, blocking: blocking)
}
