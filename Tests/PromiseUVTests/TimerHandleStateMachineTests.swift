import Testing

@testable import PromiseUV

/// The loop's one timer handle, every event in every state alone: no loop, no clock.
@Suite struct TimerHandleStateMachineTests {
    typealias Machine = TimerHandleStateMachine
    typealias State = Machine.State

    static func machine(in state: State) -> Machine {
        var machine = Machine()
        switch state {
        case .stopped:
            break
        case .armed(let expiry):
            _ = machine.arm(nextExpiry: expiry)
        case .firing:
            _ = machine.arm(nextExpiry: 10)
            machine.fired()
        case .dueAfterPoll:
            _ = machine.arm(nextExpiry: 10)
            machine.fired()
            _ = machine.firingEnded(nextDueNow: true)
        }
        #expect(machine.state == state)
        return machine
    }

    @Test(arguments: [
        (State.stopped, UInt64?.none, Machine.ArmAction.none, State.stopped),
        (.stopped, 5, .start(expiry: 5), .armed(expiry: 5)),
        (.armed(expiry: 5), 5, .none, .armed(expiry: 5)),
        (.armed(expiry: 5), 3, .start(expiry: 3), .armed(expiry: 3)),
        (.armed(expiry: 5), 9, .start(expiry: 9), .armed(expiry: 9)),
        (.armed(expiry: 5), nil, .stop, .stopped),
        // A timer started while onTimer runs waits for it to return.
        (.firing, 0, .none, .firing),
        (.firing, nil, .none, .firing),
        // Arming before the poll (a timer started by a callback) points the handle now.
        (.dueAfterPoll, 7, .start(expiry: 7), .armed(expiry: 7)),
        (.dueAfterPoll, nil, .none, .stopped),
    ])
    func arming(from state: State, expiry: UInt64?, action: Machine.ArmAction, next: State) {
        var machine = Self.machine(in: state)
        #expect(machine.arm(nextExpiry: expiry) == action)
        #expect(machine.state == next)
    }

    @Test(arguments: [true, false])
    func theEndOfAFiringPass(nextDueNow: Bool) {
        var machine = Self.machine(in: .firing)
        #expect(machine.firingEnded(nextDueNow: nextDueNow) == (nextDueNow ? .rearmAfterPoll : .arm))
        #expect(machine.awaitsRearm == nextDueNow, "due timers keep the loop turning until they are re-armed")
        let armsNow = machine.polled()
        #expect(armsNow == nextDueNow)
        #expect(machine.state == .stopped)
        #expect(!machine.awaitsRearm)
        let armsAgain = machine.polled()
        #expect(!armsAgain, "re-armed once")
    }

    @Test(arguments: [State.stopped, .armed(expiry: 4)])
    func aPollWithNothingDueArmsNothing(in state: State) {
        var machine = Self.machine(in: state)
        let armsNow = machine.polled()
        #expect(!armsNow)
        #expect(machine.state == state)
    }
}

@Suite struct TimerHandleImpossibleEventTests {
    @Test func firingWhenNotArmedStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = TimerHandleStateMachine()
            machine.fired()
        }
    }

    @Test func aFiringPassEndingWithoutOneStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = TimerHandleStateMachine()
            _ = machine.firingEnded(nextDueNow: false)
        }
    }
}
