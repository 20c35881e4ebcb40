// The real promises behind a program's `p<n>`: typed `Promise<V>`s behind one protocol, so a
// program can chain onto `Promise<Int>`, `Promise<[Int]>` and `Promise<[Result<Int, any Error>]>`
// alike, and read back what the model compares.

import Dispatch
import PromiseCore
import PromiseTesting

/// The error programs reject with and callbacks throw.
struct ModelError: Error, Hashable {
    let tag: Int
}

extension ModelErrorKind {
    init(_ error: any Error) {
        if let error = error as? ModelError {
            self = .model(error.tag)
        } else if error is CancellationError {
            self = .cancelled
        } else if let error = error as? PromiseError, error.code == .timedOut {
            self = .timedOut
        } else if let error = error as? PromiseError, error.code == .invalidArgument {
            self = .invalidArgument
        } else {
            self = .other("\(error)")
        }
    }
}

/// A promise value the model can read, and make from an integer (for fulfil and recover).
protocol ModelConvertible: Sendable {
    var modelValue: ModelValue { get }
    static func make(_ k: Int) -> Self
}

/// An element of an array-valued promise.
protocol ModelElement: Sendable {
    var modelValue: ModelValue { get }
    static func make(_ k: Int) -> Self
}

extension Int: ModelConvertible, ModelElement {
    var modelValue: ModelValue { .int(self) }
    static func make(_ k: Int) -> Int { k }
}

extension Result: ModelElement where Success == Int, Failure == any Error {
    var modelValue: ModelValue {
        switch self {
        case .success(let value): .int(value)
        case .failure(let error): .failure(ModelErrorKind(error))
        }
    }
    static func make(_ k: Int) -> Result<Int, any Error> { .success(k) }
}

extension Array: ModelConvertible where Element: ModelElement {
    var modelValue: ModelValue { .list(map(\.modelValue)) }
    static func make(_ k: Int) -> [Element] { [Element.make(k)] }
}

/// What a callback records: which promise's callback ran, with what. Calls that arrive after
/// the run was checked are kept as late calls, which fail a later check.
final class ModelCallLog: Sendable {
    private struct State {
        var calls: [[ModelCall]]
        var settlements: [Int]
        var closed = false
    }
    private let state: Lock<State>
    private let program: String

    /// Calls and settlements that arrived after their run was over, not reported yet.
    private static let late = Lock<[String]>([])

    /// Returns the late calls and settlements recorded so far, and forgets them.
    static func takeLate() -> [String] {
        late.withLock { late in
            defer { late = [] }
            return late
        }
    }

    init(nodes: Int, program: String) {
        state = Lock(State(calls: Array(repeating: [], count: nodes), settlements: Array(repeating: 0, count: nodes)))
        self.program = program
    }

    func record(_ node: Int, _ call: ModelCall) {
        let late: Bool = state.withLock { state in
            state.calls[node].append(call)
            return state.closed
        }
        if late { Self.late.withLock { $0.append("p\(node): \(call) after the run was over, in:\(program)") } }
    }

    func settled(_ node: Int) {
        let late: Bool = state.withLock { state in
            state.settlements[node] += 1
            return state.closed
        }
        if late { Self.late.withLock { $0.append("p\(node) settled after the run was over, in:\(program)") } }
    }

    var snapshot: (calls: [[ModelCall]], settlements: [Int]) {
        state.withLock { ($0.calls, $0.settlements) }
    }

    func close() {
        state.withLock { $0.closed = true }
    }
}

/// The contexts a program's callbacks run on.
struct ModelContexts: Sendable {
    static let queueA = DispatchQueue(label: "model.queueA")
    static let queueB = DispatchQueue(label: "model.queueB")
    static let concurrentQueue = DispatchQueue(label: "model.concurrent", attributes: .concurrent)
    let manual = ManualContext()

    func context(_ choice: ModelContext) -> (any ExecutionContext)? {
        switch choice {
        case .inline: InlineContext()
        case .defaultContext: nil
        case .queueA: Self.queueA
        case .queueB: Self.queueB
        case .concurrentQueue: Self.concurrentQueue
        case .manual: manual
        }
    }

    /// Lets everything already handed to a context run (twice over, for work that hops on).
    func flush() {
        for _ in 0..<2 {
            Self.queueA.sync {}
            Self.queueB.sync {}
            Self.concurrentQueue.sync(flags: .barrier) {}
            Promises.defaultQueue.sync {}
            manual.runUntilIdle()
        }
    }
}

extension AnyModelNode {
    /// Does `action` to this promise (its node number is the caller's business).
    func perform(_ action: ModelAction) {
        switch action {
        case .fulfil(_, let value): fulfil(value)
        case .reject(_, let tag): reject(tag)
        case .cancel: cancel()
        }
    }
}

