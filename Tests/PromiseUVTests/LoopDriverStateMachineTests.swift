import Testing

@testable import PromiseUV

/// Which thread runs a loop and whether its inbox is open, every event alone: no loop, no
/// semaphore, no thread. The events that cannot happen stop the program
/// (`LoopDriverImpossibleEventTests`).
@Suite struct LoopDriverStateMachineTests {
    /// Stands for a thread standing by (a semaphore in `LoopCore`).
    final class Standby {}
    typealias Machine = LoopDriverStateMachine<Standby, Int>

    /// The drivers, without what they carry, so tables can name them.
    enum Phase: CaseIterable {
        case nobody, caller, thread, blockingWait

        init<S, J>(_ driver: LoopDriverStateMachine<S, J>.Driver) {
            // Exhaustive: a new driver fails to compile here until it has a phase.
            switch driver {
            case .nobody: self = .nobody
            case .caller: self = .caller
            case .thread: self = .thread
            case .blockingWait: self = .blockingWait
            }
        }
    }

    static func machine(in phase: Phase) -> Machine {
        var machine = Machine()
        switch phase {
        case .nobody: break
        case .caller: #expect(machine.claimForRun(accepting: true) == .claimed)
        case .thread: #expect(machine.claimForRun(accepting: true, thread: "worker") == .claimed)
        case .blockingWait: #expect(machine.claimForWait(Standby(), accepting: true) == .claimed)
        }
        #expect(Phase(machine.driver) == phase)
        return machine
    }

    static func standbys(_ machine: Machine) -> [Standby] {
        if case .blockingWait(let standbys) = machine.driver { return standbys }
        return []
    }

    @Test(arguments: [
        (Phase.nobody, true, Machine.RunClaim.claimed, Phase.caller),
        (.nobody, false, .shutDown, .nobody),
        (.caller, true, .alreadyRunning, .caller),
        (.thread, true, .alreadyRunning, .thread),
        (.blockingWait, true, .alreadyRunning, .blockingWait),
        (.caller, false, .shutDown, .caller),
    ])
    func aRunClaim(from phase: Phase, accepting: Bool, claim: Machine.RunClaim, next: Phase) {
        var machine = Self.machine(in: phase)
        #expect(machine.claimForRun(accepting: accepting) == claim)
        #expect(Phase(machine.driver) == next)
    }

    @Test func aThreadClaimNamesTheThreadForTheReport() {
        var machine = Machine()
        #expect(machine.claimForRun(accepting: true, thread: "worker") == .claimed)
        #expect(machine.shutdownBegan() == .runningThread(named: "worker"))
    }

    @Test(arguments: [true, false])
    func aThreadThatNeverStartedGivesTheLoopBackOrDrivesTheShutdown(accepting: Bool) {
        var machine = Self.machine(in: .thread)
        #expect(machine.threadDidNotStart(accepting: accepting) == !accepting)
        #expect(Phase(machine.driver) == (accepting ? .nobody : .caller))
    }

    @Test(arguments: [
        (Phase.nobody, true, Machine.WaitClaim.claimed, Phase.blockingWait),
        (.nobody, false, .declined, .nobody),
        (.caller, true, .declined, .caller),
        (.thread, true, .declined, .thread),
        (.blockingWait, true, .standingBy, .blockingWait),
        (.blockingWait, false, .declined, .blockingWait),
    ])
    func aBlockingWaitsClaim(from phase: Phase, accepting: Bool, claim: Machine.WaitClaim, next: Phase) {
        var machine = Self.machine(in: phase)
        #expect(machine.claimForWait(Standby(), accepting: accepting) == claim)
        #expect(Phase(machine.driver) == next)
    }

    @Test func threadsStandingByAreWokenOnceWhenTheWaitGivesTheLoopUp() {
        var machine = Self.machine(in: .blockingWait)
        let first = Standby(), second = Standby(), third = Standby()
        for standby in [first, second, first, third] {
            #expect(machine.claimForWait(standby, accepting: true) == .standingBy)
        }
        #expect(Self.standbys(machine).map(ObjectIdentifier.init) == [first, second, third].map(ObjectIdentifier.init), "each once, in order")
        machine.leaveStandby(second)
        let (woken, drivesShutdown) = machine.releaseWaitClaim(accepting: true)
        #expect(woken.map(ObjectIdentifier.init) == [first, third].map(ObjectIdentifier.init))
        #expect(!drivesShutdown)
        #expect(Phase(machine.driver) == .nobody)
        // One of them takes the loop over.
        #expect(machine.claimForWait(third, accepting: true) == .claimed)
    }

