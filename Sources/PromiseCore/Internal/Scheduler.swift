package import Dispatch
package import Synchronization

/// A promise seen without its value type: what the drain loop and upward cancellation need.
@usableFromInline
protocol PromiseNode: AnyObject, Sendable {
    /// Delivers the callbacks that were waiting when this promise was resolved, in `turn`,
    /// the calling thread's (passed down: looking it up costs a thread-specific read and a
    /// retain).
    func deliverCallbacks(in turn: Turn)
    /// One consumer of this promise lost interest. If it was the last one and this promise is
    /// still pending, this promise is cancelled and its own upstream is returned, so the caller can
    /// keep walking up without recursion.
    func withdrawConsumer() -> (any PromiseNode)?
    /// Rejects the promise because the context that was to run its callback dropped the work.
    func abandon()
    /// The context that resolves this promise and the promises it waits for, for deadlock
    /// detection.
    var resolverInfo: ResolverInfo { get }
    /// Clears this promise's upstream link if it points at `source`, which is handing over
    /// or breaking the callback this promise owns (see `Internal/UpstreamLink.swift`).
    func unlinkUpstream(from source: ObjectIdentifier)
    /// What a link to this node reaches: the node itself, or, for a ``WatchedSource``, the
    /// adapter's promise while it lives.
    var linkTarget: (any PromiseNode)? { get }
    /// Whether a link to this node is a link to the promise identified by `source`.
    func links(to source: ObjectIdentifier) -> Bool
    /// The last copy of this promise's resolver was released, without settling it through a
    /// resolver method: if the promise is still pending, it is broken.
    func resolverReleased(heldBy holder: ResolverHolder)
}

extension PromiseNode {
    /// Only promises have a resolver.
    @usableFromInline
    func resolverReleased(heldBy holder: ResolverHolder) {}

    /// Nodes other than promises have no upstream link.
    @usableFromInline
    func unlinkUpstream(from source: ObjectIdentifier) {}

    /// A link to a promise or a combination reaches it directly.
    @usableFromInline
    var linkTarget: (any PromiseNode)? { self }

    @usableFromInline
    func links(to source: ObjectIdentifier) -> Bool { ObjectIdentifier(self) == source }
}

/// What `awaitPromise`'s deadlock check learns of one step of a chain.
@usableFromInline
struct ResolverInfo {
    /// The context whose work resolves the step, if known.
    let contextID: ObjectIdentifier?
    /// The promises the step waits for: its source, or the inputs of a combinator.
    let upstreams: [any PromiseNode]
    /// Whether the step is still pending.
    let isPending: Bool

    /// A step that waits for nothing and is settled.
    static var settled: ResolverInfo { ResolverInfo(contextID: nil, upstreams: [], isPending: false) }
}

/// Hands callbacks to their contexts, running same-turn work in a loop instead of recursing.
///
/// The life of a callback, and what a context is told at each step, is at the top of
/// `ExecutionContext+Contract.swift`.
@usableFromInline
enum Scheduler {
    /// How deep deliveries may nest inside a drain before they are queued instead.
    static let nestingLimit = 16

    /// Starts delivering `node`'s callbacks, which the caller then does itself (from code
    /// specialized for its value type, several times cheaper than the queue's generic path).
    /// Long chains stay off the stack: what cannot be delivered now waits in the drain queue.
    ///
    /// Returns the turn when the caller should deliver now and then call
    /// ``endDelivery(_:)``: when this thread is not draining (a drain starts), or when it is
    /// and `nested` is true and fewer than ``nestingLimit`` deliveries are nested already.
    /// Otherwise queues `node` for the drain loop and returns `nil`.
    ///
    /// `nested` is for settlements the library makes after a user callback has returned:
    /// delivering them at once never runs a callback inside user code's `fulfill` (A+ 2.2.4).
    @usableFromInline
    static func beginDelivery(of node: any PromiseNode, nested: Bool) -> Turn? {
        let turn = Turn.current
        if !turn.draining {
            turn.draining = true
            return turn
        }
        if nested, turn.nesting < nestingLimit {
            turn.nesting += 1
            return turn
        }
        turn.queue.append(node)
        return nil
    }

