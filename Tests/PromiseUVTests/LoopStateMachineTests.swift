import Testing

@testable import PromiseUV

/// The phases of a loop's life on its own thread and every event in each, alone: no loop, no
/// libuv, no thread. The events that cannot happen stop the program
/// (`LoopStateMachineImpossibleEventTests`).
@Suite struct LoopStateMachineTests {
    typealias Machine = LoopStateMachine
    typealias Lost = Machine.Lost

    /// The phases, without what they carry, so tables can name them.
    enum Phase: CaseIterable {
        case open, openHeldByItsThread, shuttingDown, closingHandles, lastTurn, closed

        init(_ state: Machine.State) {
            // Exhaustive: a new state fails to compile here until it has a phase.
            switch state {
            case .open(.none): self = .open
            case .open(.loopThread): self = .openHeldByItsThread
            case .shuttingDown: self = .shuttingDown
            case .closingHandles: self = .closingHandles
            case .lastTurn: self = .lastTurn
            case .closed: self = .closed
            }
        }
    }

    static let someLost = Lost(timers: 3, work: 1, signals: 2, fileWatches: 1, processes: 4)

    /// A machine in `phase`, reached through the events that lead there, with one child's
    /// handle open besides the loop's own until the loop closes.
    static func machine(in phase: Phase) -> Machine {
        var machine = Machine()
        machine.handleOpened()
        switch phase {
        case .open:
            break
        case .openHeldByItsThread:
            machine.threadClaimed()
        case .shuttingDown:
            _ = machine.shutdownBegan()
            _ = machine.rejected(someLost, poolWorkInFlight: true)
        case .closingHandles:
            _ = machine.shutdownBegan()
            _ = machine.rejected(someLost, poolWorkInFlight: false)
        case .lastTurn, .closed:
            _ = machine.shutdownBegan()
            _ = machine.rejected(someLost, poolWorkInFlight: false)
            for _ in 0...Machine.ownHandleCount { machine.handleClosed() }
            machine.loopClosed(succeeded: true)
            if phase == .closed { machine.lastTurnEnded() }
        }
        #expect(Phase(machine.state) == phase)
        return machine
    }

    @Test func aNewLoopIsOpenWithItsOwnHandles() {
        let machine = Machine()
        #expect(machine.state == .open(.none))
        #expect(machine.openHandles == Machine.ownHandleCount)
        #expect(machine.lost == nil)
        #expect(!machine.freesLoopMemory)
    }

    @Test func aThreadOfItsOwnHoldsTheLoopUntilItGivesTheClaimUp() {
        var machine = Machine()
        machine.threadClaimed()
        #expect(machine.state == .open(.loopThread))
        machine.threadUnclaimed()
        #expect(machine.state == .open(.none))
    }

