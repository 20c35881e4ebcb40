// Random programs for ModelBasedTests, and how a failing one is shrunk: steps are removed
// (with the steps that use the promise they made), concurrent groups lose actions or become
// sequential, contexts become `.inline`, until no smaller program fails.

import PropertyBased

extension ModelProgram {
    /// A generator of programs of at most `maxSteps` steps and `maxNodes` promises, with a shrinker.
    static func generator(maxSteps: Int, maxNodes: Int) -> Generator<ModelProgram, [ModelProgram]> {
        Generator(
            run: { rng in ModelProgram.random(maxSteps: maxSteps, maxNodes: maxNodes, using: &rng) },
            shrink: { $0.shrinkCandidates() }
        )
    }

    static func random(maxSteps: Int, maxNodes: Int, using rng: inout some RandomNumberGenerator) -> ModelProgram {
        var steps: [ModelStep] = []
        var kinds: [NodeKind] = []
        let length = Int.random(in: 2...maxSteps, using: &rng)
        func roll(_ rng: inout some RandomNumberGenerator) -> Int { Int.random(in: 0..<100, using: &rng) }
        func pick(_ count: Int, _ rng: inout some RandomNumberGenerator) -> Int { Int.random(in: 0..<count, using: &rng) }
        func context(_ rng: inout some RandomNumberGenerator) -> ModelContext {
            ModelContext.allCases.randomElement(using: &rng)!
        }
        /// Promises that may still be pending: not made resolved, and not acted on yet.
        var untouched: [Int] = []
        func action(on node: Int, _ rng: inout some RandomNumberGenerator) -> ModelAction {
            untouched.removeAll { $0 == node }
            switch roll(&rng) {
            case ..<40: return .fulfil(node, pick(10, &rng))
            case ..<65: return .reject(node, 1 + pick(3, &rng))
            default: return .cancel(node)
            }
        }
        /// Mostly a promise nothing has settled yet, preferring those only an action can settle.
        func target(_ rng: inout some RandomNumberGenerator) -> Int {
            let sources = untouched.filter { steps.filter(\.createsNode)[$0] == .pending }
            switch roll(&rng) {
            case ..<65 where !sources.isEmpty: return sources[pick(sources.count, &rng)]
            case ..<85 where !untouched.isEmpty: return untouched[pick(untouched.count, &rng)]
            default: return pick(kinds.count, &rng)
            }
        }
        while steps.count < length {
            let dice = roll(&rng)
            let canCreate = kinds.count < maxNodes
            let step: ModelStep
            if kinds.isEmpty || (canCreate && dice < 18) {
                switch roll(&rng) {
                case ..<60: step = .pending
                case ..<72: step = .resolved(pick(10, &rng))
                case ..<82: step = .rejected(1 + pick(3, &rng))
                default: step = .make(context(&rng), roll(&rng) < 70 ? .value(pick(10, &rng)) : .fail(1 + pick(3, &rng)))
                }
            } else if canCreate && dice < 50 {
                // Mostly onto one of the latest promises, so chains grow long.
                let source = roll(&rng) < 50 ? kinds.count - 1 - pick(min(3, kinds.count), &rng) : pick(kinds.count, &rng)
                let sameKind = kinds.indices.filter { kinds[$0] == kinds[source] }
                let ints = kinds.indices.filter { kinds[$0] == .int }
                switch roll(&rng) {
                case ..<45:
                    let op: ThenOp =
                        switch roll(&rng) {
                        case ..<50: .add(pick(10, &rng))
                        case ..<65: .fail(1 + pick(3, &rng))
                        case ..<85: ints.isEmpty ? .add(1) : .adopt(ints[pick(ints.count, &rng)])
                        default: .act(action(on: target(&rng), &rng), pick(10, &rng))
                        }
                    step = .then(source, context(&rng), op)
                case ..<65:
                    step = .catchError(source, context(&rng), roll(&rng) < 70 ? .exceptCancellation : .allErrors)
                case ..<85:
                    let op: RecoverOp =
                        switch roll(&rng) {
                        case ..<50: .value(pick(10, &rng))
                        case ..<75: .fail(1 + pick(3, &rng))
                        default: .adopt(sameKind[pick(sameKind.count, &rng)])
                        }
                    step = .recover(source, context(&rng), roll(&rng) < 70 ? .exceptCancellation : .allErrors, op)
                default:
                    let kind: TimerKind =
                        switch roll(&rng) {
                        case ..<30: .long
                        case ..<50: .short
                        case ..<70: .instant
                        default: .manual
                        }
                    step = .timeout(source, kind)
                }
            } else if canCreate && dice < 60 {
                let ints = kinds.indices.filter { kinds[$0] == .int }
                let count = roll(&rng) < 10 ? 0 : 1 + pick(3, &rng)
                let inputs = (0..<count).map { _ in ints[pick(ints.count, &rng)] }
                let combinator: Combinator = [.all, .race, .any][pick(3, &rng)]
                step = .combine(combinator, inputs)
            } else if dice < 87 {
                step = .act(action(on: target(&rng), &rng))
            } else if dice < 96 {
                // Races are about few promises: the threads act on one or two of them.
                let focus = (0..<(1 + pick(2, &rng))).map { _ in target(&rng) }
                let threads = (0..<(2 + pick(2, &rng))).map { _ in
                    (0..<(1 + pick(2, &rng))).map { _ in action(on: focus[pick(focus.count, &rng)], &rng) }
                }
                step = .concurrently(threads)
            } else {
                step = .advanceManual
            }
            if step.createsNode {
                switch step {
                case .resolved, .rejected: break
                case .combine(_, let inputs) where inputs.isEmpty: break
                default: untouched.append(kinds.count)
                }
                kinds.append(step.kind(given: kinds))
            }
            steps.append(step)
            // Sometimes the next step does not wait for this one's callbacks and timers.
            let racing =
                switch step {
                case .make, .then, .catchError, .recover, .timeout, .combine, .concurrently: 40
                default: 20
                }
            if steps.count + 1 < length, roll(&rng) < racing {
                steps.append(.atOnce)
            }
        }
        return ModelProgram(steps: steps)
    }

