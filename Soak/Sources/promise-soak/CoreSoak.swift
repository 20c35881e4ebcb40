import ArgumentParser
import Dispatch
import PromiseCore
import Synchronization

/// `promise-soak core`: promise chains in batches, each rooted in a pending promise that
/// another queue resolves, each checked to end with its expected value or error exactly once.
struct CoreSoak: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "core",
        abstract: "Promise chains: pending promises resolved on other queues, through then, recover, catch, validate and always; some rejected, some cancelled.",
        discussion: """
            Eight kinds of chain take turns: mapped values (including a then that returns a \
            promise), a rejection skipped by then, seen by catch and turned into a value by \
            recover, an error thrown in then and recovered, validate (every other one fails), a \
            tail cancelled from a queue before its root is fulfilled (the cancellation must reach \
            the root's onCancel and no then may run), a cancel racing the fulfilment on another \
            queue (either outcome is fine), always, and a rejection that reaches the end. Links \
            run on the default context, the inline context, two serial queues and the global \
            concurrent queue.
            """
    )

    @Option(help: "How many chains.")
    var count = 10_000_000

    @Option(help: "Chains in flight at once: each batch is built, resolved and checked before the next.")
    var batch = 10_000

    @Option(help: "Seconds one batch may take before the run fails as stuck.")
    var stallTimeout = 60

    func validate() throws {
        try validateCount(count)
        guard batch > 0 else { throw ValidationError("--batch must be positive, got \(batch)") }
    }

    func run() throws {
        let failures = SoakFailures()
        Promises.diagnosticsHandler = { report in failures.record("diagnostic: \(report)") }
        let soak = ChainSoak(failures: failures)
        let monitor = SoakMonitor(
            name: "core",
            unit: "chains",
            total: count,
            detail: "\(batch) in flight per batch, 8 kinds of chain, roots resolved on 3 queues"
        )
        var done = 0
        while done < count {
            let size = min(batch, count - done)
            guard soak.runBatch(first: done, size: size, stallTimeout: stallTimeout) else { break }
            done += size
            monitor.progress(done)
        }
        let extra = soak.checkEnds(expected: done)
        guard monitor.finish(done: done, failures: failures, extra: extra) else { throw ExitCode.failure }
    }
}

struct Boom: Error {
    let id: Int
}

/// The kinds of chain, by `n % 8`, and the outcome each must end with.
enum ChainKind: Int, CaseIterable {
    case mapped, rejectedAndRecovered, thrownAndRecovered, validated, cancelledFirst, cancelRace, always, rejectedToTheEnd

    init(_ n: Int) {
        self = ChainKind(rawValue: n % 8)!
    }

    /// Why `result` is wrong for chain `n`, or `nil` if it is right.
    static func problem(_ n: Int, _ result: Result<Int, any Error>) -> String? {
        let kind = ChainKind(n)
        switch (kind, result) {
        case (.mapped, .success(let value)) where value == (n + 1) * 2: return nil
        case (.rejectedAndRecovered, .success(let value)) where value == -n: return nil
        case (.thrownAndRecovered, .success(let value)) where value == n * 3: return nil
        case (.validated, .success(let value)) where n % 16 != 3 && value == n + 1: return nil
        case (.validated, .failure(PromiseError.Code.validationFailure)) where n % 16 == 3: return nil
        case (.cancelledFirst, .failure(let error)) where error is CancellationError: return nil
        case (.cancelRace, .success(let value)) where value == n + 5: return nil
        case (.cancelRace, .failure(let error)) where error is CancellationError: return nil
        case (.always, .success(let value)) where value == n &* 7: return nil
        case (.rejectedToTheEnd, .failure(let error)) where (error as? Boom)?.id == n: return nil
        default: return "\(kind) ended with \(result)"
        }
    }
}

/// One batch's bookkeeping: how often each chain ended, and the side effects to count.
final class ChainBatch: Sendable {
    let first: Int
    let size: Int
    let failures: SoakFailures
    let finished = DispatchSemaphore(value: 0)
    let catchRuns = Atomic<Int>(0)
    let cancelHandlerRuns = Atomic<Int>(0)
    let alwaysRuns = Atomic<Int>(0)
    private let ends: Mutex<(calls: [UInt8], done: Int)>
    private let totalEnds: TotalEnds

    init(first: Int, size: Int, failures: SoakFailures, totalEnds: TotalEnds) {
        self.first = first
        self.size = size
        self.failures = failures
        self.totalEnds = totalEnds
        ends = Mutex(([UInt8](repeating: 0, count: size), 0))
    }

