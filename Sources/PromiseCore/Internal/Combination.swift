/// Shared bookkeeping for operators that wait on several promises: how many are left,
/// whether the outcome is decided, and weak references to withdraw from the rest.
///
/// The combined promise links to it as its upstream, so `awaitPromise`'s deadlock check walks
/// on to the inputs. Only cancelling the combined promise withdraws from them (its `onCancel`
/// handler); resolving it by hand leaves them alone.
final class Combination: PromiseNode {
    private struct State {
        var remaining: Int
        var decided = false
        var withdrawn = false
        var inputs: [WeakNode] = []
    }
    private let state: Lock<State>

    init(count: Int) {
        state = Lock(State(remaining: count))
    }

    /// Remembers `input` for a later withdrawal. Withdraws at once if that has happened already.
    func track(_ input: any PromiseNode) {
        let late = state.withLock { state in
            if state.withdrawn { return true }
            state.inputs.append(WeakNode(input))
            return false
        }
        if late { withdrawUpward(from: input) }
    }

    /// Counts one input as done. Returns `true` for the last one, unless the outcome was
    /// already decided.
    func countDown() -> Bool {
        state.withLock { state in
            state.remaining -= 1
            guard state.remaining == 0, !state.decided else { return false }
            state.decided = true
            return true
        }
    }

    /// Decides the outcome early. Returns `true` for the first caller only.
    func decide() -> Bool {
        state.withLock { state in
            guard !state.decided else { return false }
            state.decided = true
            return true
        }
    }

    func deliverCallbacks(in turn: Turn) {}

    func withdrawConsumer() -> (any PromiseNode)? { nil }

    func abandon() {}

    var resolverInfo: ResolverInfo {
        let inputs = state.withLock { $0.inputs }
        return ResolverInfo(contextID: nil, upstreams: inputs.compactMap(\.node), isPending: true)
    }

    /// Withdraws interest from every tracked input still pending (once).
    func withdrawAll() {
        let inputs: [WeakNode] = state.withLock { state in
            guard !state.withdrawn else { return [] }
            state.withdrawn = true
            let inputs = state.inputs
            state.inputs = []
            return inputs
        }
        for input in inputs {
            input.withdraw()
        }
    }
}

/// One slot of a heterogeneous `all`, written once by its input's callback.
final class Slot<Value: Sendable>: Sendable {
    private let storage = Lock<Value?>(nil)

    func store(_ value: Value) {
        storage.withLock { $0 = value }
    }

    var value: Value {
        storage.withLock { $0! }
    }
}
