@testable import PromiseSQLite
import Testing

/// The hand-off of a connection between its thread and a waiting caller, alone: every
/// (state, event) pair, with no thread, no database and no timing.
@Suite struct ConnectionHandOffStateMachineTests {
    typealias Machine = ConnectionHandOffStateMachine

    @Test(arguments: Machine.State.allCases, [true, false])
    func theThreadTakesJobsUnlessAWaiterRunsOne(state: Machine.State, polling: Bool) {
        var machine = Machine(state)
        let action = machine.threadTurn(polling: polling)
        switch state {
        case .threadWorking, .threadIdle:
            #expect(action == .takeJobs)
            #expect(machine.state == state)
        case .waiterRunning, .waiterRunningThreadParked:
            // Polling goes on beside the waiter; a thread done polling parks and must be woken.
            #expect(action == (polling ? .keepPolling : .sleep))
            #expect(machine.state == (polling ? .waiterRunning : .waiterRunningThreadParked))
        }
    }

    @Test(arguments: [Machine.State.threadWorking, .threadIdle], [true, false])
    func whatTheThreadTookDecidesWhetherItIsIdle(state: Machine.State, found: Bool) {
        var machine = Machine(state)
        machine.jobsTaken(found: found)
        #expect(machine.state == (found ? .threadWorking : .threadIdle))
    }

    @Test(arguments: Machine.State.allCases)
    func aWaiterRunsAJobOnlyWhileTheThreadIsIdle(state: Machine.State) {
        var machine = Machine(state)
        let granted = machine.waiterAsksToRun()
        #expect(granted == (state == .threadIdle))
        #expect(machine.state == (state == .threadIdle ? .waiterRunning : state), "a refusal changes nothing")
    }

    @Test(arguments: [Machine.State.waiterRunning, .waiterRunningThreadParked])
    func aFinishedWaiterWakesAParkedThreadOnly(state: Machine.State) {
        var machine = Machine(state)
        let action = machine.waiterFinished()
        #expect(action == (state == .waiterRunningThreadParked ? .wakeThreadIfJobsArrived : .none))
        #expect(machine.state == .threadIdle)
    }

    /// The orders that race in the owner: a thread that polls through the waiter's job, and
    /// one that parks, is woken by a new job, and parks again.
    @Test func theRacingOrdersEndIdleAndWakeWhenTheyMust() {
        var polling = Machine(.threadIdle)
        let first = polling.waiterAsksToRun()
        let second = polling.waiterAsksToRun()
        let besideTheWaiter = polling.threadTurn(polling: true)
        let done = polling.waiterFinished()
        let after = polling.threadTurn(polling: true)
        polling.jobsTaken(found: true)
        let whileWorking = polling.waiterAsksToRun()
        #expect(first && !second, "a second waiter is refused")
        #expect(besideTheWaiter == .keepPolling && done == .none && after == .takeJobs)
        #expect(!whileWorking, "no waiter while the thread works")

        var parking = Machine(.threadIdle)
        let granted = parking.waiterAsksToRun()
        let turns = [true, false, false].map { parking.threadTurn(polling: $0) }
        let finished = parking.waiterFinished()
        #expect(granted)
        #expect(turns == [.keepPolling, .sleep, .sleep], "woken by a post, it parks again")
        #expect(finished == .wakeThreadIfJobsArrived)
        #expect(parking.state == .threadIdle)
    }
}

/// The events that cannot happen in a state stop the process. An exit test captures nothing,
/// so each state has its own.
@Suite struct ConnectionHandOffImpossibleEventTests {
    @Test func takingJobsBesideARunningWaiterStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = ConnectionHandOffStateMachine(.waiterRunning)
            machine.jobsTaken(found: false)
        }
    }

    @Test func takingJobsBesideAWaiterTheThreadParkedForStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = ConnectionHandOffStateMachine(.waiterRunningThreadParked)
            machine.jobsTaken(found: true)
        }
    }

    @Test func finishingAJobNeverGrantedWhileTheThreadWorksStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = ConnectionHandOffStateMachine(.threadWorking)
            _ = machine.waiterFinished()
        }
    }

    @Test func finishingAJobNeverGrantedWhileTheThreadIsIdleStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = ConnectionHandOffStateMachine(.threadIdle)
            _ = machine.waiterFinished()
        }
    }
}