    /// Called by the last link of chain `first + index`.
    func end(_ index: Int, _ result: Result<Int, any Error>) {
        let n = first + index
        if let problem = ChainKind.problem(n, result) { failures.record("chain \(n): \(problem)") }
        totalEnds.count.add(1, ordering: .relaxed)
        let (calls, done) = ends.withLock { state in
            state.calls[index] &+= 1
            state.done += 1
            return (state.calls[index], state.done)
        }
        if calls > 1 { failures.record("chain \(n) (\(ChainKind(n))) ended \(calls) times") }
        if done == size { finished.signal() }
    }

    func unexpected(_ n: Int, _ what: String) {
        failures.record("chain \(n) (\(ChainKind(n))): \(what)")
    }

    /// The chains that have not ended (at most `limit`).
    func unfinished(limit: Int) -> [Int] {
        let calls = ends.withLock { $0.calls }
        return Array(calls.indices.lazy.filter { calls[$0] == 0 }.prefix(limit).map { self.first + $0 })
    }

    var allEndedOnce: Bool {
        ends.withLock { state in state.calls.allSatisfy { $0 == 1 } }
    }
}

final class TotalEnds: Sendable {
    let count = Atomic<Int>(0)
}

/// What a resolver queue does to one chain.
enum RootAction: Sendable {
    case fulfill(PromiseResolver<Int>, Int)
    case reject(PromiseResolver<Int>, Int)
    /// Cancels the chain's tail, then fulfils its root (which must be ignored by then).
    case cancelThenFulfill(tail: Promise<Int>, root: PromiseResolver<Int>, Int)
    /// Cancels the tail of a chain whose root another queue fulfils at about the same time.
    case raceCancel(Promise<Int>)

    func perform() {
        switch self {
        case .fulfill(let root, let n): root.fulfill(n)
        case .reject(let root, let n): root.reject(Boom(id: n))
        case .cancelThenFulfill(let tail, let root, let n):
            tail.cancel()
            root.fulfill(n)
        case .raceCancel(let tail): tail.cancel()
        }
    }
}

final class ChainSoak {
    let failures: SoakFailures
    let totalEnds = TotalEnds()
    let linkQueues = [DispatchQueue(label: "soak.links.a"), DispatchQueue(label: "soak.links.b")]
    let resolverQueues = [DispatchQueue(label: "soak.resolve.a"), DispatchQueue(label: "soak.resolve.b")]
    let contexts: [(any ExecutionContext)?]
    let inline = InlineContext()
    let chunk = 100

    init(failures: SoakFailures) {
        self.failures = failures
        contexts = [nil, InlineContext(), linkQueues[0], linkQueues[1], DispatchQueue.global()]
    }

    /// Where chunk `k` of roots is resolved: the two serial resolver queues and the global queue.
    private func resolver(_ k: Int) -> DispatchQueue {
        k % 3 == 2 ? DispatchQueue.global() : resolverQueues[k % 3]
    }

    /// Builds `size` chains, has other queues resolve their roots chunk by chunk while the rest
    /// are built, waits until every chain has ended and checks each ended once. Returns `false`
    /// when the batch stalled.
    func runBatch(first: Int, size: Int, stallTimeout: Int) -> Bool {
        let batch = ChainBatch(first: first, size: size, failures: failures, totalEnds: totalEnds)
        var actions: [RootAction] = []
        var races: [RootAction] = []
        actions.reserveCapacity(chunk)
        for index in 0..<size {
            build(first + index, index, batch, &actions, &races)
            if actions.count == chunk || index == size - 1 {
                let k = index / chunk
                let work = actions
                resolver(k).async { for action in work { action.perform() } }
                if !races.isEmpty {
                    let cancels = races
                    resolver(k + 1).async { for action in cancels { action.perform() } }
                    races.removeAll(keepingCapacity: true)
                }
                actions.removeAll(keepingCapacity: true)
            }
        }
        if batch.finished.wait(timeout: .now() + .seconds(stallTimeout)) == .timedOut {
            let stuck = batch.unfinished(limit: 5)
            failures.record(
                "batch from chain \(first) stalled: chains not ended after \(stallTimeout) s include "
                    + stuck.map { "\($0) (\(ChainKind($0)))" }.joined(separator: ", ")
            )
            return false
        }
        if !batch.allEndedOnce {
            failures.record("batch from chain \(first): not every chain ended exactly once")
        }
        var expected = [Int](repeating: 0, count: ChainKind.allCases.count)
        for n in first..<(first + size) { expected[n % 8] += 1 }
        check(batch.catchRuns, expected[ChainKind.rejectedAndRecovered.rawValue], "catch handlers", batch)
        check(batch.cancelHandlerRuns, expected[ChainKind.cancelledFirst.rawValue], "onCancel handlers", batch)
        check(batch.alwaysRuns, expected[ChainKind.always.rawValue], "always handlers", batch)
        return true
    }

