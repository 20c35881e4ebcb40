// The programs that ModelBasedTests generates, runs against PromiseCore and checks against
// the reference model: a list of steps that create promises, chain onto them and resolve or
// cancel them, printed the way one would write them with the library.

import Testing

/// Where a chained callback runs.
enum ModelContext: Hashable, Sendable, CaseIterable {
    case inline, defaultContext, queueA, queueB, concurrentQueue, manual

    /// The argument as written in a call: `on: .inline`, `on: queueA`, … (`nil` is the default context).
    var argument: String {
        switch self {
        case .inline: ".inline"
        case .defaultContext: "nil"
        case .queueA: "queueA"
        case .queueB: "queueB"
        case .concurrentQueue: "concurrentQueue"
        case .manual: "manual"
        }
    }
}

/// The value type of a promise in a program.
enum NodeKind: Hashable, Sendable {
    /// `Promise<Int>`.
    case int
    /// `Promise<[Int]>`, from `all`.
    case list
    /// `Promise<[Result<Int, any Error>]>`, from `any`.
    case outcomes
}

/// Which errors a `catch` or `recover` handler sees.
enum ModelPolicy: Hashable, Sendable {
    case exceptCancellation, allErrors

    var argument: String { self == .allErrors ? ", policy: .allErrors" : "" }
}

/// What a `then` callback does with the value.
enum ThenOp: Hashable, Sendable {
    /// Returns the value (summed up for arrays) plus `k`.
    case add(Int)
    /// Throws `ModelError(tag)`.
    case fail(Int)
    /// Returns promise `p<index>` (the promise-returning overload).
    case adopt(Int)
    /// Does `action` to an earlier promise, then returns the value plus `k`: a promise
    /// resolved or cancelled from inside a callback, on the callback's thread.
    case act(ModelAction, Int)
}

/// What a `recover` callback does with the error.
enum RecoverOp: Hashable, Sendable {
    /// Returns `k` (`[k]` for arrays).
    case value(Int)
    /// Throws `ModelError(tag)`.
    case fail(Int)
    /// Returns promise `p<index>` (the promise-returning overload).
    case adopt(Int)
}

/// What the work of `Promise(on:) { … }` does.
enum MakeOp: Hashable, Sendable {
    case value(Int), fail(Int)
}

/// The clock of a `timeout`.
enum TimerKind: Hashable, Sendable {
    /// One hour on `queueA`: never fires during a test.
    case long
    /// One millisecond on `queueB`: races with whatever happens at once.
    case short
    /// No time at all on `queueB`: fires as soon as the queue runs it.
    case instant
    /// Ten milliseconds on the manual context: fires at the next `advanceManual`.
    case manual

    var call: String {
        switch self {
        case .long: "timeout(on: queueA, .seconds(3600))"
        case .short: "timeout(on: queueB, .milliseconds(1))"
        case .instant: "timeout(on: queueB, .zero)"
        case .manual: "timeout(on: manual, .milliseconds(10))"
        }
    }
}

enum Combinator: Hashable, Sendable {
    case all, race, any
}

/// Something done to a promise from outside.
enum ModelAction: Hashable, Sendable, CustomStringConvertible {
    case fulfil(Int, Int)
    case reject(Int, Int)
    case cancel(Int)

    var node: Int {
        switch self {
        case .fulfil(let node, _), .reject(let node, _), .cancel(let node): node
        }
    }

    func renumbered(_ map: (Int) -> Int?) -> ModelAction? {
        guard let node = map(node) else { return nil }
        switch self {
        case .fulfil(_, let value): return .fulfil(node, value)
        case .reject(_, let tag): return .reject(node, tag)
        case .cancel: return .cancel(node)
        }
    }

    var description: String {
        switch self {
        case .fulfil(let node, let value): "p\(node).fulfill(\(value))"
        case .reject(let node, let tag): "p\(node).reject(ModelError(\(tag)))"
        case .cancel(let node): "p\(node).cancel()"
        }
    }
}

/// One step of a program. Steps that create a promise name it `p<n>`, counting from 0.
enum ModelStep: Hashable, Sendable {
    case pending
    case resolved(Int)
    case rejected(Int)
    case make(ModelContext, MakeOp)
    case then(Int, ModelContext, ThenOp)
    case catchError(Int, ModelContext, ModelPolicy)
    case recover(Int, ModelContext, ModelPolicy, RecoverOp)
    case timeout(Int, TimerKind)
    case combine(Combinator, [Int])
    /// One action on the driving thread.
    case act(ModelAction)
    /// Actions started together on several threads (each thread runs its list in order).
    case concurrently([[ModelAction]])
    /// `manual.advance(by: .milliseconds(10))` on the driving thread.
    case advanceManual
    /// Not a step: the step after it starts at once, without waiting for what the step before
    /// it set off to settle. So the two race.
    case atOnce

    var createsNode: Bool {
        switch self {
        case .act, .concurrently, .advanceManual, .atOnce: false
        default: true
        }
    }