    /// Finishes a delivery started by ``beginDelivery(of:nested:)``.
    @usableFromInline
    static func endDelivery(_ turn: Turn) {
        if turn.nesting > 0 {
            turn.nesting -= 1
            return
        }
        drain(turn)
        turn.draining = false
    }

    /// How deep callbacks run at once on an already settled promise may nest (a `then(on:
    /// .inline)` body that chains onto a settled promise, recursively) before further ones
    /// wait for the drain loop instead, so that recursion of any depth stays off the stack.
    static let inlineDepthLimit = 64

    /// Runs a callback for an already settled promise now, as part of a drain on this thread
    /// (starting one if needed); past ``inlineDepthLimit`` nested ones, queues `deferred()`
    /// for the drain loop instead.
    @usableFromInline
    static func runSettled(_ deferred: () -> any PromiseNode, _ work: () -> Void) {
        let turn = Turn.current
        if turn.draining {
            if turn.inlineDepth >= inlineDepthLimit {
                turn.queue.append(deferred())
                return
            }
            turn.inlineDepth += 1
            work()
            turn.inlineDepth -= 1
            return
        }
        turn.draining = true
        work()
        drain(turn)
        turn.draining = false
    }

    /// Runs `work` now, as part of a drain on this thread (starting one if needed).
    @usableFromInline
    static func runImmediately(_ work: (Turn) -> Void) {
        let turn = Turn.current
        if turn.draining {
            work(turn)
            return
        }
        turn.draining = true
        work(turn)
        drain(turn)
        turn.draining = false
    }

    /// Runs `work` as one turn of the context identified by `contextID`: callbacks for that same
    /// context that become ready during the turn run right after `work`, without another hop.
    @usableFromInline
    static func runTurn(_ contextID: ObjectIdentifier?, _ work: () -> Void) {
        let turn = Turn.current
        if turn.draining {
            // A context ran our work synchronously from inside another turn (for example a manual
            // context driven from a callback). Keep the outer turn's queue apart.
            let savedContext = turn.currentContextID
            let savedQueue = turn.queue
            let savedHead = turn.head
            turn.queue = []
            turn.head = 0
            turn.currentContextID = contextID
            work()
            drain(turn)
            turn.currentContextID = savedContext
            turn.queue = savedQueue
            turn.head = savedHead
            return
        }
        turn.currentContextID = contextID
        turn.draining = true
        work()
        drain(turn)
        turn.draining = false
        turn.currentContextID = nil
    }

    /// ``runTurn(_:_:)``, with every hop made meanwhile to a serial context joining one
    /// carrier job for that context, handed over when the turn ends (see
    /// `Internal/HopBatch.swift`): settling many promises in one turn wakes each context once.
    /// Inside another batched turn, runs as part of it.
    static func runBatchedTurn(_ contextID: ObjectIdentifier?, _ work: () -> Void) {
        let turn = Turn.current
        guard turn.hops == nil else {
            runTurn(contextID, work)
            return
        }
        let batch = HopBatch()
        turn.hops = batch
        batchedTurnCount.add(1, ordering: .relaxed)
        runTurn(contextID, work)
        batchedTurnCount.subtract(1, ordering: .relaxed)
        // Hops made from now on no longer find the batch; its held carriers go to their contexts.
        turn.hops = nil
        batch.handOver()
    }

    /// Submits the carriers that the calling thread's batched turn holds, if it runs one:
    /// called by every blocking wait before it blocks, so that a wait inside the turn for a
    /// callback that joined a carrier does not wait for the end of the turn, which would never
    /// come (see `Internal/HopBatch.swift`).
    @usableFromInline
    static func handOverHeldHops() {
        guard batchedTurnCount.load(ordering: .relaxed) > 0 else { return }
        Turn.current.hops?.handOver()
    }

    private static func drain(_ turn: Turn) {
        // Most drains find nothing queued: leave the array alone then (touching it is not free).
        guard !turn.queue.isEmpty else { return }
        while turn.head < turn.queue.count {
            let node = turn.queue[turn.head]
            turn.head += 1
            node.deliverCallbacks(in: turn)
            if turn.head >= 4096, turn.head * 2 >= turn.queue.count {
                turn.queue.removeFirst(turn.head)
                turn.head = 0
            }
        }
        turn.queue.removeAll(keepingCapacity: turn.queue.capacity <= 1024)
        turn.head = 0
    }

