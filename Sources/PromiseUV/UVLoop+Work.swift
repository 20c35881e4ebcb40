extension UVLoop {
    /// Runs blocking `body` on libuv's thread pool (`uv_queue_work`) and delivers its result
    /// on the loop thread.
    ///
    /// ```swift
    /// loop.work { try expensiveChecksum(of: bytes) }
    ///     .then(on: loop) { sum in print(sum) }
    /// ```
    ///
    /// libuv's pool is process-wide and shared with libuv's own file and DNS work: 4 threads
    /// unless the `UV_THREADPOOL_SIZE` environment variable says otherwise before the first
    /// use. Keep bodies finite; a body that never returns holds a pool thread for good.
    ///
    /// - Parameter body: The work; throwing rejects the promise. It runs on a pool thread,
    ///   never on the loop thread or Swift's cooperative pool.
    /// - Returns: A promise resolved on the loop thread with `body`'s result. Cancelling it
    ///   before `body` starts (`uv_cancel`) means `body` never runs; once started, `body`
    ///   runs to the end and its result is dropped. Rejected with
    ///   ``UVError/Code-swift.struct/loopClosed`` if the loop is shut down before `body`
    ///   starts.
    public func work<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) -> Promise<Value> {
        let core = self.core
        let id = core.contextID
        let promise = Promise<Value>.pending(resolvedOn: id)
        let box = ResultBox<Value>()
        let request = WorkRequest(
            core: core,
            body: { box.result = Result { try body() } },
            finish: { ran, cancelledByCaller in
                guard ran, let result = box.result else {
                    promise.reject(
                        cancelledByCaller
                            ? CancellationError()
                            : UVError(.loopClosed, operation: "work", detail: "the UVLoop was shut down before the work started"))
                    return
                }
                AdapterSupport.runTurn(id) { promise.resolveFromLibrary(result) }
            }
        )
        let start: @Sendable () -> Void = {
            do {
                try core.startWork(request)
            } catch {
                promise.reject(error)
            }
        }
        if core.isOnLoopThread {
            start()
        } else if !core.submit(.user, start) {
            promise.reject(UVError(.loopClosed, operation: "work", detail: "the UVLoop was shut down; submit work before calling shutdown()"))
            return promise
        }
        promise.onCancelFromLibrary {
            request.cancelled.store(true, ordering: .releasing)
            _ = core.submit(.late) { core.cancelWork(request) }
        }
        return promise
    }
}
