/// What one consumer's withdrawal did to the promise it waited for: the one place that says
/// whether the work behind a promise was told to stop, for the messages that report it.
@usableFromInline
enum SourceOutcome: Sendable {
    /// Nobody else waited for the promise: it was cancelled, and its `onCancel` handlers ran.
    case cancelled
    /// Nobody else waited for the promise: it was cancelled, but the work behind it cannot be
    /// stopped (another library's future) and goes on, its result unused.
    case cancelledWhileWorkGoesOn
    /// Nobody else waited for the promise, and the adapter that takes its cancellation
    /// requests was asked to stop the work; it settles the promise once the work has reacted.
    case stopRequested
    /// The promise goes on, because this many other consumers still wait for it.
    case stillWanted(consumers: Int)
    /// The promise had settled already: its result was on its way to the consumer.
    case settled

    /// The clause a message appends: what became of the work behind the promise.
    var clause: String {
        switch self {
        case .cancelled, .stopRequested:
            return "the work behind it was told to stop"
        case .cancelledWhileWorkGoesOn:
            return "the promise was cancelled, but the work behind it cannot be stopped and goes on, its result unused"
        case .stillWanted(let consumers):
            let others = consumers == 1 ? "1 other consumer still waits" : "\(consumers) other consumers still wait"
            return "the work behind it goes on, because \(others) for it"
        case .settled:
            return "the work behind it finished at the same moment, too late"
        }
    }
}

/// The result of ``Promise/withdraw(detaching:)``: what it did, and the promise's own
/// source when it was cancelled, for the caller to withdraw from in turn (without recursion).
@usableFromInline
struct Withdrawal {
    @usableFromInline let outcome: SourceOutcome
    @usableFromInline let next: (any PromiseNode)?

    @_alwaysEmitIntoClient
    init(outcome: SourceOutcome, next: (any PromiseNode)?) {
        self.outcome = outcome
        self.next = next
    }
}

/// The timer of one `timeout`: armed after the operator has subscribed to its source (so the
/// timer never fires before the link it detaches exists), and stopped when the timeout
/// settles any other way, even before it was armed.
@usableFromInline
final class TimeoutTimer: Sendable {
    @usableFromInline
    enum Phase {
        case unarmed
        case armed(ScheduledWork)
        case finished
    }

    @usableFromInline let phase: Lock<Phase>

    @_alwaysEmitIntoClient
    init() {
        phase = Lock(.unarmed)
    }

    /// Keeps `timer` to stop it later, or stops it at once if the timeout has finished.
    @_alwaysEmitIntoClient
    func arm(_ timer: ScheduledWork) {
        let finished = phase.withLock { phase in
            guard case .unarmed = phase else { return true }
            phase = .armed(timer)
            return false
        }
        if finished { timer.cancel() }
    }

    /// Stops the timer if it is armed; a timer armed later is stopped at once.
    @_alwaysEmitIntoClient
    func finish() {
        let armed: ScheduledWork? = phase.withLock { phase in
            defer { phase = .finished }
            guard case .armed(let timer) = phase else { return nil }
            return timer
        }
        armed?.cancel()
    }
}
