// Runs one program against PromiseCore, step by step, and checks after every step that the
// run ends in a state the reference model allows: same outcomes, same callback calls, every
// promise settled at most once (exactly once when settled), nothing pending that must settle.

import Dispatch
import PromiseCore
import Synchronization

/// How long a run may take to reach an allowed state after a step.
struct ModelTimeLimits: Sendable {
    /// Fail when nothing has changed for this long and the state is not an allowed one.
    var stall: Duration
    /// Fail when the step has not reached an allowed state after this long.
    var step: Duration
}

/// What the runs covered, for `PROMISE_MODEL_VERBOSE=1`.
struct ModelStatistics: Sendable {
    var programs = 0
    var steps = 0
    var promises = 0
    var concurrentSteps = 0
    /// Steps after which the model allowed more than one end state.
    var openSteps = 0
    /// Model end states (observations and hidden bookkeeping) over all steps, and after one step.
    var modelStates = 0
    var maxModelStates = 0
    var outcomes: [String: Int] = [:]
    var callbackCalls = 0

    static let shared = Lock(ModelStatistics())

    var summary: String {
        let kinds = outcomes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        return "\(programs) programs, \(steps) steps (\(concurrentSteps) concurrent), \(promises) promises; "
            + "\(openSteps) steps where the model allowed several end states; "
            + "\(modelStates) model end states in all, at most \(maxModelStates) after one step; "
            + "\(callbackCalls) callback calls; final outcomes: \(kinds)"
    }
}

/// Starts a concurrent step's threads together.
private final class StartGate: Sendable {
    let ready = DispatchSemaphore(value: 0)
    let go = Atomic<Bool>(false)
}

/// The threads a concurrent step runs its actions on (not contexts of any promise).
private let actionQueues = (0..<3).map { DispatchQueue(label: "model.thread.\($0)") }

final class ModelRun {
    let program: ModelProgram
    let limits: ModelTimeLimits
    private let contexts = ModelContexts()
    private let log: ModelCallLog
    private var nodes: [any AnyModelNode] = []
    /// What the run showed after each step it waited for, by step number (the final
    /// cancellations come after the program's steps).
    private(set) var observations: [Int: ModelObservation] = [:]
    /// What the model allowed after each step the run waited for, by step number.
    private(set) var allowed: [Int: Set<ModelObservation>] = [:]
    /// Whether the run stopped because the model could not explore every order of a step's
    /// events: the program is too big to judge, which says nothing about the library.
    private(set) var exceedsModel = false

    init(_ program: ModelProgram, limits: ModelTimeLimits) {
        self.program = program
        self.limits = limits
        log = ModelCallLog(nodes: program.nodeCount, program: program.description)
    }

    /// Runs the program and returns what went wrong, or `nil` if every step matched the model.
    func run() -> String? {
        defer { cleanUp() }
        var states: Set<ModelState> = [ModelState()]
        var steps = program.steps
        // Finally cancel every promise, one step each, so that everything settles and is checked.
        steps += (0..<program.nodeCount).map { .act(.cancel($0)) }
        for (number, step) in steps.enumerated() where step != .atOnce {
            perform(step)
            guard let (ends, all) = explore(from: Set(states.map { $0.beginning(step) })) else {
                exceedsModel = true
                return "the model has too many states to explore after step \(number + 1); make the programs smaller\n"
                    + "program:\(program)"
            }
            if number + 1 < steps.count, steps[number + 1] == .atOnce {
                // The next step starts at once: from any state this one can pass through.
                states = all
                continue
            }
            switch awaitAllowedState(ends, step: number) {
            case .success(let observation):
                states = ends.filter { $0.observation == observation }
                observations[number] = observation
                allowed[number] = Set(ends.map(\.observation))
                count(step, ends, observation, isLast: number == steps.count - 1)
            case .failure(let failure):
                return failure.message
            }
        }
        let late = ModelCallLog.takeLate()
        if !late.isEmpty {
            return "callbacks ran or promises settled after their run was checked:\n" + late.joined(separator: "\n")
        }
        return nil
    }