    /// Smaller programs to try when this one fails, most promising first. Each is strictly
    /// simpler (fewer concurrent groups, then fewer steps, fewer actions, fewer callbacks that
    /// act or adopt, fewer non-inline contexts), so shrinking always ends.
    func shrinkCandidates() -> [ModelProgram] {
        var candidates: [ModelProgram] = []
        for index in steps.indices.reversed() {
            candidates.append(removing(stepAt: index))
        }
        for (index, step) in steps.enumerated() {
            guard case .concurrently(let threads) = step else { continue }
            // Sequential, in thread order.
            var sequential = steps
            sequential.replaceSubrange(index...index, with: threads.flatMap { $0 }.map { ModelStep.act($0) })
            candidates.append(ModelProgram(steps: sequential))
            // One action fewer.
            for (thread, actions) in threads.enumerated() {
                for position in actions.indices where threads.flatMap({ $0 }).count > 1 {
                    var smaller = threads
                    smaller[thread].remove(at: position)
                    smaller.removeAll { $0.isEmpty }
                    var shrunk = steps
                    shrunk[index] = .concurrently(smaller)
                    candidates.append(ModelProgram(steps: shrunk))
                }
            }
        }
        for (index, step) in steps.enumerated() {
            // Callbacks that only compute a value.
            let plainer: ModelStep? =
                switch step {
                case .then(let source, let context, .act(_, let k)): .then(source, context, .add(k))
                case .then(let source, let context, .adopt): .then(source, context, .add(0))
                case .recover(let source, let context, let policy, .adopt): .recover(source, context, policy, .value(0))
                default: nil
                }
            if let plainer {
                var shrunk = steps
                shrunk[index] = plainer
                candidates.append(ModelProgram(steps: shrunk))
            }
        }
        for (index, step) in steps.enumerated() {
            let simpler: ModelStep? =
                switch step {
                case .make(let context, let op) where context != .inline: .make(.inline, op)
                case .then(let source, let context, let op) where context != .inline: .then(source, .inline, op)
                case .catchError(let source, let context, let policy) where context != .inline:
                    .catchError(source, .inline, policy)
                case .recover(let source, let context, let policy, let op) where context != .inline:
                    .recover(source, .inline, policy, op)
                default: nil
                }
            if let simpler {
                var shrunk = steps
                shrunk[index] = simpler
                candidates.append(ModelProgram(steps: shrunk))
            }
        }
        return candidates
    }

    /// This program without step `index`, and without every later step that refers to a
    /// promise that is gone (actions inside a concurrent group are dropped one by one).
    func removing(stepAt index: Int) -> ModelProgram {
        var mapping: [Int?] = []
        var kept: [ModelStep] = []
        for (position, step) in steps.enumerated() {
            let map: (Int) -> Int? = { mapping[$0] }
            var renumbered: ModelStep? = position == index ? nil : step.renumbered(map)
            if position != index, case .concurrently(let threads) = step {
                let threads = threads.map { $0.compactMap { $0.renumbered(map) } }.filter { !$0.isEmpty }
                renumbered = threads.isEmpty ? nil : .concurrently(threads)
            }
            if step.createsNode {
                mapping.append(renumbered == nil ? nil : mapping.compactMap { $0 }.count)
            }
            if let renumbered { kept.append(renumbered) }
        }
        return ModelProgram(steps: kept)
    }
}
