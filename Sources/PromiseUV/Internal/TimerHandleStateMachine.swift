/// Where a loop's one `uv_timer_t` stands, and what each event asks ``LoopCore`` to do with
/// it. Pure: it never calls libuv.
///
/// The handle is pointed at the earliest of the loop's timers (``TimerQueue``). While
/// `onTimer` runs the due timers, nothing re-arms it: a zero timeout started inside libuv
/// 1.44's timer pass fires again in the same pass, forever. Timers already due when `onTimer`
/// returns are re-armed after the loop's next poll instead.
struct TimerHandleStateMachine {
    enum State: Equatable {
        /// Not started: no timer waits, or the handle fired and is not re-armed yet.
        case stopped
        /// Started to fire at `expiry` (loop time, in milliseconds).
        case armed(expiry: UInt64)
        /// `onTimer` runs the due timers.
        case firing
        /// Timers were due already when `onTimer` returned: the handle is re-armed after the
        /// loop's next poll, and the loop does not stop before.
        case dueAfterPoll
    }

    enum ArmAction: Equatable {
        /// Start the handle to fire at `expiry`.
        case start(expiry: UInt64)
        /// Stop the handle: no timer waits.
        case stop
        /// The handle is as it should be, or `onTimer` arms it when it returns.
        case none
    }

    enum FiredAction: Equatable {
        /// Wake the loop: the handle is re-armed after its next poll (``polled()``).
        case rearmAfterPoll
        /// Arm the handle for the next timer now.
        case arm
    }

    private(set) var state = State.stopped

    /// The earliest timer is due at `expiry`, or none waits (`nil`).
    mutating func arm(nextExpiry expiry: UInt64?) -> ArmAction {
        switch state {
        case .firing:
            return .none
        case .armed(let current):
            guard let expiry else {
                state = .stopped
                return .stop
            }
            guard expiry != current else { return .none }
            state = .armed(expiry: expiry)
            return .start(expiry: expiry)
        case .stopped, .dueAfterPoll:
            guard let expiry else {
                state = .stopped
                return .none
            }
            state = .armed(expiry: expiry)
            return .start(expiry: expiry)
        }
    }

    /// The handle fired: `onTimer` runs the due timers.
    mutating func fired() {
        guard case .armed = state else {
            preconditionFailure("TimerHandleStateMachine: the timer handle fired in \(state), not armed")
        }
        state = .firing
    }

    /// `onTimer` ran the due timers; `nextDueNow`: the earliest timer left is due already.
    mutating func firingEnded(nextDueNow: Bool) -> FiredAction {
        guard case .firing = state else {
            preconditionFailure("TimerHandleStateMachine: firing ended in \(state)")
        }
        state = nextDueNow ? .dueAfterPoll : .stopped
        return nextDueNow ? .rearmAfterPoll : .arm
    }

    /// The loop polled since `onTimer`. Returns whether to arm the handle now.
    mutating func polled() -> Bool {
        guard case .dueAfterPoll = state else { return false }
        state = .stopped
        return true
    }

    /// Whether the loop must turn once more before it may stop: timers are due, and the
    /// handle waits to be re-armed.
    var awaitsRearm: Bool { state == .dueAfterPoll }
}
