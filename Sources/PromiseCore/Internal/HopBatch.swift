internal import Dispatch
internal import Synchronization

// Batched turns: an adapter that settles many promises in one pass (PromiseCurl's driver after
// `curl_multi_perform`) runs the pass as one batched turn (`Scheduler.runBatchedTurn`). Every
// hop that the pass makes to a serial context joins one carrier job for that context, and the
// carriers are handed to their contexts when the turn ends, so each context is woken once per
// pass, not once per settled promise.
//
// Handing a carrier over at the first hop instead does not batch on a busy machine: the woken
// thread of a context on the same CPU preempts the pass, runs the one callback, finds nothing
// more and closes the carrier, and the next hop of the pass needs a new job and a new wake-up.
// Counted with `perf stat -e context-switches` around `PromiseCurlBench` at c=16 (40 000
// requests, the client's threads on one CPU): 70 126 switches with carriers handed over at the
// first hop, 20 811 with carriers handed over at the end of the pass (Benchmarks/README.md).
//
// Held carriers must not make a wait inside the turn wait forever: every blocking wait of the
// library (`awaitPromise`, PromiseTesting's `waitForPromises`) hands the calling thread's held
// carriers over before it blocks (`Scheduler.handOverHeldHops`). A carrier that was handed
// over keeps taking the turn's later hops until it runs dry and closes; the next hop then
// starts a carrier of its own.
//
// Only contexts known to run one job at a time join carriers: on a concurrent queue, jobs
// joined into one would run one after another instead of side by side, and one that waits for
// another would wait forever. Known serial are `Promises.defaultQueue`, `DispatchQueue.main`
// and the context types registered as serial (a `UVLoop`); other contexts get a hop each,
// submitted at once.

/// The carriers of one batched turn, one per serial context that a hop went to.
final class HopBatch {
    private var carriers: [HopCarrier] = []
    /// Carriers made since the last hand-over, with their contexts, in the order made.
    private var held: [(carrier: HopCarrier, context: any ExecutionContext)] = []
    private let defaultQueueID = ObjectIdentifier(Promises.defaultQueue)
    private let mainQueueID = ObjectIdentifier(DispatchQueue.main)

    /// Hands `job` to the carrier for `context` if `context` is known to be serial; returns
    /// `false` (the caller submits the job itself) otherwise. A new carrier is held until
    /// ``handOver()``.
    func add(_ job: ContextJob, to context: any ExecutionContext) -> Bool {
        guard let id = context.executionContextID, isSerial(context, id) else { return false }
        var index = carriers.count
        while index > 0 {
            index -= 1
            let carrier = carriers[index]
            guard carrier.contextID == id else { continue }
            if carrier.join(job) { return true }
            // The carrier ran dry and closed (or its context refused it): start a new one.
            carriers.remove(at: index)
            break
        }
        let carrier = HopCarrier(contextID: id, first: job)
        carriers.append(carrier)
        held.append((carrier, context))
        return true
    }

    /// Submits every held carrier to its context, in the order they were made: at the end of
    /// the turn, and before the turn's thread blocks in a wait.
    func handOver() {
        guard !held.isEmpty else { return }
        let due = held
        held = []
        for (carrier, context) in due {
            context.submit(ContextJob(owner: carrier, turn: { carrier.run() }))
        }
    }

    private func isSerial(_ context: any ExecutionContext, _ id: ObjectIdentifier) -> Bool {
        id == defaultQueueID || id == mainQueueID || isRegisteredSerial(type(of: context))
    }
}

/// One job on a serial context that runs the hops joined to it, in the order they joined.
final class HopCarrier: PromiseNode {
    private struct State {
        var jobs: [ContextJob] = []
        /// Set when the carrier found nothing left to run, or its context refused it: no
        /// hop joins it any more.
        var closed = false
    }

    let contextID: ObjectIdentifier
    private let state: Lock<State>

    init(contextID: ObjectIdentifier, first: ContextJob) {
        self.contextID = contextID
        var initial = State()
        initial.jobs.append(first)
        state = Lock(initial)
    }

    /// Adds `job` to the ones this carrier runs; `false` if it closed.
    func join(_ job: ContextJob) -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            state.jobs.append(job)
            return true
        }
    }

    /// Runs the joined jobs, each as a turn of its own, until none is left; then closes.
    func run() {
        var due: [ContextJob] = []
        while true {
            let more: Bool = state.withLock { state in
                if state.jobs.isEmpty {
                    state.closed = true
                    return false
                }
                swap(&due, &state.jobs)
                return true
            }
            guard more else { return }
            for job in due { job.run() }
            due.removeAll(keepingCapacity: true)
        }
    }

    // The carrier is the owner of its context job: a refusal refuses every joined job.
    func abandon() {
        let refused: [ContextJob] = state.withLock { state in
            state.closed = true
            let jobs = state.jobs
            state.jobs = []
            return jobs
        }
        for job in refused { job.refuse() }
    }

    func deliverCallbacks(in turn: Turn) {}
    func withdrawConsumer() -> (any PromiseNode)? { nil }
    var resolverInfo: ResolverInfo { ResolverInfo(contextID: contextID, upstreams: [], isPending: false) }
}
