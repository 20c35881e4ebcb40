// The reference model of PromiseCore's semantics that ModelBasedTests checks against.
//
// A model state holds every promise's outcome and callback calls, and the bookkeeping that
// decides what happens next: consumer and withdrawal counts (upward cancellation), upstream
// links, the combinators' slots, armed timers, and the events still due. Every step of a
// program first changes the state the way the call itself does, on the calling thread; what
// the library does later (deliver a callback, apply a callback's result, withdraw from an
// upstream, fire a timer, run the next action of a concurrent thread) is an event. Events run
// one at a time in any order, so the model does not need to know which thread runs them or
// when; exploring every order gives the set of states the program can legally end in once
// nothing moves any more. The real run must end in one of them. (So the model also allows a
// few orders a particular context rules out, such as an `.inline` callback running after the
// next action of the thread that resolved its source; it never allows an outcome that no
// order of these events gives.)
//
// The rules, in the library's words:
// - A promise settles once; later fulfil / reject / cancel calls are ignored.
// - fulfil / reject / cancel from outside (and a timeout firing) withdraw from the promise's
//   upstream: a pending promise whose consumers have all withdrawn is cancelled, and so on up.
// - Cancellation (a rejection with CancellationError) also runs cancel handlers: a combinator
//   withdraws from its inputs.
// - then: on a value, the body runs only if the child is still pending, and its result
//   (value, error or a promise to adopt) is applied afterwards, unless the child settled
//   meanwhile; a rejection passes through without running the body.
// - catch: the body runs for every rejection its policy handles (cancellation only with
//   .allErrors), whether or not the child is still pending (unlike then and recover, which
//   skip the body once their promise was cancelled); the outcome passes through.
// - recover: like then, for the rejections its policy handles; everything else passes through.
// - Promise(on:) { work }: the work runs once unless the promise settled before it started.
// - Adopting a promise subscribes to it (one more consumer) and links it as the upstream.
// - timeout: settles like the source, or rejects with timedOut when its timer fires first
//   (short timers at any time, manual ones only after `advance`, long ones never). The timer
//   is scheduled before the timeout subscribes to its source, so it may fire before that.
// - all: the values in order once all fulfil; the first rejection wins and withdraws from the
//   rest. race: the first outcome wins and withdraws from the rest. any: every outcome once all
//   settle, rejected with the first input's error if all were rejected. Empty inputs: all and
//   any fulfil with [], race rejects with invalidArgument. A combinator's promise resolved by
//   hand (fulfil / reject, not cancel) keeps its inputs until one of them settles.

/// A value as the model sees it (arrays of `all` and `any` become lists).
indirect enum ModelValue: Hashable, Sendable, CustomStringConvertible {
    case int(Int)
    case list([ModelValue])
    /// A rejected element of `any`'s result.
    case failure(ModelErrorKind)

    /// `k` as a value of a promise of `kind` (`[k]` for arrays).
    static func make(_ kind: NodeKind, _ k: Int) -> ModelValue {
        kind == .int ? .int(k) : .list([.int(k)])
    }

    /// What `then(.add(k))` adds `k` to: the value, or the sum of an array's elements.
    var scalar: Int {
        switch self {
        case .int(let value): value
        case .list(let values): values.reduce(0) { $0 + $1.scalar }
        case .failure: 100
        }
    }

    var description: String {
        switch self {
        case .int(let value): "\(value)"
        case .list(let values): "[" + values.map(\.description).joined(separator: ", ") + "]"
        case .failure(let error): "failure(\(error))"
        }
    }
}

/// An error as the model sees it.
enum ModelErrorKind: Hashable, Sendable, CustomStringConvertible {
    case model(Int)
    case cancelled
    case timedOut
    case invalidArgument
    /// Anything the model never produces (a broken promise, an invalidated context …).
    case other(String)

    var description: String {
        switch self {
        case .model(let tag): "ModelError(\(tag))"
        case .cancelled: "CancellationError"
        case .timedOut: "PromiseError.timedOut"
        case .invalidArgument: "PromiseError.invalidArgument"
        case .other(let text): "unexpected error \(text)"
        }
    }
}

