// The reference model's transitions: what each program step does at once, what each event
// does, and the search for every state a step can end in. See ReferenceModel.swift.

extension ModelState {
    // MARK: Steps

    /// The state right after `step` returned on the driving thread, before any event ran.
    func beginning(_ step: ModelStep) -> ModelState {
        var state = self
        state.begin(step)
        return state
    }

    private mutating func begin(_ step: ModelStep) {
        switch step {
        case .pending:
            addNode(ModelNode(kind: .int))
        case .resolved(let value):
            addNode(ModelNode(kind: .int, outcome: .value(.int(value))))
        case .rejected(let tag):
            addNode(ModelNode(kind: .int, outcome: .error(.model(tag))))
        case .make(_, let op):
            var node = ModelNode(kind: .int)
            node.work = op
            addNode(node)
        case .then(let source, _, let op):
            let child = addNode(ModelNode(kind: .int))
            subscribe(child, to: source, .then(child, op))
        case .catchError(let source, _, let policy):
            let child = addNode(ModelNode(kind: nodes[source].kind))
            subscribe(child, to: source, .catchError(child, policy))
        case .recover(let source, _, let policy, let op):
            let child = addNode(ModelNode(kind: nodes[source].kind))
            subscribe(child, to: source, .recover(child, policy, op))
        case .timeout(let source, let kind):
            var node = ModelNode(kind: nodes[source].kind)
            node.timer =
                switch kind {
                case .long: .none
                case .short, .instant: .running
                case .manual: .manualWaiting
                }
            // The timer is scheduled before the subscription, so it may fire first.
            node.timeoutSource = source
            addNode(node)
        case .combine(let combinator, let inputs):
            let kind: NodeKind = combinator == .all ? .list : combinator == .any ? .outcomes : .int
            if inputs.isEmpty {
                addNode(ModelNode(kind: kind, outcome: combinator == .race ? .error(.invalidArgument) : .value(.list([]))))
                return
            }
            var node = ModelNode(kind: kind)
            node.combination = ModelCombination(
                combinator: combinator,
                tracked: inputs.filter { nodes[$0].outcome == nil },
                remaining: inputs.count,
                slots: inputs.map { _ in nil }
            )
            let result = addNode(node)
            for (slot, input) in inputs.enumerated() {
                nodes[input].consumers += 1
                subscriptions[input].append(ModelSubscriptionEntry(subscription: .combine(result, slot: slot)))
            }
        case .act(let action):
            threads = [[action]]
        case .concurrently(let actions):
            threads = actions
        case .advanceManual:
            for index in nodes.indices where nodes[index].timer == .manualWaiting {
                nodes[index].timer = .manualDue
            }
        case .atOnce:
            break
        }
    }

    @discardableResult
    private mutating func addNode(_ node: ModelNode) -> Int {
        nodes.append(node)
        subscriptions.append([])
        return nodes.count - 1
    }

    /// A chaining method's subscription: one more consumer, and the upstream link if the
    /// source is pending.
    private mutating func subscribe(_ child: Int, to source: Int, _ subscription: ModelSubscription) {
        nodes[source].consumers += 1
        subscriptions[source].append(ModelSubscriptionEntry(subscription: subscription))
        if nodes[source].outcome == nil, nodes[child].outcome == nil {
            nodes[child].upstream = source
        }
    }

    // MARK: Events

    /// The events that may happen next. When one of them can change nothing but its own
    /// bookkeeping (it meets an already settled promise), only that one: it commutes with
    /// everything, so taking it first loses no end state and saves exploring its orders.
    var enabledEvents: [ModelEvent] {
        let events = allEnabledEvents
        if let idle = events.first(where: isIdle) { return [idle] }
        return events
    }

    /// Whether `event` changes nothing that any other event reads.
    private func isIdle(_ event: ModelEvent) -> Bool {
        switch event {
        case .deliver(let source, let position):
            switch subscriptions[source][position].subscription {
            case .then(let child, _), .recover(let child, _, _), .forward(let child), .catchError(let child, _):
                // A catch body's call is recorded on its own promise, whatever its state.
                return nodes[child].outcome != nil
            case .combine(let result, _):
                return nodes[result].combination!.decided
            }
        case .finish(let node):
            if case .settle = nodes[node].resolution { return nodes[node].outcome != nil }
            return false
        case .start(let node), .withdraw(let node):
            return nodes[node].outcome != nil
        case .withdrawAll(let node):
            return nodes[node].combination!.withdrawn
        case .subscribeTimeout, .fire, .act:
            return false
        }
    }