    /// Adds a step the run waited for to ``ModelStatistics``.
    private func count(_ step: ModelStep, _ ends: Set<ModelState>, _ observation: ModelObservation, isLast: Bool) {
        let endings = Set(ends.map(\.observation)).count
        ModelStatistics.shared.withLock { statistics in
            statistics.steps += 1
            if case .concurrently = step { statistics.concurrentSteps += 1 }
            if endings > 1 { statistics.openSteps += 1 }
            statistics.modelStates += ends.count
            statistics.maxModelStates = max(statistics.maxModelStates, ends.count)
            guard isLast else { return }
            statistics.programs += 1
            statistics.promises += observation.outcomes.count
            statistics.callbackCalls += observation.calls.map(\.count).reduce(0, +)
            for outcome in observation.outcomes {
                let name =
                    switch outcome {
                    case .value?: "fulfilled"
                    case .error(.cancelled)?: "cancelled"
                    case .error(.timedOut)?: "timed out"
                    case .error?: "rejected"
                    case nil: "pending"
                    }
                statistics.outcomes[name, default: 0] += 1
            }
        }
    }

    // MARK: Running steps

    private func perform(_ step: ModelStep) {
        let index = nodes.count
        switch step {
        case .pending:
            add(ModelNodeBox(promise: Promise<Int>.pending(resolvedOn: nil)))
        case .resolved(let value):
            add(ModelNodeBox(promise: Promise(value)))
        case .rejected(let tag):
            add(ModelNodeBox(promise: Promise<Int>(ModelError(tag: tag))))
        case .make(let context, let op):
            let log = self.log
            add(
                ModelNodeBox(
                    promise: Promise<Int>(on: contexts.context(context)) { () throws -> Int in
                        log.record(index, .work)
                        switch op {
                        case .value(let value): return value
                        case .fail(let tag): throw ModelError(tag: tag)
                        }
                    }))
        case .then(let source, let context, let op):
            add(nodes[source].then(op, on: contexts.context(context), index: index, nodes: nodes, log: log))
        case .catchError(let source, let context, let policy):
            add(nodes[source].catchError(on: contexts.context(context), policy: policy.library, index: index, log: log))
        case .recover(let source, let context, let policy, let op):
            let context = contexts.context(context)
            add(nodes[source].recover(op, on: context, policy: policy.library, index: index, nodes: nodes, log: log))
        case .timeout(let source, let kind):
            add(nodes[source].timeout(kind, contexts: contexts))
        case .combine(let combinator, let inputs):
            let promises = inputs.map { nodes[$0].intPromise! }
            switch combinator {
            case .all: add(ModelNodeBox(promise: all(promises)))
            case .race: add(ModelNodeBox(promise: race(promises)))
            case .any: add(ModelNodeBox(promise: PromiseCore.any(promises)))
            }
        case .act(let action):
            perform(action, on: nodes)
        case .concurrently(let threads) where threads.count == 1:
            for action in threads[0] { perform(action, on: nodes) }
        case .concurrently(let threads):
            let gate = StartGate()
            let group = DispatchGroup()
            let nodes = self.nodes
            for (thread, actions) in threads.enumerated() {
                actionQueues[thread].async(group: group) {
                    gate.ready.signal()
                    while !gate.go.load(ordering: .acquiring) {}
                    for action in actions { ModelRun.perform(action, on: nodes) }
                }
            }
            for _ in threads { gate.ready.wait() }
            gate.go.store(true, ordering: .releasing)
            group.wait()
        case .advanceManual:
            contexts.manual.advance(by: .milliseconds(10))
        case .atOnce:
            break
        }
    }

    private func add(_ node: any AnyModelNode) {
        node.watch(nodes.count, log)
        nodes.append(node)
    }

    private func perform(_ action: ModelAction, on nodes: [any AnyModelNode]) {
        Self.perform(action, on: nodes)
    }

    private static func perform(_ action: ModelAction, on nodes: [any AnyModelNode]) {
        nodes[action.node].perform(action)
    }

    /// Cancels whatever a failed run left pending (so no timer or callback outlives it
    /// unnoticed) and marks later calls as late.
    private func cleanUp() {
        for node in nodes { node.cancel() }
        contexts.flush()
        log.close()
    }

    // MARK: Checking

    private struct Snapshot: Equatable {
        var observation: ModelObservation
        var settlements: [Int]
    }

    private struct Failure: Error {
        let message: String
    }

    private func snapshot() -> Snapshot {
        // The log first: a settlement it counts was delivered after its result was stored, so
        // outcomes read afterwards include it. Read the other way round, a promise settling in
        // between (a timer firing) reads as pending with a settlement counted.
        let (calls, settlements) = log.snapshot
        let outcomes = nodes.map(\.outcome)
        return Snapshot(
            observation: ModelObservation(outcomes: outcomes, calls: Array(calls.prefix(nodes.count))),
            settlements: Array(settlements.prefix(nodes.count))
        )
    }