/// How a promise settled.
enum ModelOutcome: Hashable, Sendable, CustomStringConvertible {
    case value(ModelValue)
    case error(ModelErrorKind)

    var description: String {
        switch self {
        case .value(let value): "fulfilled(\(value))"
        case .error(let error): "rejected(\(error))"
        }
    }
}

/// One call of a user callback, with what it was given.
enum ModelCall: Hashable, Sendable, CustomStringConvertible {
    case value(ModelValue)
    case error(ModelErrorKind)
    /// The work of `Promise(on:) { … }`, which takes nothing.
    case work

    var description: String {
        switch self {
        case .value(let value): "called with \(value)"
        case .error(let error): "called with \(error)"
        case .work: "work ran"
        }
    }
}

extension ModelPolicy {
    func handles(_ error: ModelErrorKind) -> Bool {
        self == .allErrors || error != .cancelled
    }
}

/// What a callback decided, applied to its promise in a later event.
enum ModelResolution: Hashable {
    case settle(ModelOutcome)
    case adopt(Int)
}

enum ModelTimer: Hashable {
    case none, running, manualWaiting, manualDue
}

struct ModelCombination: Hashable {
    var combinator: Combinator
    /// The inputs that were pending when subscribed to: withdrawn from when the outcome is decided.
    var tracked: [Int]
    var remaining: Int
    var decided = false
    var withdrawn = false
    var slots: [ModelOutcome?]
}

struct ModelNode: Hashable {
    var kind: NodeKind
    var outcome: ModelOutcome?
    var consumers = 0
    var withdrawn = 0
    var upstream: Int?
    var calls: [ModelCall] = []
    var resolution: ModelResolution?
    /// The work of `Promise(on:) { … }`, until it has started.
    var work: MakeOp?
    var timer: ModelTimer = .none
    /// A timeout's subscription to its source, made after its timer is scheduled.
    var timeoutSource: Int?
    var combination: ModelCombination?

    init(kind: NodeKind, outcome: ModelOutcome? = nil) {
        self.kind = kind
        self.outcome = outcome
    }
}

enum ModelSubscription: Hashable {
    case then(Int, ThenOp)
    case catchError(Int, ModelPolicy)
    case recover(Int, ModelPolicy, RecoverOp)
    /// timeout and adopt: the child settles like the source.
    case forward(Int)
    case combine(Int, slot: Int)
}

enum ModelEvent: Hashable {
    case deliver(source: Int, subscription: Int)
    case finish(Int)
    case start(Int)
    case subscribeTimeout(Int)
    case fire(Int)
    case withdraw(Int)
    case withdrawAll(Int)
    case act(thread: Int)
}

/// What the test can see of a state: each promise's outcome and its callback's calls.
struct ModelObservation: Hashable, Sendable {
    var outcomes: [ModelOutcome?]
    var calls: [[ModelCall]]

    /// Whether `final` can still be reached from a run that shows `self` now: outcomes never
    /// change once set, and calls only accumulate.
    func canStillReach(_ final: ModelObservation) -> Bool {
        for index in outcomes.indices {
            if let outcome = outcomes[index], outcome != final.outcomes[index] { return false }
            if calls[index].count > final.calls[index].count
                || Array(final.calls[index].prefix(calls[index].count)) != calls[index]
            {
                return false
            }
        }
        return true
    }
}

/// A subscription of a callback (or of a combinator's slot) to a source promise.
struct ModelSubscriptionEntry: Hashable {
    var subscription: ModelSubscription
    var delivered = false
}

struct ModelState: Hashable {
    var nodes: [ModelNode] = []
    /// For each promise, what subscribed to it, in order.
    var subscriptions: [[ModelSubscriptionEntry]] = []
    /// Pending withdrawals, sorted (a multiset).
    var withdrawals: [Int] = []
    /// Combinators that still have to withdraw from their inputs, sorted (a multiset).
    var withdrawAlls: [Int] = []
    /// The actions each thread of the current step still has to make.
    var threads: [[ModelAction]] = []

    var observation: ModelObservation {
        ModelObservation(outcomes: nodes.map(\.outcome), calls: nodes.map(\.calls))
    }
}
