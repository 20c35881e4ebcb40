import Testing

@testable import PromiseUV

/// One file watch's phases, every event in every phase alone: no loop, no inotify.
@Suite struct FileWatchStateMachineTests {
    typealias Machine = FileWatchStateMachine<String>

    /// The phases, named for the table tests (the ending one ends with "gone").
    enum Phase: String, CaseIterable {
        case starting, watching, watchingWithFlushQueued, ending, ended
    }

    static func machine(_ phase: Phase) -> Machine {
        var machine = Machine()
        switch phase {
        case .starting:
            break
        case .watching:
            #expect(machine.startRequested(cancelled: false, loopShuttingDown: false) == .start)
            machine.started()
        case .watchingWithFlushQueued:
            machine = Self.machine(.watching)
            let queues = machine.changesAdded()
            #expect(queues)
        case .ending:
            machine = Self.machine(.watching)
            let queuesForEnd = machine.endRequested("gone")
            #expect(queuesForEnd)
        case .ended:
            #expect(machine.stopRequested() == .close)
        }
        #expect(Self.phase(of: machine) == phase)
        return machine
    }

    static func phase(of machine: Machine) -> Phase {
        switch machine.state {
        case .starting: .starting
        case .watching(flushQueued: false): .watching
        case .watching(flushQueued: true): .watchingWithFlushQueued
        case .ending(let failure):
            failure == "gone" ? .ending : .ended  // another failure would be a mistake: it fails the check
        case .ended: .ended
        }
    }

    @Test func aStartedWatchReadsEventsUntilItStops() {
        var machine = Machine()
        #expect(!machine.readsEvents)
        #expect(!machine.isWatching)
        #expect(machine.startRequested(cancelled: false, loopShuttingDown: false) == .start)
        #expect(!machine.readsEvents, "not before its handle is open")
        machine.started()
        #expect(machine.readsEvents)
        #expect(machine.isWatching)
        #expect(machine.stopRequested() == .close)
        #expect(!machine.readsEvents)
        #expect(machine.stopRequested() == .none, "a second stop does nothing")
    }

    @Test(arguments: [
        (false, false, Machine.StartAction.start, Phase.starting),
        (true, false, .endCancelled, .ended),
        // A cancellation wins over the shutdown: the consumer asked first.
        (true, true, .endCancelled, .ended),
        (false, true, .endShutDown, .ended),
    ])
    func theQueuedStart(cancelled: Bool, shuttingDown: Bool, action: Machine.StartAction, next: Phase) {
        var machine = Machine()
        #expect(machine.startRequested(cancelled: cancelled, loopShuttingDown: shuttingDown) == action)
        #expect(Self.phase(of: machine) == next)
    }

    @Test func aStartAfterTheStopDoesNothing() {
        var machine = Self.machine(.ended)
        #expect(machine.startRequested(cancelled: false, loopShuttingDown: false) == .none)
        #expect(Self.phase(of: machine) == .ended)
    }

    @Test func aFailedStartEndsTheWatch() {
        var machine = Machine()
        _ = machine.startRequested(cancelled: false, loopShuttingDown: false)
        machine.startFailed()
        #expect(Self.phase(of: machine) == .ended)
        #expect(machine.stopRequested() == .none)
    }

    @Test func oneFlushIsQueuedForTheChangesOfAPoll() {
        var machine = Self.machine(.watching)
        let first = machine.changesAdded()
        #expect(first, "the first change queues a flush")
        let second = machine.changesAdded()
        let third = machine.changesAdded()
        #expect(!second && !third, "the next ones wait for it")
        #expect(machine.flushRan() == .deliver)
        #expect(Self.phase(of: machine) == .watching)
        let afterTheFlush = machine.changesAdded()
        #expect(afterTheFlush, "after the flush, a change queues the next")
    }

    @Test func anEndAfterDeliveryQueuesAFlushUnlessOneIsQueued() {
        var idle = Self.machine(.watching)
        let idleQueues = idle.endRequested("gone")
        #expect(idleQueues)
        #expect(!idle.isWatching)
        #expect(idle.readsEvents, "the poll's other events are still read")
        var busy = Self.machine(.watchingWithFlushQueued)
        let busyQueues = busy.endRequested("gone")
        #expect(!busyQueues, "the queued flush delivers and ends")
        for var machine in [idle, busy] {
            let changeQueues = machine.changesAdded()
            #expect(!changeQueues, "changes of the same poll join the queued flush")
            let laterQueues = machine.endRequested("later")
            #expect(!laterQueues, "the first failure counts")
            #expect(machine.flushRan() == .deliverThenStop("gone"))
            #expect(machine.stopRequested() == .close)
            #expect(Self.phase(of: machine) == .ended)
        }
    }

    @Test(arguments: [Phase.starting, .watching, .watchingWithFlushQueued, .ending])
    func everyPhaseBeforeTheEndStops(phase: Phase) {
        var machine = Self.machine(phase)
        #expect(machine.stopRequested() == .close)
        #expect(Self.phase(of: machine) == .ended)
        #expect(!machine.readsEvents)
    }

    @Test func aFlushQueuedBeforeTheStopDoesNothing() {
        var machine = Self.machine(.watchingWithFlushQueued)
        #expect(machine.stopRequested() == .close)
        #expect(machine.flushRan() == .none)
    }
}

/// The events that cannot arrive in a phase stop the program.
@Suite struct FileWatchImpossibleEventTests {
    @Test func startingTwiceStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = FileWatchStateMachineTests.machine(.watching)
            _ = machine.startRequested(cancelled: false, loopShuttingDown: false)
        }
    }

    @Test func changesBeforeTheStartStop() async {
        await #expect(processExitsWith: .failure) {
            var machine = FileWatchStateMachine<String>()
            _ = machine.changesAdded()
        }
    }

    @Test func anEndAfterDeliveryOnceEndedStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = FileWatchStateMachineTests.machine(.ended)
            _ = machine.endRequested("gone")
        }
    }

    @Test func aFlushNobodyQueuedStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = FileWatchStateMachineTests.machine(.watching)
            _ = machine.flushRan()
        }
    }

    @Test func startedTwiceStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = FileWatchStateMachineTests.machine(.watching)
            machine.started()
        }
    }
}
