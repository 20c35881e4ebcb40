/// Shared bookkeeping for operators that wait on several promises: how many are left,
/// whether the outcome is decided, and weak references to withdraw from the rest.
///
/// The combined promise links to it as its upstream, so `awaitPromise`'s deadlock check walks
/// on to the inputs. Only cancelling the combined promise withdraws from them (its `onCancel`
/// handler); resolving it by hand leaves them alone.
///
/// Its methods are emitted into the programs that combine promises, for the reason `Promise`
/// gives, so a program that never does carries none of them.
@usableFromInline
final class Combination: PromiseNode {
    /// The combination's progress, under ``state``'s lock.
    @usableFromInline
    struct State {
        /// How many inputs there are.
        @usableFromInline let count: Int
        /// How many inputs have not settled yet.
        @usableFromInline var remaining: Int
        /// Whether the combined promise's outcome is decided.
        @usableFromInline var decided: Bool
        /// Whether the combination withdrew from its inputs.
        @usableFromInline var withdrawn: Bool
        /// The inputs to withdraw from, held weakly.
        @usableFromInline var inputs: [WeakNode]

        @_alwaysEmitIntoClient
        init(count: Int) {
            self.count = count
            self.remaining = count
            self.decided = false
            self.withdrawn = false
            self.inputs = []
        }
    }
    @usableFromInline let state: Lock<State>

    @_alwaysEmitIntoClient
    init(count: Int) {
        state = Lock(State(count: count))
    }

    /// Remembers `input` for a later withdrawal. Withdraws at once if that has happened already.
    @_alwaysEmitIntoClient
    func track(_ input: any PromiseNode) {
        let late = state.withLock { state in
            if state.withdrawn { return true }
            if state.inputs.capacity == 0 { state.inputs.reserveCapacity(state.count) }
            state.inputs.append(WeakNode(input))
            return false
        }
        if late { withdrawUpward(from: input) }
    }

    /// Counts one input as done. Returns `true` for the last one, unless the outcome was
    /// already decided.
    @_alwaysEmitIntoClient
    func countDown() -> Bool {
        state.withLock { state in
            state.remaining -= 1
            guard state.remaining == 0, !state.decided else { return false }
            state.decided = true
            return true
        }
    }

    /// Decides the outcome early. Returns `true` for the first caller only.
    @_alwaysEmitIntoClient
    func decide() -> Bool {
        state.withLock { state in
            guard !state.decided else { return false }
            state.decided = true
            return true
        }
    }

    @usableFromInline
    func deliverCallbacks(in turn: Turn) {}

    @usableFromInline
    func withdrawConsumer() -> (any PromiseNode)? { nil }

    @usableFromInline
    func abandon() {}

    @usableFromInline
    var resolverInfo: ResolverInfo {
        let inputs = state.withLock { $0.inputs }
        return ResolverInfo(contextID: nil, upstreams: inputs.compactMap(\.node), isPending: true)
    }

    /// Withdraws interest from every tracked input still pending (once).
    @_alwaysEmitIntoClient
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

extension Promise {
    /// Makes this fresh promise the result of `combination`: cancelling it withdraws from
    /// the inputs, and `combination` is its upstream for the deadlock check.
    @_alwaysEmitIntoClient
    func combine(_ combination: Combination) {
        addCancelHandler(CancelHandler(context: nil) { combination.withdrawAll() })
        link(to: combination)
    }
}

/// One slot of a heterogeneous `all`, written once by its input's callback.
@usableFromInline
final class Slot<Value: Sendable>: Sendable {
    @usableFromInline let storage: Lock<Value?>

    @_alwaysEmitIntoClient
    init() {
        storage = Lock(nil)
    }

    @_alwaysEmitIntoClient
    func store(_ value: Value) {
        storage.withLock { $0 = value }
    }

    @_alwaysEmitIntoClient
    var value: Value {
        storage.withLock { $0! }
    }
}

/// The values of an array combinator's inputs, one slot per input, each written once by its
/// input's callback and all read once, by the callback that counts the last input down.
///
/// One allocation for all the inputs, and no lock of its own: each slot has a single writer,
/// and every writer stores before it passes the ``Combination``'s lock in `countDown()`, which
/// the last one's reader passes after them, so the lock orders every store before the read.
@usableFromInline
final class Gathered<Element: Sendable>: @unchecked Sendable {
    @usableFromInline let count: Int
    @usableFromInline let slots: UnsafeMutablePointer<Element?>

    @_alwaysEmitIntoClient
    init(count: Int) {
        self.count = count
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil, count: count)
    }

    deinit {
        slots.deinitialize(count: count)
        slots.deallocate()
    }

    /// Stores the value of input `index`. Each index is stored at most once.
    @_alwaysEmitIntoClient
    func store(_ value: Element, at index: Int) {
        slots[index] = value
    }

    /// Moves the values out, in input order. Call once, after every slot has been stored.
    @_alwaysEmitIntoClient
    func take() -> [Element] {
        [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
            for index in 0..<count {
                buffer.initializeElement(at: index, to: (slots + index).move()!)
                (slots + index).initialize(to: nil)
            }
            initialized = count
        }
    }
}