    private var allEnabledEvents: [ModelEvent] {
        var events: [ModelEvent] = []
        for (index, node) in nodes.enumerated() {
            if node.outcome != nil {
                for (position, entry) in subscriptions[index].enumerated() where !entry.delivered {
                    events.append(.deliver(source: index, subscription: position))
                }
            }
            if node.resolution != nil { events.append(.finish(index)) }
            if node.work != nil { events.append(.start(index)) }
            if node.timeoutSource != nil { events.append(.subscribeTimeout(index)) }
            if node.outcome == nil, node.timer == .running || node.timer == .manualDue { events.append(.fire(index)) }
        }
        for (position, node) in withdrawals.enumerated() where position == 0 || withdrawals[position - 1] != node {
            events.append(.withdraw(node))
        }
        for (position, node) in withdrawAlls.enumerated() where position == 0 || withdrawAlls[position - 1] != node {
            events.append(.withdrawAll(node))
        }
        for (thread, actions) in threads.enumerated() where !actions.isEmpty {
            events.append(.act(thread: thread))
        }
        return events
    }

    func applying(_ event: ModelEvent) -> ModelState {
        var state = self
        state.apply(event)
        return state
    }

    private mutating func apply(_ event: ModelEvent) {
        switch event {
        case .deliver(let source, let position):
            subscriptions[source][position].delivered = true
            deliver(nodes[source].outcome!, to: subscriptions[source][position].subscription)
        case .finish(let node):
            let resolution = nodes[node].resolution!
            nodes[node].resolution = nil
            switch resolution {
            case .settle(let outcome):
                settleFromUpstream(node, outcome)
            case .adopt(let inner):
                nodes[inner].consumers += 1
                if let outcome = nodes[inner].outcome {
                    settleFromUpstream(node, outcome)
                } else {
                    subscriptions[inner].append(ModelSubscriptionEntry(subscription: .forward(node)))
                    if nodes[node].outcome == nil {
                        nodes[node].upstream = inner
                    } else {
                        insert(inner, into: &withdrawals)
                    }
                }
            }
        case .start(let node):
            let work = nodes[node].work!
            nodes[node].work = nil
            if nodes[node].outcome == nil {
                nodes[node].calls.append(.work)
                nodes[node].resolution =
                    switch work {
                    case .value(let value): .settle(.value(.int(value)))
                    case .fail(let tag): .settle(.error(.model(tag)))
                    }
            }
        case .subscribeTimeout(let node):
            let source = nodes[node].timeoutSource!
            nodes[node].timeoutSource = nil
            subscribe(node, to: source, .forward(node))
        case .fire(let node):
            nodes[node].timer = .none
            settle(node, .error(.timedOut), withdrawingUpstream: true)
        case .withdraw(let node):
            withdrawals.remove(at: withdrawals.firstIndex(of: node)!)
            guard nodes[node].outcome == nil else { return }
            nodes[node].withdrawn += 1
            if nodes[node].withdrawn >= nodes[node].consumers {
                settle(node, .error(.cancelled), withdrawingUpstream: true)
            }
        case .withdrawAll(let node):
            withdrawAlls.remove(at: withdrawAlls.firstIndex(of: node)!)
            guard nodes[node].combination!.withdrawn == false else { return }
            nodes[node].combination!.withdrawn = true
            for input in nodes[node].combination!.tracked {
                insert(input, into: &withdrawals)
            }
        case .act(let thread):
            let action = threads[thread].removeFirst()
            if threads.allSatisfy(\.isEmpty) { threads = [] }
            perform(action)
        }
    }

    /// fulfil / reject / cancel from outside: ignored unless pending; withdraws from the upstream.
    private mutating func perform(_ action: ModelAction) {
        let outcome: ModelOutcome =
            switch action {
            case .fulfil(let node, let value): .value(.make(nodes[node].kind, value))
            case .reject(_, let tag): .error(.model(tag))
            case .cancel: .error(.cancelled)
            }
        if nodes[action.node].outcome == nil {
            settle(action.node, outcome, withdrawingUpstream: true)
        }
    }

