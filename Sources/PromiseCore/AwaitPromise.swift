import Dispatch
internal import Synchronization

/// Blocks the calling thread until `promise` settles, and returns its value.
///
/// Meant for the edges of a program (a command-line tool's main function, a test), not for
/// code that runs on a promise context. Waiting on the context that has to resolve the
/// promise would deadlock, so that is detected: when the calling thread is running a turn of
/// a context (or the default queue) that a pending step of this promise's chain runs on, this
/// throws ``PromiseError/Code-swift.struct/deadlock`` at once instead of hanging, with a
/// message naming the context. The check walks every pending step of the chain, through
/// promises returned from callbacks and the inputs of `all`, `any` and `race`. When a step
/// runs on a `UVLoop` that no thread runs yet, the calling thread runs that loop until the
/// promise settles instead of blocking.
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
@inlinable
@discardableResult
public func awaitPromise<Value: Sendable>(_ promise: Promise<Value>, timeout: Duration? = nil) throws -> Value {
    // Inlined, so the caller's specialized code settles the common cases: a settled promise,
    // and one whose work its context runs on this thread. The deadlock check comes after
    // that work: work that ran here was not waiting for this thread.
    if let result = promise.currentResult {
        return try result.get()
    }
    if let result = promise.resultFromWaitingThread(blocking: true, watching: promise, delivered: false) {
        return try result.get()
    }
    return try awaitPending(promise, timeout: timeout)
}

/// ``awaitPromise(_:timeout:)`` for a promise still pending: the deadlock check, then a
/// context's drive or a blocking wait.
@usableFromInline
func awaitPending<Value: Sendable>(_ promise: Promise<Value>, timeout: Duration?) throws -> Value {
    if let drive = try checkBlockingWait(for: promise) {
        let wait = BlockingWait(
            timeout: timeout,
            isSettled: { !promise.isPending },
            whenSettled: { body in promise.whenSettled(body) }
        )
        if drive(wait) {
            if let result = promise.currentResult { return try result.get() }
            throw PromiseError(.timedOut, message: "awaitPromise: still pending after \(timeout ?? .zero)")
        }
    }
    let semaphore = DispatchSemaphore(value: 0)
    let outcome = Slot<Result<Value, any Error>>()
    promise.subscribe(on: nil) { result in
        outcome.store(result)
        semaphore.signal()
    }
    if let timeout {
        if semaphore.wait(timeout: .now() + timeout.dispatchInterval) == .timedOut {
            throw PromiseError(.timedOut, message: "awaitPromise: still pending after \(timeout)")
        }
    } else {
        semaphore.wait()
    }
    return try outcome.value.get()
}

/// A blocking wait that a context runs on the waiting thread (``BlockingWaitAdvice/drive(_:)``).
@_spi(ContextContract)
public final class BlockingWait: Sendable {
    /// The longest to wait, or `nil`.
    public let timeout: Duration?
    private let settled: @Sendable () -> Bool
    private let register: @Sendable (@escaping @Sendable () -> Void) -> Void

    init(
        timeout: Duration?,
        isSettled: @escaping @Sendable () -> Bool,
        whenSettled: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void
    ) {
        self.timeout = timeout
        self.settled = isSettled
        self.register = whenSettled
    }

    /// Whether the awaited promise has settled.
    public var isSettled: Bool { settled() }

    /// Calls `body` once the awaited promise settles, on the settling thread (now, if it has).
    ///
    /// - Parameter body: Wakes the driving context.
    public func whenSettled(_ body: @escaping @Sendable () -> Void) {
        register(body)
    }
}

/// A key set on ``Promises/defaultQueue`` so a wait from a plain `async` block on it is caught too.
let defaultQueueKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    Promises.defaultQueue.setSpecific(key: key, value: true)
    return key
}()

/// Walks the pending steps of `promise`'s chain before a blocking wait. Throws ``PromiseError/Code-swift.struct/deadlock``
/// when a step is resolved by the context whose turn this thread runs, or when a registered
/// context advises so; returns a context's drive closure when one asks to be run here.
private func checkBlockingWait<Value>(
    for promise: Promise<Value>
) throws -> (@Sendable (BlockingWait) -> Bool)? {
    var current = Turn.current.currentContextID
    if current == nil, DispatchQueue.getSpecific(key: defaultQueueKey) == true {
        current = ObjectIdentifier(Promises.defaultQueue)
    }
    var stack: [any PromiseNode] = [promise]
    var visited: Set<ObjectIdentifier> = []
    var advised: Set<ObjectIdentifier> = []
    var drive: (@Sendable (BlockingWait) -> Bool)?
    while let step = stack.popLast(), visited.count < 100_000 {
        guard visited.insert(ObjectIdentifier(step)).inserted else { continue }
        let info = step.resolverInfo
        guard info.isPending else { continue }
        if let id = info.contextID {
            if id == current {
                throw PromiseError(
                    .deadlock,
                    message: "awaitPromise was called on \(contextName(id)), which has to run a step of the awaited promise's chain, "
                        + "so it would wait forever; chain with then(…) instead, or call awaitPromise from another thread"
                )
            }
            if advised.insert(id).inserted, let advisor = ContextRegistry.advisor(for: id) {
                switch advisor.adviseBlockingWait() {
                case .block:
                    break
                case .deadlock(let reason):
                    throw PromiseError(.deadlock, message: "awaitPromise would wait forever for \(advisor.contextName): \(reason)")
                case .drive(let run):
                    if drive == nil { drive = run }
                }
            }
        }
        stack.append(contentsOf: info.upstreams)
    }
    return drive
}

/// How a deadlock message names the context `id`.
private func contextName(_ id: ObjectIdentifier) -> String {
    if id == ObjectIdentifier(Promises.defaultQueue) { return "Promises.defaultQueue" }
    if let advisor = ContextRegistry.advisor(for: id) { return advisor.contextName }
    return "the context whose callback is running on this thread"
}
