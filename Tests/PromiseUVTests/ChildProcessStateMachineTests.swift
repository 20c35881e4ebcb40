import Testing

@testable import PromiseUV

/// A child process's phases and the decisions between them, alone: no loop, no process, no
/// signal and no timing. The events that cannot arrive in a phase stop the program
/// (`ChildProcessImpossibleEventTests`).
@Suite struct ChildProcessStateMachineTests {
    typealias Machine = ChildProcessStateMachine

    static let twoSteps: [UVTeardownStep] = [.signal(.interrupt, wait: .seconds(2)), .signal(.terminate, wait: .seconds(5))]

    /// The phases a machine is driven into by the helpers below.
    enum Phase: CaseIterable {
        case starting, cancelledBeforeStart, running, stopping, exited, exitedWhileStopping, exitLost, settled
    }

    static let lost = UVError(UVError.Code(uvCode: -10), operation: "waitpid", detail: "reaped by something else")

    static func machine(_ phase: Phase, teardown: [UVTeardownStep] = twoSteps) -> Machine {
        var machine = Machine(teardown: teardown)
        switch phase {
        case .starting: break
        case .cancelledBeforeStart: _ = machine.stopRequested(.cancelled)
        case .running: spawn(&machine)
        case .stopping:
            spawn(&machine)
            _ = machine.stopRequested(.cancelled)
        case .exited:
            spawn(&machine)
            _ = machine.exited(.exited(0))
        case .exitedWhileStopping:
            spawn(&machine)
            _ = machine.stopRequested(.cancelled)
            _ = machine.exited(.signaled(2))
        case .exitLost:
            spawn(&machine)
            _ = machine.exitLost(lost)
        case .settled:
            spawn(&machine)
            _ = machine.exited(.exited(0))
            _ = machine.pipeFinished(allPipesClosed: true)
        }
        return machine
    }

    static func spawn(_ machine: inout Machine) {
        guard case .spawn = machine.startRequested(loopShuttingDown: false) else {
            Issue.record("a new machine does not spawn")
            return
        }
        machine.spawned()
    }

    static func isStopping(_ machine: Machine, nextStep: Int) -> Bool {
        if case .stopping(_, let step) = machine.state { return step == nextStep }
        return false
    }

    // MARK: Starting

    @Test func aQueuedChildSpawnsUnlessTheLoopIsShuttingDown() {
        var machine = Machine(teardown: [])
        guard case .spawn = machine.startRequested(loopShuttingDown: false) else { Issue.record("not spawned"); return }
        var late = Machine(teardown: [])
        guard case .rejectShutDown = late.startRequested(loopShuttingDown: true) else { Issue.record("spawned during shutdown"); return }
        guard case .settled = late.state else { Issue.record("\(late.state)"); return }
    }

    @Test func aChildCancelledBeforeItsStartIsNeverSpawned() {
        var machine = Machine(teardown: Self.twoSteps)
        guard case .none = machine.stopRequested(.cancelled) else { Issue.record("a stop before the start acted"); return }
        guard case .none = machine.stopRequested(.cancelled) else { Issue.record("a second cancel acted"); return }
        guard case .rejectCancelled = machine.startRequested(loopShuttingDown: false) else { Issue.record("spawned"); return }
        guard case .settled = machine.state else { Issue.record("\(machine.state)"); return }
    }

    @Test func aFailedSpawnSettles() {
        var machine = Machine(teardown: [])
        _ = machine.startRequested(loopShuttingDown: false)
        machine.spawnFailed()
        guard case .settled = machine.state else { Issue.record("\(machine.state)"); return }
        guard case .none = machine.stopRequested(.cancelled) else { Issue.record("a cancel after the failure acted"); return }
    }

    // MARK: Teardown