    @Test(arguments: [
        (Phase.open, Machine.ShutdownAction.rejectPending(releaseThreadHold: false), Phase.shuttingDown),
        (.openHeldByItsThread, .rejectPending(releaseThreadHold: true), .shuttingDown),
        (.shuttingDown, .none, .shuttingDown),
        (.closingHandles, .none, .closingHandles),
        (.lastTurn, .none, .lastTurn),
        (.closed, .none, .closed),
    ])
    func theShutdownReachingTheLoopThread(from phase: Phase, action: Machine.ShutdownAction, next: Phase) {
        var machine = Self.machine(in: phase)
        let before = machine.state
        #expect(machine.shutdownBegan() == action)
        #expect(Phase(machine.state) == next)
        if action == .none { #expect(machine.state == before, "a second shutdown changes nothing") }
    }

    @Test(arguments: [true, false])
    func whatTheShutdownRejectedIsKeptToTheEnd(poolWorkInFlight: Bool) {
        var machine = Machine()
        #expect(machine.shutdownBegan() == .rejectPending(releaseThreadHold: false))
        #expect(machine.lost == Lost())
        let action = machine.rejected(Self.someLost, poolWorkInFlight: poolWorkInFlight)
        #expect(action == (poolWorkInFlight ? .none : .closeHandles))
        #expect(machine.state == (poolWorkInFlight ? .shuttingDown(lost: Self.someLost) : .closingHandles(lost: Self.someLost)))
        if poolWorkInFlight {
            #expect(machine.poolWorkFinished(stillInFlight: 0) == .closeHandles)
        }
        for _ in 0..<Machine.ownHandleCount { machine.handleClosed() }
        #expect(machine.turnEnded() == .closeLoop)
        machine.loopClosed(succeeded: true)
        machine.lastTurnEnded()
        #expect(machine.state == .closed(lost: Self.someLost, freesMemory: true))
        #expect(machine.lost == Self.someLost)
    }

    @Test func runningPoolWorkHoldsTheHandlesOpenUntilTheLastJobEnds() {
        var machine = Self.machine(in: .shuttingDown)
        #expect(machine.poolWorkFinished(stillInFlight: 2) == .none)
        #expect(machine.poolWorkFinished(stillInFlight: 1) == .none)
        #expect(Phase(machine.state) == .shuttingDown)
        #expect(machine.poolWorkFinished(stillInFlight: 0) == .closeHandles)
        #expect(machine.state == .closingHandles(lost: Self.someLost))
    }

    @Test(arguments: [Phase.open, .openHeldByItsThread])
    func poolWorkEndingOnAnOpenLoopClosesNothing(in phase: Phase) {
        var machine = Self.machine(in: phase)
        let before = machine.state
        #expect(machine.poolWorkFinished(stillInFlight: 0) == .none)
        #expect(machine.state == before)
    }

    @Test func theLoopClosesOnlyOnceEveryHandleHasClosed() {
        var machine = Self.machine(in: .closingHandles)
        // The loop's own three handles and a child's.
        for _ in 0..<Machine.ownHandleCount {
            #expect(machine.turnEnded() == .keepRunning)
            machine.handleClosed()
        }
        #expect(machine.openHandles == 1)
        #expect(machine.turnEnded() == .keepRunning, "the child's handle is still open")
        machine.handleClosed()
        #expect(machine.openHandles == 0)
        #expect(machine.turnEnded() == .closeLoop)
    }

    @Test(arguments: [Phase.open, .openHeldByItsThread, .shuttingDown])
    func noTurnClosesTheLoopBeforeItsHandlesClose(in phase: Phase) {
        var machine = Self.machine(in: phase)
        // Even with every handle closed: only the shutdown closes the loop's own handles.
        for _ in 0...Machine.ownHandleCount { machine.handleClosed() }
        #expect(machine.turnEnded() == .keepRunning)
    }

    @Test(arguments: [Phase.open, .openHeldByItsThread, .shuttingDown])
    func handlesOpenUntilTheLoopsOwnClose(in phase: Phase) {
        var machine = Self.machine(in: phase)
        let before = machine.openHandles
        machine.handleOpened()
        #expect(machine.openHandles == before + 1)
        machine.handleClosed()
        #expect(machine.openHandles == before)
    }

    @Test(arguments: [true, false])
    func theMemoryIsFreedOnlyAfterASuccessfulClose(succeeded: Bool) {
        var machine = Self.machine(in: .closingHandles)
        for _ in 0...Machine.ownHandleCount { machine.handleClosed() }
        #expect(!machine.freesLoopMemory)
        machine.loopClosed(succeeded: succeeded)
        #expect(machine.state == .lastTurn(lost: Self.someLost, freesMemory: succeeded))
        #expect(machine.freesLoopMemory == succeeded)
        #expect(machine.acceptsLateWork, "jobs resumed by the shutdown's promise still run")
        machine.lastTurnEnded()
        #expect(machine.state == .closed(lost: Self.someLost, freesMemory: succeeded))
        #expect(machine.freesLoopMemory == succeeded)
        #expect(machine.turnEnded() == .keepRunning)
    }

    @Test(arguments: [
        (Phase.open, true, true, true),
        (.openHeldByItsThread, true, true, true),
        (.shuttingDown, false, true, true),
        (.closingHandles, false, true, false),
        (.lastTurn, false, true, false),
        (.closed, false, false, false),
    ])
    func whatEachPhaseAccepts(phase: Phase, userWork: Bool, lateWork: Bool, wakeUpOpen: Bool) {
        let machine = Self.machine(in: phase)
        #expect(machine.acceptsUserWork == userWork)
        #expect(machine.acceptsLateWork == lateWork)
        #expect(machine.wakeUpHandleIsOpen == wakeUpOpen)
        #expect((machine.lost != nil) == !userWork)
        // Keep-alive holds keep the loop running only while it accepts work.
        #expect(machine.wakeUpKeepsLoopAlive(holds: 1) == userWork)
        #expect(!machine.wakeUpKeepsLoopAlive(holds: 0))
    }

    @Test func theTablesNameEveryPhase() {
        // Every phase is reachable through events; a new one fails here until `machine(in:)`
        // reaches it.
        for phase in Phase.allCases {
            #expect(Phase(Self.machine(in: phase).state) == phase)
        }
    }
}

/// The events that cannot happen in a phase stop the program.
@Suite struct LoopStateMachineImpossibleEventTests {
    @Test func aSecondThreadClaimStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = LoopStateMachine()
            machine.threadClaimed()
            machine.threadClaimed()
        }
    }

    @Test func givingUpAClaimNobodyMadeStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = LoopStateMachine()
            machine.threadUnclaimed()
        }
    }

    @Test func aClaimAfterTheShutdownStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = LoopStateMachine()
            _ = machine.shutdownBegan()
            machine.threadClaimed()
        }
    }

    @Test func aHandleOpenedWhileTheLoopsOwnCloseStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = LoopStateMachine()
            _ = machine.shutdownBegan()
            _ = machine.rejected(.init(), poolWorkInFlight: false)
            machine.handleOpened()
        }
    }

    @Test func moreHandlesClosedThanOpenedStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = LoopStateMachine()
            for _ in 0...LoopStateMachine.ownHandleCount { machine.handleClosed() }
        }
    }

    @Test func rejectionsWithoutAShutdownStop() async {
        await #expect(processExitsWith: .failure) {
            var machine = LoopStateMachine()
            _ = machine.rejected(.init(), poolWorkInFlight: false)
        }
    }

    @Test func poolWorkEndingAfterTheHandlesClosedStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = LoopStateMachine()
            _ = machine.shutdownBegan()
            _ = machine.rejected(.init(), poolWorkInFlight: false)
            _ = machine.poolWorkFinished(stillInFlight: 0)
        }
    }

    @Test func closingTheLoopWithAHandleOpenStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = LoopStateMachine()
            _ = machine.shutdownBegan()
            _ = machine.rejected(.init(), poolWorkInFlight: false)
            machine.loopClosed(succeeded: true)
        }
    }

    @Test func theLastTurnEndingBeforeTheCloseStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = LoopStateMachine()
            machine.lastTurnEnded()
        }
    }

    @Test func aHandleClosingAfterTheLoopClosedStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = LoopStateMachine()
            _ = machine.shutdownBegan()
            _ = machine.rejected(.init(), poolWorkInFlight: false)
            for _ in 0..<LoopStateMachine.ownHandleCount { machine.handleClosed() }
            machine.loopClosed(succeeded: true)
            machine.handleClosed()
        }
    }
}
