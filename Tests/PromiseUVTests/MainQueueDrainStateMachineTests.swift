import Testing

@testable import PromiseUV

/// The phases of a loop's watch over the main queue and every event in each, alone: no loop,
/// no libdispatch, no thread. The pairs that cannot happen stop the program
/// (`MainQueueDrainImpossibleEventTests`).
@Suite struct MainQueueDrainStateMachineTests {
    typealias Machine = MainQueueDrainStateMachine
    typealias State = Machine.State

    /// A machine in `state`, reached through the events that lead there.
    static func machine(in state: State) -> Machine {
        var machine = Machine()
        switch state {
        case .unopened:
            break
        case .polling:
            _ = machine.runStarted(onMainThread: true)
        case .idle:
            _ = machine.runStarted(onMainThread: true)
            _ = machine.runEnded()
        case .closed:
            _ = machine.shutdown()
        }
        #expect(machine.state == state)
        return machine
    }

    static let states: [State] = [.unopened, .idle, .polling, .closed]

    @Test(arguments: [
        (State.unopened, true, Machine.RunAction.openAndPoll, State.polling),
        (.unopened, false, .none, .unopened),
        (.idle, true, .poll, .polling),
        (.idle, false, .none, .idle),
        (.closed, true, .none, .closed),
        (.closed, false, .none, .closed),
    ])
    func aRunStarting(from state: State, onMainThread: Bool, action: Machine.RunAction, next: State) {
        var machine = Self.machine(in: state)
        #expect(machine.runStarted(onMainThread: onMainThread) == action)
        #expect(machine.state == next)
        #expect(machine.drains == (next == .polling))
    }

    @Test(arguments: [
        (State.unopened, Machine.StopAction.none, State.unopened),
        (.idle, .none, .idle),
        (.polling, .stopPolling, .idle),
        (.closed, .none, .closed),
    ])
    func aRunEnding(from state: State, action: Machine.StopAction, next: State) {
        var machine = Self.machine(in: state)
        #expect(machine.runEnded() == action)
        #expect(machine.state == next)
        #expect(!machine.drains)
    }

    @Test(arguments: [
        (State.unopened, Machine.CloseAction.none),
        (.idle, .close),
        (.polling, .close),
    ])
    func theLoopClosingItsHandles(from state: State, action: Machine.CloseAction) {
        var machine = Self.machine(in: state)
        #expect(machine.shutdown() == action)
        #expect(machine.state == .closed)
        #expect(!machine.drains)
    }

    @Test func aHandleThatCannotBeMadeLeavesTheLoopAsIfNotOnTheMainThread() {
        var machine = Self.machine(in: .polling)
        machine.openFailed()
        #expect(machine.state == .unopened)
        #expect(!machine.drains)
        // The next run on the main thread tries again.
        #expect(machine.runStarted(onMainThread: true) == .openAndPoll)
    }

    @Test func aLoopShutDownDuringARunOnTheMainThreadStopsNothingWhenTheRunEnds() {
        var machine = Self.machine(in: .polling)
        #expect(machine.shutdown() == .close)
        #expect(machine.runEnded() == .none)
        #expect(machine.runStarted(onMainThread: true) == .none)
    }

    @Test func theTablesNameEveryState() {
        // A new phase fails here until the tables above cover it.
        #expect(Self.states.count == State.allCases.count)
        for state in State.allCases {
            #expect(Self.states.contains(state), "no table covers \(state)")
        }
    }
}

/// The events that cannot happen in a phase stop the program.
@Suite struct MainQueueDrainImpossibleEventTests {
    @Test func aRunStartingWhileAnotherPollsStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = MainQueueDrainStateMachine()
            _ = machine.runStarted(onMainThread: true)
            _ = machine.runStarted(onMainThread: true)
        }
    }

    @Test func anOpenFailureWithoutAnOpenStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = MainQueueDrainStateMachine()
            machine.openFailed()
        }
    }

    @Test func closingTwiceStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = MainQueueDrainStateMachine()
            _ = machine.shutdown()
            _ = machine.shutdown()
        }
    }
}