    /// Waits until the run shows one of `ends`' observations and stays there while every
    /// context is flushed; fails at once when it shows something none of them can grow into.
    private func awaitAllowedState(_ ends: Set<ModelState>, step: Int) -> Result<ModelObservation, Failure> {
        let allowed = Set(ends.map(\.observation))
        let clock = ContinuousClock()
        let start = clock.now
        var last: Snapshot?
        var lastChange = start
        while true {
            contexts.flush()
            let now = snapshot()
            for (index, count) in now.settlements.enumerated() {
                if count > 1 {
                    return .failure(failure("p\(index) settled \(count) times", step, now.observation, allowed))
                }
                if count == 1, now.observation.outcomes[index] == nil {
                    let reason = "p\(index) delivered a settlement but reads as pending"
                    return .failure(failure(reason, step, now.observation, allowed))
                }
            }
            let settledOnce = now.settlements.indices.allSatisfy {
                now.settlements[$0] == (now.observation.outcomes[$0] == nil ? 0 : 1)
            }
            if settledOnce, allowed.contains(now.observation) {
                contexts.flush()
                if snapshot() == now { return .success(now.observation) }
            }
            if !allowed.contains(where: now.observation.canStillReach) {
                return .failure(failure("the run reached a state the model does not allow", step, now.observation, allowed))
            }
            if now != last {
                last = now
                lastChange = clock.now
            } else if clock.now - lastChange > limits.stall || clock.now - start > limits.step {
                let stuck = now.observation.outcomes.indices.filter { index in
                    now.observation.outcomes[index] == nil && !allowed.contains { $0.outcomes[index] == nil }
                }
                let reason =
                    stuck.isEmpty
                    ? "the run came to rest short of every state the model allows"
                    : (stuck.map { "p\($0)" }.joined(separator: ", ") + " stay pending but must settle")
                return .failure(failure(reason, step, now.observation, allowed))
            }
            _ = DispatchSemaphore(value: 0).wait(timeout: .now() + .milliseconds(1))
        }
    }

    private func failure(
        _ reason: String, _ step: Int, _ observed: ModelObservation, _ allowed: Set<ModelObservation>
    ) -> Failure {
        let stepCode =
            step < program.steps.count
            ? program.steps[step].code(name: "p\(program.steps[..<step].filter(\.createsNode).count)")
            : "the final p\(step - program.steps.count).cancel()"
        var lines = ["\(reason), after step \(step + 1) (\(stepCode)).", "program:\(program)", "observed:"]
        let candidates = Array(allowed.filter(observed.canStillReach).prefix(3))
        let shown = candidates.isEmpty ? Array(allowed.prefix(3)) : candidates
        for index in observed.outcomes.indices {
            let outcome = observed.outcomes[index].map(\.description) ?? "pending"
            let calls =
                observed.calls[index].isEmpty
                ? "" : ", callback " + observed.calls[index].map(\.description).joined(separator: ", ")
            let expected = Set(allowed.map { $0.outcomes[index] })
            let mustSettle = observed.outcomes[index] == nil && !expected.contains(nil)
            lines.append("    p\(index): \(outcome)\(calls)\(mustSettle ? "   <- still pending, the model says it settles" : "")")
        }
        let which = candidates.isEmpty ? "" : " (showing ones this run could still reach)"
        lines.append("the model allows \(allowed.count) end state(s)\(which), for example:")
        for (number, end) in shown.enumerated() {
            lines.append("  #\(number + 1)")
            for index in end.outcomes.indices {
                let outcome = end.outcomes[index].map(\.description) ?? "pending"
                let calls =
                    end.calls[index].isEmpty
                    ? (observed.calls[index].isEmpty ? "" : ", callback never ran")
                    : ", callback " + end.calls[index].map(\.description).joined(separator: ", ")
                let differs = end.outcomes[index] != observed.outcomes[index] || end.calls[index] != observed.calls[index]
                lines.append("    p\(index): \(outcome)\(calls)\(differs ? "   <- differs" : "")")
            }
        }
        return Failure(message: lines.joined(separator: "\n"))
    }
}

extension ModelPolicy {
    var library: CatchPolicy { self == .allErrors ? .allErrors : .allErrorsExceptCancellation }
}