/// One promise of a program, whatever its value type.
protocol AnyModelNode: Sendable {
    var outcome: ModelOutcome? { get }
    var intPromise: Promise<Int>? { get }
    func fulfil(_ k: Int)
    func reject(_ tag: Int)
    func cancel()
    func watch(_ index: Int, _ log: ModelCallLog)
    func then(_ op: ThenOp, on context: (any ExecutionContext)?, index: Int, nodes: [any AnyModelNode], log: ModelCallLog)
        -> any AnyModelNode
    func catchError(on context: (any ExecutionContext)?, policy: CatchPolicy, index: Int, log: ModelCallLog) -> any AnyModelNode
    func recover(
        _ op: RecoverOp, on context: (any ExecutionContext)?, policy: CatchPolicy, index: Int, nodes: [any AnyModelNode],
        log: ModelCallLog
    ) -> any AnyModelNode
    func timeout(_ kind: TimerKind, contexts: ModelContexts) -> any AnyModelNode
}

struct ModelNodeBox<Value: ModelConvertible>: AnyModelNode {
    let promise: Promise<Value>

    var outcome: ModelOutcome? {
        if promise.isPending { return nil }
        if let value = promise.value { return .value(value.modelValue) }
        return promise.error.map { .error(ModelErrorKind($0)) }
    }

    var intPromise: Promise<Int>? { promise as? Promise<Int> }

    func fulfil(_ k: Int) { promise.fulfill(Value.make(k)) }
    func reject(_ tag: Int) { promise.reject(ModelError(tag: tag)) }
    func cancel() { promise.cancel() }

    /// Counts settlements (without being a consumer, so upward cancellation is unchanged).
    func watch(_ index: Int, _ log: ModelCallLog) {
        promise.whenSettled { log.settled(index) }
    }

    func then(_ op: ThenOp, on context: (any ExecutionContext)?, index: Int, nodes: [any AnyModelNode], log: ModelCallLog)
        -> any AnyModelNode
    {
        switch op {
        case .add(let k):
            return ModelNodeBox<Int>(
                promise: promise.then(on: context) { (value: Value) throws -> Int in
                    log.record(index, .value(value.modelValue))
                    return value.modelValue.scalar + k
                })
        case .fail(let tag):
            return ModelNodeBox<Int>(
                promise: promise.then(on: context) { (value: Value) throws -> Int in
                    log.record(index, .value(value.modelValue))
                    throw ModelError(tag: tag)
                })
        case .adopt(let inner):
            let inner = nodes[inner].intPromise!
            return ModelNodeBox<Int>(
                promise: promise.then(on: context) { (value: Value) throws -> Promise<Int> in
                    log.record(index, .value(value.modelValue))
                    return inner
                })
        case .act(let action, let k):
            let target = nodes[action.node]
            return ModelNodeBox<Int>(
                promise: promise.then(on: context) { (value: Value) throws -> Int in
                    log.record(index, .value(value.modelValue))
                    target.perform(action)
                    return value.modelValue.scalar + k
                })
        }
    }

    func catchError(on context: (any ExecutionContext)?, policy: CatchPolicy, index: Int, log: ModelCallLog) -> any AnyModelNode {
        ModelNodeBox(
            promise: promise.catch(on: context, policy: policy) { error in
                log.record(index, .error(ModelErrorKind(error)))
            })
    }

    func recover(
        _ op: RecoverOp, on context: (any ExecutionContext)?, policy: CatchPolicy, index: Int, nodes: [any AnyModelNode],
        log: ModelCallLog
    ) -> any AnyModelNode {
        switch op {
        case .value(let k):
            return ModelNodeBox(
                promise: promise.recover(on: context, policy: policy) { (error: any Error) throws -> Value in
                    log.record(index, .error(ModelErrorKind(error)))
                    return Value.make(k)
                })
        case .fail(let tag):
            return ModelNodeBox(
                promise: promise.recover(on: context, policy: policy) { (error: any Error) throws -> Value in
                    log.record(index, .error(ModelErrorKind(error)))
                    throw ModelError(tag: tag)
                })
        case .adopt(let inner):
            let inner = (nodes[inner] as! ModelNodeBox<Value>).promise
            let body: @Sendable (any Error) throws -> Promise<Value> = { error in
                log.record(index, .error(ModelErrorKind(error)))
                return inner
            }
            return ModelNodeBox(promise: promise.recover(on: context, policy: policy, body))
        }
    }

    func timeout(_ kind: TimerKind, contexts: ModelContexts) -> any AnyModelNode {
        switch kind {
        case .long: ModelNodeBox(promise: promise.timeout(on: ModelContexts.queueA, .seconds(3600)))
        case .short: ModelNodeBox(promise: promise.timeout(on: ModelContexts.queueB, .milliseconds(1)))
        case .instant: ModelNodeBox(promise: promise.timeout(on: ModelContexts.queueB, .zero))
        case .manual: ModelNodeBox(promise: promise.timeout(on: contexts.manual, .milliseconds(10)))
        }
    }
}
