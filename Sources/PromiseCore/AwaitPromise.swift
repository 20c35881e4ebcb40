import Dispatch
internal import Synchronization

/// Blocks the calling thread until `promise` settles, and returns its value.
///
/// Meant for the edges of a program (a command-line tool's main function, a test), not for
/// code that runs on a promise context.
///
/// ## Deadlocks
///
/// A wait that could never end throws ``PromiseError/Code-swift.struct/deadlock`` at once,
/// with a message naming the context and the fix, instead of hanging. That is the case when a
/// pending step of the promise's chain is resolved by a context that cannot run while the
/// calling thread blocks:
///
/// - the context whose callback the calling thread is running (or ``Promises/defaultQueue``,
///   in a plain block on it);
/// - the main queue as ``Promises/defaultContext``, when the calling thread is the process's
///   main thread or runs a main-queue block: on Linux the main queue drains only while the
///   main thread runs `dispatchMain()` or `RunLoop.main.run()`;
/// - a `UVLoop`, inside one of its own callbacks;
/// - a thread a registered thread advisor says must never block, whatever the chain needs:
///   with PromiseNIO, any SwiftNIO event loop's thread.
///
/// The check walks every pending step of the chain, through promises returned from callbacks
/// and the inputs of combinators, and every operator records the context that resolves its
/// promise, so it holds for all of them alike. A wait on another thread for a step on the main
/// queue cannot know whether the main thread drains it: with a `timeout`, the
/// ``PromiseError/Code-swift.struct/timedOut`` error then says that the main queue may not be
/// running. A step given `DispatchQueue.main` explicitly (`then(on: .main)`) is not recognized
/// as the main queue: each read of `DispatchQueue.main` is a new instance.
///
/// When a step runs on a `UVLoop` that no thread runs yet, the calling thread runs that loop
/// until the promise settles instead of blocking. When several threads wait on such a loop,
/// one runs it at a time, and when its own promise has settled another waiting thread takes
/// the loop over.
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
@_alwaysEmitIntoClient
@discardableResult
public func awaitPromise<Value: Sendable>(_ promise: Promise<Value>, timeout: Duration? = nil) throws -> Value {
    // Inlined, so the caller's specialized code settles the common cases: a settled promise,
    // and one whose work its context runs on this thread. The deadlock check comes after
    // that work: work that ran here was not waiting for this thread.
    if let result = promise.currentResult {
        return try result.get()
    }
    // Callbacks this thread's batched turn holds may be what settles the promise.
    Scheduler.handOverHeldHops()
    if let result = promise.resultFromWaitingThread(blocking: true, watching: promise, delivered: false) {
        return try result.get()
    }
    return try awaitPending(promise, timeout: timeout)
}