    @Test func aCancellationWalksTheTeardownThenKills() {
        var machine = Self.machine(.running)
        guard case .signal(.interrupt, thenWait: .seconds(2)) = machine.stopRequested(.cancelled) else { Issue.record("step 1"); return }
        #expect(Self.isStopping(machine, nextStep: 1))
        guard case .signal(.terminate, thenWait: .seconds(5)) = machine.teardownStepElapsed() else { Issue.record("step 2"); return }
        #expect(Self.isStopping(machine, nextStep: 2))
        guard case .kill = machine.teardownStepElapsed() else { Issue.record("SIGKILL"); return }
        #expect(machine.isStopping)
    }

    @Test func aTeardownOfNoStepsKillsAtOnce() {
        var machine = Self.machine(.running, teardown: [])
        guard case .kill = machine.stopRequested(.cancelled) else { Issue.record("not killed"); return }
        #expect(Self.isStopping(machine, nextStep: 0))
    }

    @Test func aSecondStopDoesNotRestartTheTeardown() {
        var machine = Self.machine(.stopping)
        guard case .none = machine.stopRequested(.cancelled) else { Issue.record("restarted"); return }
        guard case .none = machine.stopRequested(.outputLimit(UVError(.outputLimitExceeded, operation: "spawn"))) else {
            Issue.record("a limit restarted it")
            return
        }
        #expect(Self.isStopping(machine, nextStep: 1))
    }

    @Test(arguments: [Phase.running, .stopping])
    func theShutdownKillsAtOnceWhereverTheTeardownIs(phase: Phase) {
        var machine = Self.machine(phase)
        guard case .kill = machine.stopRequested(.shutdown) else { Issue.record("not killed"); return }
        #expect(Self.isStopping(machine, nextStep: Self.twoSteps.count))
    }

    @Test func anAbandonedTeardownWaitKillsAndIsIgnoredOnceTheChildIsReaped() {
        var stopping = Self.machine(.stopping)
        guard case .kill = stopping.teardownAbandoned() else { Issue.record("not killed"); return }
        var reaped = Self.machine(.exitedWhileStopping)
        guard case .none = reaped.teardownAbandoned() else { Issue.record("acted after the exit"); return }
    }

    // MARK: Exit and settling

    @Test func aChildThatExitsOnItsOwnIsFulfilledOnceItsPipesClose() {
        var machine = Self.machine(.running)
        #expect(machine.exited(.exited(3)) == .awaitPipes)
        guard case .none = machine.pipeFinished(allPipesClosed: false) else { Issue.record("settled early"); return }
        guard case .fulfil(.exited(3)) = machine.pipeFinished(allPipesClosed: true) else { Issue.record("not fulfilled"); return }
        guard case .settled = machine.state else { Issue.record("\(machine.state)"); return }
        guard case .none = machine.pipeFinished(allPipesClosed: true) else { Issue.record("settled twice"); return }
    }

    @Test func aStoppedChildIsRejectedWithItsReasonWithoutWaitingForItsPipes() {
        var machine = Self.machine(.stopping)
        #expect(machine.exited(.signaled(2)) == .closePipesAfterStop)
        guard case .reject(.cancelled, .signaled(2)) = machine.pipeFinished(allPipesClosed: true) else { Issue.record("not rejected"); return }
    }

    @Test func aCancellationAfterTheExitKeepsTheRealOutcome() {
        var machine = Self.machine(.exited)
        guard case .closePipes = machine.stopRequested(.cancelled) else { Issue.record("pipes left open"); return }
        guard case .fulfil(.exited(0)) = machine.pipeFinished(allPipesClosed: true) else { Issue.record("not fulfilled"); return }
    }

    @Test func aLimitOrTheShutdownAfterTheExitRejectsAndTheFirstReasonStays() {
        var machine = Self.machine(.exited)
        #expect(!machine.isStopping)
        guard case .closePipes = machine.stopRequested(.outputLimit(UVError(.outputLimitExceeded, operation: "spawn"))) else {
            Issue.record("pipes left open")
            return
        }
        #expect(machine.isStopping)
        guard case .none = machine.stopRequested(.shutdown) else { Issue.record("a second reason acted"); return }
        guard case .reject(.outputLimit, .exited(0)) = machine.pipeFinished(allPipesClosed: true) else { Issue.record("not the limit"); return }
    }