    /// Submits `work` to `context` as a turn of its own. If the context refuses the job (an
    /// invalidated ``InvalidatableQueue``, a shut-down loop), `owner` is rejected instead of
    /// left pending.
    @_alwaysEmitIntoClient
    static func submit(
        _ context: any ExecutionContext,
        owner: (any PromiseNode)? = nil,
        _ work: @escaping @Sendable () -> Void
    ) {
        let id = context.executionContextID
        assert(recordsResolver(owner, id), resolverRuleMessage)
        submitTurn(context, owner: owner) { runTurn(id, work) }
    }

    /// Whether `owner` names `contextID` as the context that resolves it: the rule behind
    /// `awaitPromise`'s deadlock check, which every operator follows by creating its promise
    /// with the context it hands work to (``Promise/init(resolvingContextID:)``), and which
    /// ``submit(_:owner:_:)`` and ``schedule(on:owner:after:_:)`` check in debug builds.
    @usableFromInline
    static func recordsResolver(_ owner: (any PromiseNode)?, _ contextID: ObjectIdentifier?) -> Bool {
        guard let owner, let contextID else { return true }
        return owner.resolverInfo.contextID == contextID
    }

    /// What a debug build says when an operator breaks the rule ``recordsResolver(_:_:)`` checks.
    @_alwaysEmitIntoClient
    static var resolverRuleMessage: String {
        "swift-promise: an operator handed work to a context for a promise that does not name that context as its resolver; "
            + "create the promise with Promise(resolvingContextID: context.executionContextID) so that awaitPromise detects deadlocks"
    }

    /// Hands a callback's `body` and the `result` it gets to `context`, as a turn of its own:
    /// one closure, which runs the turn itself.
    @_alwaysEmitIntoClient
    static func submitDelivery<Value: Sendable>(
        _ context: any ExecutionContext & AnyObject,
        owner: (any PromiseNode)?,
        _ body: @escaping @Sendable (Result<Value, any Error>) -> Void,
        _ result: Result<Value, any Error>
    ) {
        let id = context.executionContextID
        submitTurn(context, owner: owner) { runTurn(id) { body(result) } }
    }

    /// ``submit(_:owner:_:)`` for work whose closure already runs it as a turn of `context`
    /// (through ``runTurn(_:_:)``), so that the hop allocates that one closure.
    @usableFromInline
    static func submitTurn(
        _ context: any ExecutionContext,
        owner: (any PromiseNode)?,
        _ turn: @escaping @Sendable () -> Void
    ) {
        let job: ContextJob
        if Tracking.isEnabled {
            let tracked = TrackedJob(owner: owner, turn)
            job = ContextJob(owner: tracked) { tracked.run() }
        } else {
            job = ContextJob(owner: owner, turn: turn)
        }
        if batchedTurnCount.load(ordering: .relaxed) > 0, let batch = Turn.current.hops, batch.add(job, to: context) {
            return
        }
        context.submit(job)
    }

    /// Runs `work` on `context` after `delay`, as a turn of that context. The returned handle
    /// cancels it; cancelling after it ran does nothing. A refused timer rejects `owner`.
    @_alwaysEmitIntoClient
    static func schedule(
        on context: any ExecutionContext,
        owner: (any PromiseNode)?,
        after delay: Duration,
        _ work: @escaping @Sendable () -> Void
    ) -> ScheduledWork {
        let id = context.executionContextID
        assert(recordsResolver(owner, id), resolverRuleMessage)
        guard Tracking.isEnabled else {
            return context.submit(ContextJob(contextID: id, owner: owner, work: work), after: delay)
        }
        let tracked = TrackedJob(owner: owner, work)
        let handle = context.submit(ContextJob(contextID: id, owner: tracked) { tracked.run() }, after: delay)
        return ScheduledWork {
            handle.cancel()
            tracked.drop()
        }
    }
}