    private mutating func deliver(_ outcome: ModelOutcome, to subscription: ModelSubscription) {
        switch subscription {
        case .then(let child, let op):
            guard case .value(let value) = outcome else {
                settleFromUpstream(child, outcome)
                return
            }
            guard nodes[child].outcome == nil else { return }
            nodes[child].calls.append(.value(value))
            nodes[child].resolution =
                switch op {
                case .add(let k): .settle(.value(.int(value.scalar + k)))
                case .fail(let tag): .settle(.error(.model(tag)))
                case .adopt(let inner): .adopt(inner)
                case .act(_, let k): .settle(.value(.int(value.scalar + k)))
                }
            if case .act(let action, _) = op {
                perform(action)
            }
        case .catchError(let child, let policy):
            if case .error(let error) = outcome, policy.handles(error) {
                nodes[child].calls.append(.error(error))
            }
            settleFromUpstream(child, outcome)
        case .recover(let child, let policy, let op):
            guard case .error(let error) = outcome, policy.handles(error) else {
                settleFromUpstream(child, outcome)
                return
            }
            guard nodes[child].outcome == nil else { return }
            nodes[child].calls.append(.error(error))
            nodes[child].resolution =
                switch op {
                case .value(let k): .settle(.value(.make(nodes[child].kind, k)))
                case .fail(let tag): .settle(.error(.model(tag)))
                case .adopt(let inner): .adopt(inner)
                }
        case .forward(let child):
            settleFromUpstream(child, outcome)
        case .combine(let result, let slot):
            combine(outcome, into: result, slot: slot)
        }
    }

    private mutating func combine(_ outcome: ModelOutcome, into result: Int, slot: Int) {
        var combination = nodes[result].combination!
        defer { nodes[result].combination = combination }
        switch combination.combinator {
        case .all:
            if case .value = outcome {
                combination.slots[slot] = outcome
                combination.remaining -= 1
                guard combination.remaining == 0, !combination.decided else { return }
                combination.decided = true
                let values = combination.slots.map { slot -> ModelValue in
                    guard case .value(let value)? = slot else { fatalError("all: a slot without a value") }
                    return value
                }
                settleFromUpstream(result, .value(.list(values)))
            } else if !combination.decided {
                combination.decided = true
                settleFromUpstream(result, outcome)
                insert(result, into: &withdrawAlls)
            }
        case .race:
            guard !combination.decided else { return }
            combination.decided = true
            settleFromUpstream(result, outcome)
            insert(result, into: &withdrawAlls)
        case .any:
            combination.slots[slot] = outcome
            combination.remaining -= 1
            guard combination.remaining == 0, !combination.decided else { return }
            combination.decided = true
            let outcomes = combination.slots.map { $0! }
            if outcomes.allSatisfy({ if case .error = $0 { true } else { false } }) {
                settleFromUpstream(result, outcomes[0])
            } else {
                let values = outcomes.map { outcome -> ModelValue in
                    switch outcome {
                    case .value(let value): value
                    case .error(let error): .failure(error)
                    }
                }
                settleFromUpstream(result, .value(.list(values)))
            }
        }
    }

    /// Settles a pending promise with what its source (or its own callback) produced: no withdrawal.
    private mutating func settleFromUpstream(_ node: Int, _ outcome: ModelOutcome) {
        if nodes[node].outcome == nil {
            settle(node, outcome, withdrawingUpstream: false)
        }
    }

    private mutating func settle(_ node: Int, _ outcome: ModelOutcome, withdrawingUpstream: Bool) {
        precondition(nodes[node].outcome == nil)
        nodes[node].outcome = outcome
        if outcome == .error(.cancelled), nodes[node].combination != nil {
            // The combinator's cancel handler.
            insert(node, into: &withdrawAlls)
        }
        if withdrawingUpstream, let upstream = nodes[node].upstream {
            insert(upstream, into: &withdrawals)
        }
        nodes[node].upstream = nil
    }

    private func insert(_ node: Int, into list: inout [Int]) {
        list.insert(node, at: list.firstIndex { $0 > node } ?? list.endIndex)
    }
}

/// The states reachable from `starts` by events: `ends`, those where no event is left, and
/// `all` of them (for a step that the next one does not wait for, which may start from any).
/// `nil` if there are more than `limit` (the program is too big for the model to explore).
///
/// When an event that changes nothing anyone reads is enabled, only that one is taken (see
/// `enabledEvents`); such an event stays enabled and idle, so a state in `all` may lack a few
/// of them, which changes nothing for what comes next.
func explore(from starts: Set<ModelState>, limit: Int = 200_000) -> (ends: Set<ModelState>, all: Set<ModelState>)? {
    var seen = starts
    var stack = Array(starts)
    var ends = Set<ModelState>()
    while let state = stack.popLast() {
        let events = state.enabledEvents
        if events.isEmpty {
            ends.insert(state)
            continue
        }
        for event in events {
            let next = state.applying(event)
            if seen.insert(next).inserted {
                if seen.count > limit { return nil }
                stack.append(next)
            }
        }
    }
    return (ends, seen)
}