    private func check(_ counter: borrowing Atomic<Int>, _ expected: Int, _ what: String, _ batch: ChainBatch) {
        let actual = counter.load(ordering: .relaxed)
        if actual != expected {
            failures.record("batch from chain \(batch.first): \(actual) \(what) ran, expected \(expected)")
        }
    }

    /// Waits for the queues used to go idle, then checks that no chain ended late or twice.
    func checkEnds(expected: Int) -> String {
        for queue in linkQueues + resolverQueues + [Promises.defaultQueue] { queue.sync {} }
        let pause = DispatchSemaphore(value: 0)
        _ = pause.wait(timeout: .now() + .milliseconds(200))
        for queue in linkQueues + resolverQueues + [Promises.defaultQueue] { queue.sync {} }
        let ends = totalEnds.count.load(ordering: .relaxed)
        if ends != expected { failures.record("\(ends) chain ends counted in all, expected \(expected)") }
        return "\(ends) ends"
    }

    private func build(_ n: Int, _ index: Int, _ batch: ChainBatch, _ actions: inout [RootAction], _ races: inout [RootAction]) {
        let c = contexts[(n / 8) % contexts.count]
        let (root, resolver) = Promise<Int>.pending()
        let tail: Promise<Int>
        switch ChainKind(n) {
        case .mapped:
            tail = root.then(on: c) { $0 + 1 }
                .then(on: c) { (value: Int) -> Promise<Int> in Promise(value * 2) }
                .recover(on: c) { (error: any Error) -> Int in
                    batch.unexpected(n, "recover ran on a fulfilled chain: \(error)")
                    return -1
                }
            actions.append(.fulfill(resolver, n))
        case .rejectedAndRecovered:
            tail = root.then(on: c) { (value: Int) -> Int in
                batch.unexpected(n, "then ran on a rejected promise")
                return value
            }
            .catch(on: c) { error in
                batch.catchRuns.add(1, ordering: .relaxed)
                if (error as? Boom)?.id != n { batch.unexpected(n, "catch saw \(error)") }
            }
            .recover(on: c) { (error: any Error) -> Int in (error as? Boom)?.id ?? 0 }
            .then(on: c) { -$0 }
            actions.append(.reject(resolver, n))
        case .thrownAndRecovered:
            tail = root.then(on: c) { (value: Int) throws -> Int in throw Boom(id: value) }
                .then(on: c) { (value: Int) -> Int in
                    batch.unexpected(n, "then ran after the previous link threw")
                    return value
                }
                .recover(on: c) { (error: any Error) throws -> Int in
                    guard let boom = error as? Boom else { throw error }
                    return boom.id * 3
                }
            actions.append(.fulfill(resolver, n))
        case .validated:
            tail = root.validate(on: c) { $0 % 16 != 3 }.then(on: c) { $0 + 1 }
            actions.append(.fulfill(resolver, n))
        case .cancelledFirst:
            root.onCancel { batch.cancelHandlerRuns.add(1, ordering: .relaxed) }
            tail = root.then(on: c) { (value: Int) -> Int in
                batch.unexpected(n, "then ran after its chain was cancelled")
                return value
            }
            .then(on: c) { (value: Int) -> Int in
                batch.unexpected(n, "then ran after its chain was cancelled")
                return value
            }
            actions.append(.cancelThenFulfill(tail: tail, root: resolver, n))
        case .cancelRace:
            tail = root.then(on: c) { $0 + 5 }.always(on: c) {}
            actions.append(.fulfill(resolver, n))
            races.append(.raceCancel(tail))
        case .always:
            tail = root.always(on: c) { batch.alwaysRuns.add(1, ordering: .relaxed) }
                .then(on: DispatchQueue.global()) { $0 &* 7 }
            actions.append(.fulfill(resolver, n))
        case .rejectedToTheEnd:
            tail = root.then(on: c) { (value: Int) -> Int in
                batch.unexpected(n, "then ran on a rejected promise")
                return value
            }
            .recover(on: c) { (error: any Error) throws -> Int in throw error }
            .catch(on: c, policy: .allErrors) { _ in }
            actions.append(.reject(resolver, n))
        }
        tail.then(on: inline) { (value: Int) -> Void in batch.end(index, .success(value)) }
            .catch(on: inline, policy: .allErrors) { error in batch.end(index, .failure(error)) }
    }
}