    /// This step with every reference renumbered, or `nil` if a reference maps to nothing.
    func renumbered(_ map: (Int) -> Int?) -> ModelStep? {
        switch self {
        case .pending, .resolved, .rejected, .make, .advanceManual, .atOnce:
            return self
        case .then(let source, let context, let op):
            guard let source = map(source) else { return nil }
            switch op {
            case .adopt(let inner):
                return map(inner).map { .then(source, context, .adopt($0)) }
            case .act(let action, let k):
                return action.renumbered(map).map { .then(source, context, .act($0, k)) }
            default:
                return .then(source, context, op)
            }
        case .catchError(let source, let context, let policy):
            return map(source).map { .catchError($0, context, policy) }
        case .recover(let source, let context, let policy, let op):
            guard let source = map(source) else { return nil }
            if case .adopt(let inner) = op {
                guard let inner = map(inner) else { return nil }
                return .recover(source, context, policy, .adopt(inner))
            }
            return .recover(source, context, policy, op)
        case .timeout(let source, let kind):
            return map(source).map { .timeout($0, kind) }
        case .combine(let combinator, let inputs):
            let mapped = inputs.compactMap(map)
            return mapped.count == inputs.count ? .combine(combinator, mapped) : nil
        case .act(let action):
            return action.renumbered(map).map { .act($0) }
        case .concurrently(let threads):
            let mapped = threads.map { $0.compactMap { $0.renumbered(map) } }
            return mapped.map(\.count) == threads.map(\.count) ? .concurrently(mapped) : nil
        }
    }

    /// The kind of promise this step creates, given the kinds of the promises before it.
    func kind(given kinds: [NodeKind]) -> NodeKind {
        switch self {
        case .catchError(let source, _, _), .recover(let source, _, _, _), .timeout(let source, _):
            kinds[source]
        case .combine(.all, _): .list
        case .combine(.any, _): .outcomes
        default: .int
        }
    }

    /// The step as Swift code; `name` is the promise it creates.
    func code(name: String) -> String {
        switch self {
        case .pending:
            return "let \(name) = Promise<Int>.pending(resolvedOn: nil)"
        case .resolved(let value):
            return "let \(name) = Promise(\(value))"
        case .rejected(let tag):
            return "let \(name) = Promise<Int>(ModelError(\(tag)))"
        case .make(let context, let op):
            let body =
                switch op {
                case .value(let value): "\(value)"
                case .fail(let tag): "throw ModelError(\(tag))"
                }
            return "let \(name) = Promise<Int>(on: \(context.argument)) { \(body) }"
        case .then(let source, let context, let op):
            let body =
                switch op {
                case .add(let k): "$0 + \(k)"
                case .fail(let tag): "_ in throw ModelError(\(tag))"
                case .adopt(let inner): "_ in p\(inner)"
                case .act(let action, let k): "\(action); return $0 + \(k)"
                }
            return "let \(name) = p\(source).then(on: \(context.argument)) { \(body) }"
        case .catchError(let source, let context, let policy):
            return "let \(name) = p\(source).catch(on: \(context.argument)\(policy.argument)) { record($0) }"
        case .recover(let source, let context, let policy, let op):
            let body =
                switch op {
                case .value(let value): "_ in \(value)"
                case .fail(let tag): "_ in throw ModelError(\(tag))"
                case .adopt(let inner): "_ in p\(inner)"
                }
            return "let \(name) = p\(source).recover(on: \(context.argument)\(policy.argument)) { \(body) }"
        case .timeout(let source, let kind):
            return "let \(name) = p\(source).\(kind.call)"
        case .combine(let combinator, let inputs):
            return "let \(name) = \(combinator)([\(inputs.map { "p\($0)" }.joined(separator: ", "))])"
        case .act(let action):
            return "\(action)"
        case .concurrently(let threads):
            let parts = threads.enumerated().map { index, actions in
                "thread \(index): " + actions.map(\.description).joined(separator: "; ")
            }
            return "concurrently { " + parts.joined(separator: " | ") + " }"
        case .advanceManual:
            return "manual.advance(by: .milliseconds(10))"
        case .atOnce:
            return "// and at once, while that may still be running:"
        }
    }
}

/// A generated program. After its last step the runner cancels every promise, in order, so
/// that everything settles and every promise's final state is checked.
struct ModelProgram: Hashable, Sendable, CustomStringConvertible {
    var steps: [ModelStep]

    /// The kind of each promise, in creation order.
    var kinds: [NodeKind] {
        var kinds: [NodeKind] = []
        for step in steps where step.createsNode {
            kinds.append(step.kind(given: kinds))
        }
        return kinds
    }

    var nodeCount: Int { steps.filter(\.createsNode).count }

    var description: String {
        var lines: [String] = []
        var next = 0
        for step in steps {
            if step.createsNode {
                lines.append(step.code(name: "p\(next)"))
                next += 1
            } else {
                lines.append(step.code(name: ""))
            }
        }
        if next > 0 {
            lines.append("// finally p0.cancel() … p\(next - 1).cancel(), each a step of its own")
        }
        return "\n    " + lines.joined(separator: "\n    ")
    }
}

extension ModelProgram: CustomTestStringConvertible {
    var testDescription: String { description }
}