    // MARK: A lost exit

    /// A running child whose status was lost waits for its pipes, then fails with the error.
    @Test func aLostExitWaitsForThePipesThenRejects() {
        var machine = Self.machine(.running)
        #expect(machine.exitLost(Self.lost) == .awaitPipes)
        #expect(machine.signalRequested() == .refuse)
        #expect(machine.isStopping)
        guard case .none = machine.pipeFinished(allPipesClosed: false) else { Issue.record("settled with a pipe open"); return }
        guard case .rejectLost(let error) = machine.pipeFinished(allPipesClosed: true) else { Issue.record("not rejected"); return }
        #expect(error.detail == Self.lost.detail)
        guard case .settled = machine.state else { Issue.record("not settled: \(machine.state)"); return }
    }

    /// A stopped child whose status was lost does not wait for its pipes, and a stop asked
    /// for after the loss closes them.
    @Test func aLostExitDuringAStopClosesThePipes() {
        var stopping = Self.machine(.stopping)
        #expect(stopping.exitLost(Self.lost) == .closePipesAfterStop)
        var lost = Self.machine(.exitLost)
        guard case .closePipes = lost.stopRequested(.shutdown) else { Issue.record("pipes not closed"); return }
        guard case .rejectLost = lost.pipeFinished(allPipesClosed: true) else { Issue.record("not rejected"); return }
    }

    @Test func nothingActsOnASettledChild() {
        var machine = Self.machine(.settled)
        for reason in [ChildProcessStateMachine.StopReason.cancelled, .shutdown] {
            guard case .none = machine.stopRequested(reason) else { Issue.record("\(reason) acted"); return }
        }
        #expect(machine.isStopping)  // counted as no loss by a shutdown
    }

    @Test func everyPhaseIsReached() {
        for phase in Phase.allCases {
            let machine = Self.machine(phase)
            let reached: Bool
            switch (phase, machine.state) {
            case (.starting, .starting), (.cancelledBeforeStart, .cancelledBeforeStart), (.running, .running), (.stopping, .stopping),
                (.exited, .exited(_, reason: nil)), (.exitedWhileStopping, .exited(_, reason: .some)), (.exitLost, .exitLost),
                (.settled, .settled):
                reached = true
            default:
                reached = false
            }
            #expect(reached, "\(phase): \(machine.state)")
        }
    }
}

/// The events that cannot arrive in a phase stop the program.
@Suite struct ChildProcessImpossibleEventTests {
    @Test func startingTwiceStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = ChildProcessStateMachineTests.machine(.running)
            _ = machine.startRequested(loopShuttingDown: false)
        }
    }

    @Test func aLimitBeforeTheStartStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = ChildProcessStateMachine(teardown: [])
            _ = machine.stopRequested(.outputLimit(UVError(.outputLimitExceeded, operation: "spawn")))
        }
    }

    @Test func aTeardownWaitEndingWithoutAStopStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = ChildProcessStateMachineTests.machine(.running)
            _ = machine.teardownStepElapsed()
        }
    }

    @Test func beingReapedTwiceStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = ChildProcessStateMachineTests.machine(.exited)
            _ = machine.exited(.exited(0))
        }
    }

    @Test func aLostExitAfterTheExitStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = ChildProcessStateMachineTests.machine(.exited)
            _ = machine.exitLost(ChildProcessStateMachineTests.lost)
        }
    }

    @Test func anExitAfterALostExitStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = ChildProcessStateMachineTests.machine(.exitLost)
            _ = machine.exited(.exited(0))
        }
    }

    @Test func aSpawnReportAfterTheSpawnStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = ChildProcessStateMachineTests.machine(.running)
            machine.spawned()
        }
    }
}