/// ``awaitPromise(_:timeout:)`` for a promise still pending: the deadlock check, then a
/// context's drive or a blocking wait.
@usableFromInline
func awaitPending<Value: Sendable>(_ promise: Promise<Value>, timeout: Duration?) throws -> Value {
    let deadline = timeout.map { DispatchTime.now() + $0.dispatchInterval }
    if let drive = try checkBlockingWait(for: promise) {
        let wait = BlockingWait(
            timeout: timeout,
            isSettled: { !promise.isPending },
            whenSettled: { body in promise.whenSettled(body) }
        )
        if drive(wait) {
            if let result = promise.currentResult { return try result.get() }
            // The drive ended without the result: the timeout passed, or the context closed
            // while this thread ran it (a loop shut down), and the promise may still be
            // settled from elsewhere. Wait for that for the time left.
            if let timeout, let deadline, DispatchTime.now() >= deadline { throw timedOut(promise, after: timeout) }
        }
    }
    let semaphore = DispatchSemaphore(value: 0)
    let outcome = Slot<Result<Value, any Error>>()
    promise.subscribe(on: nil) { result in
        outcome.store(result)
        semaphore.signal()
    }
    if let timeout, let deadline {
        if semaphore.wait(timeout: deadline) == .timedOut {
            throw timedOut(promise, after: timeout)
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
    @usableFromInline let settled: @Sendable () -> Bool
    @usableFromInline let register: @Sendable (@escaping @Sendable () -> Void) -> Void

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
    @_alwaysEmitIntoClient
    public var isSettled: Bool { settled() }

    /// Calls `body` once the awaited promise settles, on the settling thread (now, if it has).
    ///
    /// - Parameter body: Wakes the driving context.
    @_alwaysEmitIntoClient
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

/// A key set on the main queue. Dispatch reports it on the process's main thread and in
/// blocks the main queue runs: the threads whose blocking keeps the main queue from running.
let mainQueueKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
}()

/// The one `DispatchQueue` instance for the main queue that ``Promises/defaultContext`` holds
/// when set to the main queue. Each read of `DispatchQueue.main` makes a new instance, with an
/// identity of its own; steps on the default context then share this one's.
let mainQueue = DispatchQueue.main

/// `context`, or ``mainQueue`` when `context` is a `DispatchQueue` instance for the main queue.
func canonicalMainQueue(_ context: any ExecutionContext) -> any ExecutionContext {
    guard let queue = context as? DispatchQueue, queue.getSpecific(key: mainQueueKey) == true else { return context }
    return mainQueue
}

/// The identity steps on the main queue as default context record.
private var mainQueueID: ObjectIdentifier { ObjectIdentifier(mainQueue) }

/// Walks the pending steps of `promise`'s chain before a blocking wait, and applies the
/// deadlock rule: a pending step resolved by a context that cannot run while this thread
/// blocks means the wait would never end, so this throws ``PromiseError/Code-swift.struct/deadlock``.
/// Such a context is the one whose turn this thread runs (`Turn.current.currentContextID`, or the
/// default queue in a plain block on it), the main queue when this thread is the main thread
/// or runs a main-queue block, or one whose registered ``BlockingWaitAdvisor`` says so.
/// Every operator records the context that resolves its promise when it creates it
/// (`Promise.init(resolvingContextID:)`), so the rule covers them all. Returns a context's
/// drive closure when one asks to be run here.
private func checkBlockingWait<Value>(
    for promise: Promise<Value>
) throws -> (@Sendable (BlockingWait) -> Bool)? {
    if let refusal = ContextRegistry.threadRefusesBlocking() {
        throw PromiseError(.deadlock, message: "awaitPromise was called on \(refusal.context), which must never block: \(refusal.reason)")
    }
    var current = Turn.current.currentContextID
    if current == nil, DispatchQueue.getSpecific(key: defaultQueueKey) == true {
        current = ObjectIdentifier(Promises.defaultQueue)
    }
    let blocksMainQueue = DispatchQueue.getSpecific(key: mainQueueKey) == true
    var drive: (@Sendable (BlockingWait) -> Bool)?
    var advised: Set<ObjectIdentifier> = []
    try forEachPendingStep(of: promise) { id in
        if id == current {
            throw PromiseError(
                .deadlock,
                message: "awaitPromise was called on \(contextName(id)), which has to run a step of the awaited promise's chain, "
                    + "so it would wait forever; chain with then(…) instead, or call awaitPromise from another thread"
            )
        }
        if blocksMainQueue, id == mainQueueID {
            throw PromiseError(
                .deadlock,
                message: "awaitPromise was called on the main thread, and a step of the awaited promise's chain runs on "
                    + "DispatchQueue.main, which runs only while the main thread drains it, so it would wait forever; "
                    + "chain with then(…) and let the main thread call dispatchMain() or RunLoop.main.run(), "
                    + "or call awaitPromise from another thread"
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
    return drive
}

/// Calls `body` with the resolving context of every pending step of `promise`'s chain that
/// names one: through promises returned from callbacks and the inputs of combinators.
private func forEachPendingStep<Value>(
    of promise: Promise<Value>,
    _ body: (ObjectIdentifier) throws -> Void
) rethrows {
    var stack: [any PromiseNode] = [promise]
    var visited: Set<ObjectIdentifier> = []
    while let step = stack.popLast(), visited.count < 100_000 {
        guard visited.insert(ObjectIdentifier(step)).inserted else { continue }
        let info = step.resolverInfo
        guard info.isPending else { continue }
        if let id = info.contextID { try body(id) }
        stack.append(contentsOf: info.upstreams)
    }
}

/// The error for a wait on `promise` that gave up after `timeout`. When a pending step of the
/// chain runs on the main queue, which the waiting thread cannot tell is being drained, it
/// says so.
private func timedOut<Value>(_ promise: Promise<Value>, after timeout: Duration) -> PromiseError {
    var needsMainQueue = false
    forEachPendingStep(of: promise) { id in
        if id == mainQueueID { needsMainQueue = true }
    }
    var message = "awaitPromise: still pending after \(timeout)"
    if needsMainQueue {
        message +=
            "; a step of its chain runs on DispatchQueue.main, which runs only while the main thread calls "
            + "dispatchMain() or RunLoop.main.run(): if nothing does, it never settles"
    }
    return PromiseError(.timedOut, message: message)
}

/// How a deadlock message names the context `id`.
private func contextName(_ id: ObjectIdentifier) -> String {
    if id == ObjectIdentifier(Promises.defaultQueue) { return "Promises.defaultQueue" }
    if id == mainQueueID { return "DispatchQueue.main" }
    if let advisor = ContextRegistry.advisor(for: id) { return advisor.contextName }
    return "the context whose callback is running on this thread"
}
