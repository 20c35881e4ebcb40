import Dispatch
internal import Synchronization

/// Blocks the calling thread until `promise` settles, and returns its value.
///
/// Meant for the edges of a program (a command-line tool's main function, a test), not for
/// code that runs on a promise context. Waiting on the context that has to resolve the
/// promise would deadlock, so that is detected: when the calling thread is running a turn of
/// a context (or the default queue) that a pending step of this promise's chain runs on, this
/// throws ``PromiseError/Code-swift.struct/deadlock`` at once instead of hanging.
///
/// Never call it from Swift concurrency code: it blocks a thread of the cooperative pool
/// (two threads on a two-core machine), and a promise that needs a `Task` to settle, such as
/// one made with `Promise { try await … }`, may then never settle. Use
/// ``Promise/get()`` there; the compiler refuses `awaitPromise` in `async` functions.
///
/// - Parameters:
///   - promise: The promise to wait for.
///   - timeout: The longest to wait; `nil` waits as long as it takes.
/// - Returns: The value.
/// - Throws: The rejection reason; ``PromiseError/Code-swift.struct/timedOut`` when
///   `timeout` passes first; ``PromiseError/Code-swift.struct/deadlock`` as described above.
@available(*, noasync, message: "blocks a cooperative thread; use 'try await promise.get()' instead")
public func awaitPromise<Value: Sendable>(_ promise: Promise<Value>, timeout: Duration? = nil) throws -> Value {
    if let result = promise.currentResult {
        return try result.get()
    }
    try checkNoDeadlock(waitingFor: promise)
    let semaphore = DispatchSemaphore(value: 0)
    let outcome = Slot<Result<Value, any Error>>()
    promise.subscribe(on: nil) { result in
        outcome.store(result)
        semaphore.signal()
    }
    if let timeout {
        if semaphore.wait(timeout: .now() + timeout.dispatchInterval) == .timedOut {
            throw PromiseError(.timedOut, "awaitPromise: still pending after \(timeout)")
        }
    } else {
        semaphore.wait()
    }
    return try outcome.value.get()
}

/// A key set on ``Promises/defaultQueue`` so a wait from a plain `async` block on it is caught too.
let defaultQueueKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    Promises.defaultQueue.setSpecific(key: key, value: true)
    return key
}()

private func checkNoDeadlock<Value>(waitingFor promise: Promise<Value>) throws {
    var current = Turn.current.currentContextID
    if current == nil, DispatchQueue.getSpecific(key: defaultQueueKey) == true {
        current = ObjectIdentifier(Promises.defaultQueue)
    }
    guard let current else { return }
    var node: (any PromiseNode)? = promise
    var depth = 0
    while let step = node, depth < 100_000 {
        let info = step.resolverInfo
        guard info.isPending else { return }
        if info.contextID == current {
            throw PromiseError(
                .deadlock,
                "awaitPromise was called on the context that has to resolve the promise, so it would wait forever; "
                    + "chain with then(…) instead, or call awaitPromise from another thread"
            )
        }
        node = info.upstream
        depth += 1
    }
}