    @Test func aWaitEndingAfterAShutdownWasAskedForRunsTheLoopThroughIt() {
        var machine = Self.machine(in: .blockingWait)
        let standby = Standby()
        #expect(machine.claimForWait(standby, accepting: true) == .standingBy)
        #expect(machine.shutdownBegan() == .runningThread(named: nil), "the waiting thread is left to process it")
        let (woken, drivesShutdown) = machine.releaseWaitClaim(accepting: false)
        #expect(drivesShutdown, "the shutdown may still wait for pool work or a child; nobody else runs the loop")
        #expect(woken.map(ObjectIdentifier.init) == [ObjectIdentifier(standby)])
        #expect(Phase(machine.driver) == .caller)
        // The woken threads find the loop shut down and wait for their promises.
        #expect(machine.claimForWait(standby, accepting: false) == .declined)
    }

    @Test(arguments: [Phase.nobody, .caller, .thread])
    func leavingAStandbyThatIsGoneChangesNothing(in phase: Phase) {
        var machine = Self.machine(in: phase)
        machine.leaveStandby(Standby())
        #expect(Phase(machine.driver) == phase)
    }

    @Test(arguments: [Phase.caller, .thread])
    func aRunEndingLeavesTheLoopToTheNextClaim(from phase: Phase) {
        var machine = Self.machine(in: phase)
        machine.runEnded()
        #expect(Phase(machine.driver) == .nobody)
        #expect(machine.claimForRun(accepting: true) == .claimed)
    }

    @Test(arguments: [
        (Phase.nobody, Machine.ShutdownDriver.caller, Phase.caller),
        (.caller, .runningThread(named: nil), .caller),
        (.thread, .runningThread(named: "worker"), .thread),
        (.blockingWait, .runningThread(named: nil), .blockingWait),
    ])
    func whoFinishesAShutdown(from phase: Phase, driver: Machine.ShutdownDriver, next: Phase) {
        var machine = Self.machine(in: phase)
        #expect(machine.shutdownBegan() == driver)
        #expect(Phase(machine.driver) == next)
    }

    @Test func theInboxClosesThenHoldsRefusedJobsUntilTheLoopThreadFinishes() {
        var machine = Self.machine(in: .caller)
        #expect(machine.inboxIsOpen)
        #expect(machine.adopt(1) == .notClosed)
        machine.inboxClosed()
        #expect(!machine.inboxIsOpen)
        #expect(machine.adopt(2) == .held)
        #expect(machine.adopt(3) == .held)
        let finished = machine.finished()
        #expect(finished.adopted == [2, 3])
        #expect(finished.standbys.isEmpty)
        #expect(Phase(machine.driver) == .nobody)
        #expect(!machine.inboxIsOpen)
        #expect(machine.adopt(4) == .runNow)
    }

    @Test func aCloseDuringABlockingWaitWakesTheThreadsStandingBy() {
        var machine = Self.machine(in: .blockingWait)
        let standby = Standby()
        #expect(machine.claimForWait(standby, accepting: true) == .standingBy)
        machine.inboxClosed()
        let finished = machine.finished()
        #expect(finished.standbys.map(ObjectIdentifier.init) == [ObjectIdentifier(standby)])
        #expect(machine.claimForWait(standby, accepting: false) == .declined)
    }
}

/// The events that cannot happen stop the program.
@Suite struct LoopDriverImpossibleEventTests {
    typealias Machine = LoopDriverStateMachine<LoopDriverStateMachineTests.Standby, Int>

    @Test func aThreadThatWasNeverClaimedCannotFailToStart() async {
        await #expect(processExitsWith: .failure) {
            var machine = Machine()
            _ = machine.threadDidNotStart(accepting: true)
        }
    }

    @Test func releasingAWaitClaimNobodyHasStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = Machine()
            _ = machine.claimForRun(accepting: true)
            _ = machine.releaseWaitClaim(accepting: true)
        }
    }

    @Test func aRunEndingWhenNobodyRunsStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = Machine()
            machine.runEnded()
        }
    }

    @Test func closingTheInboxTwiceStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = Machine()
            machine.inboxClosed()
            machine.inboxClosed()
        }
    }

    @Test func finishingWithAnOpenInboxStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = Machine()
            _ = machine.finished()
        }
    }
}
