internal import PromiseCore

/// How an ``ObservationInbox`` keeps what arrives while its consumer is busy: the one choice
/// that differs between a sequence of commits and a sequence of row changes.
protocol ObservationBuffer: Sendable {
    associatedtype Element: Sendable
    /// Keeps `element`, within the buffer's bound.
    mutating func push(_ element: Element)
    /// The next element kept, if any.
    mutating func take() -> Element?
    /// Drops every element kept.
    mutating func removeAll()
}

/// What an observation's `AsyncSequence` has not yet handed to its consumer, and the consumer
/// waiting for it. The observation delivers on the connection thread and never waits: what
/// the consumer has not taken goes into the buffer, which bounds it.
final class ObservationInbox<Buffer: ObservationBuffer>: Sendable {
    typealias Element = Buffer.Element

    private enum End { case closed, cancelled }

    private struct State {
        var buffer: Buffer
        var waiter: CheckedContinuation<Element?, Never>?
        var end: End?
        var unregister: (@Sendable () -> Void)?
    }

    private let state: Lock<State>

    init(_ buffer: Buffer) {
        state = Lock(State(buffer: buffer))
    }

    /// Sets how the observation is removed from the connection; runs it at once when the
    /// inbox was cancelled first.
    func setUnregister(_ unregister: @escaping @Sendable () -> Void) {
        let cancelled: Bool = state.withLock { state in
            guard state.end != .cancelled else { return true }
            state.unregister = unregister
            return false
        }
        if cancelled { unregister() }
    }

    /// Hands `element` to the waiting consumer, or keeps it in the buffer.
    func push(_ element: Element) {
        let waiter: CheckedContinuation<Element?, Never>? = state.withLock { state in
            guard state.end == nil else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.buffer.push(element)
            return nil
        }
        waiter?.resume(returning: element)
    }

    /// The database closed: the consumer gets what is kept, then the end.
    func close() {
        let waiter: CheckedContinuation<Element?, Never>? = state.withLock { state in
            guard state.end == nil else { return nil }
            state.end = .closed
            state.unregister = nil
            let waiter = state.waiter
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The consumer stopped: nothing more is kept, and the observation is removed.
    func cancel() {
        let (waiter, unregister): (CheckedContinuation<Element?, Never>?, (@Sendable () -> Void)?) = state.withLock { state in
            guard state.end == nil else { return (nil, nil) }
            state.end = .cancelled
            state.buffer.removeAll()
            let waiter = state.waiter
            let unregister = state.unregister
            state.waiter = nil
            state.unregister = nil
            return (waiter, unregister)
        }
        waiter?.resume(returning: nil)
        unregister?()
    }

    /// The next element, or `nil` once the database closed or the consuming task was cancelled.
    func next() async -> Element? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
                let (now, replaced): (Element??, CheckedContinuation<Element?, Never>?) = state.withLock { state in
                    if let kept = state.buffer.take() { return (.some(kept), nil) }
                    if state.end != nil { return (.some(nil), nil) }
                    // Two consumers of one iterator: the earlier one ends.
                    let replaced = state.waiter
                    state.waiter = continuation
                    return (nil, replaced)
                }
                replaced?.resume(returning: nil)
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            cancel()
        }
    }

    deinit {
        // Nobody can consume any more: remove the observation from the connection.
        state.withLock { $0.unregister }?()
    }
}

/// A ``SQLiteCommits`` consumer's buffer: at most one report, merged while the consumer is
/// behind, so a slow consumer costs one set of table names, not one per commit.
struct MergedCommits: ObservationBuffer {
    private var pending: SQLiteCommit?

    mutating func push(_ commit: SQLiteCommit) {
        pending = pending.map { $0.merged(with: commit) } ?? commit
    }

    mutating func take() -> SQLiteCommit? {
        let taken = pending
        pending = nil
        return taken
    }

    mutating func removeAll() { pending = nil }
}

/// A ``SQLiteTransactionEvents`` consumer's buffer: events in order, up to `limit` events and
/// `limit` listed row changes. Past that, events are only counted, into one
/// ``SQLiteTransactionEvent/missed(_:)`` that the consumer gets after the events kept; events
/// that arrive while it is waiting join it, so the order is never broken.
struct TransactionEventQueue: ObservationBuffer {
    let limit: Int
    private var events: [SQLiteTransactionEvent] = []
    private var head = 0
    /// Listed row changes in `events[head...]`.
    private var listed = 0
    private var missed: SQLiteMissedTransactions?

    init(limit: Int) { self.limit = limit }

    /// How many events wait, counting a pending `missed` as one.
    var count: Int { events.count - head + (missed == nil ? 0 : 1) }

    mutating func push(_ event: SQLiteTransactionEvent) {
        let rows = Self.listedRows(event)
        if missed == nil, events.count - head < limit, listed + rows <= limit {
            events.append(event)
            listed += rows
            return
        }
        missed = (missed ?? .none).adding(event)
    }

    mutating func take() -> SQLiteTransactionEvent? {
        guard head < events.count else {
            let taken = missed.map { SQLiteTransactionEvent.missed($0) }
            missed = nil
            return taken
        }
        let event = events[head]
        head += 1
        listed -= Self.listedRows(event)
        if head == events.count {
            events.removeAll(keepingCapacity: events.capacity <= 64)
            head = 0
        } else if head >= 64, head * 2 >= events.count {
            events.removeSubrange(..<head)
            head = 0
        }
        return event
    }

    mutating func removeAll() {
        events = []
        head = 0
        listed = 0
        missed = nil
    }

    private static func listedRows(_ event: SQLiteTransactionEvent) -> Int {
        if case .committed(let commit) = event { return commit.changes.count }
        return 0
    }
}