/// How many threads run a batched turn right now: while none does, a hop skips looking for
/// one. A constant-initialized global: a static property is initialized lazily, and every
/// hop would read it through `swift_once`.
private let batchedTurnCount = Atomic<Int>(0)

/// A job counted by ``Tracking`` while `PromiseTesting` tracks promise work: counted from its
/// submission until it has run, been cancelled or been refused, and released before the count
/// ends. The context's job holds only this box, so once the count reaches zero nothing the
/// work captured (a `retry`'s state, a `delay`'s value, the promise it settles) is held by
/// it any more, however long the context keeps the job itself.
@usableFromInline
final class TrackedJob: PromiseNode {
    /// What the job holds until it has run or been dropped.
    private struct Held {
        let owner: (any PromiseNode)?
        let work: @Sendable () -> Void
    }

    private let held: Lock<Held?>

    /// Counts `work` as in flight.
    @usableFromInline
    init(owner: (any PromiseNode)?, _ work: @escaping @Sendable () -> Void) {
        held = Lock(Held(owner: owner, work: work))
        Tracking.begin()
    }

    /// Runs the work unless it was dropped, releases it, then ends its count.
    @usableFromInline
    func run() {
        do {
            guard let held = take() else { return }
            held.work()
        }
        Tracking.end()
    }

    /// Releases the work without running it and ends its count (a cancelled timer); does
    /// nothing once the work has run or been dropped.
    @usableFromInline
    func drop() {
        guard take() != nil else { return }
        Tracking.end()
    }

    private func take() -> Held? {
        held.withLock { held in
            defer { held = nil }
            return held
        }
    }

    @usableFromInline func deliverCallbacks(in turn: Turn) {}
    @usableFromInline func withdrawConsumer() -> (any PromiseNode)? { nil }
    /// The context refused the job: its owner is rejected, and the count ends as running would.
    @usableFromInline func abandon() {
        guard let held = take() else { return }
        held.owner?.abandon()
        Tracking.end()
    }
    @usableFromInline var resolverInfo: ResolverInfo {
        let owner = held.withLock { $0?.owner }
        return owner?.resolverInfo ?? .settled
    }
}

/// A callback for a settled promise that waits in the drain queue (see
/// ``Scheduler/inlineDepthLimit``).
@usableFromInline
final class DeferredCallback<Value: Sendable>: PromiseNode {
    let body: @Sendable (Result<Value, any Error>) -> Void
    let result: Result<Value, any Error>

    @usableFromInline
    init(_ body: @escaping @Sendable (Result<Value, any Error>) -> Void, _ result: Result<Value, any Error>) {
        self.body = body
        self.result = result
    }

    @usableFromInline
    func deliverCallbacks(in turn: Turn) { body(result) }
    @usableFromInline
    func withdrawConsumer() -> (any PromiseNode)? { nil }
    @usableFromInline
    func abandon() {}
    @usableFromInline
    var resolverInfo: ResolverInfo { .settled }
}

/// Counts promise work in flight, for `PromiseTesting.waitForPromises`. Off (and free) until
/// a test enables it.
@usableFromInline
package enum Tracking {
    private static let enabled = Atomic<Bool>(false)
    private static let inFlight = Atomic<Int>(0)

    /// Whether work is being counted.
    @usableFromInline
    package static var isEnabled: Bool { enabled.load(ordering: .relaxed) }
    /// Starts counting work submitted from now on.
    package static func enable() { enabled.store(true, ordering: .releasing) }
    /// Work submitted while counting that has not finished yet.
    package static var pendingCount: Int { inFlight.load(ordering: .acquiring) }
    @usableFromInline
    static func begin() { inFlight.add(1, ordering: .relaxed) }
    @usableFromInline
    static func end() {
        let left = inFlight.subtract(1, ordering: .acquiringAndReleasing).newValue
        if left == 0, idleWaiters.load(ordering: .acquiring) > 0 { idle.signal() }
    }

    /// Threads waiting for the count to reach zero (PromiseTesting's `waitForPromises`).
    package static let idleWaiters = Atomic<Int>(0)
    /// Signalled when the count drops to zero while a thread waits for that.
    package static let idle = DispatchSemaphore(value: 0)
}
