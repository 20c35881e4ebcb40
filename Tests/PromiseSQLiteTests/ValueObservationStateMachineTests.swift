@testable import PromiseSQLite
import Testing

/// `ValueObservationStateMachine` alone: every transition and the action it returns.
@Suite struct ValueObservationStateMachineTests {
    typealias Machine = ValueObservationStateMachine

    /// A machine that delivered its first value, which read `tables`.
    func delivered(reading tables: Set<String>) -> Machine {
        var machine = Machine()
        _ = machine.registered()
        _ = machine.consumerAsks()
        _ = machine.readSucceeded(tables: tables, duplicate: false)
        return machine
    }

    @Test func nothingIsReadBeforeTheCommitObservationIsInPlace() {
        var machine = Machine()
        let asked = machine.consumerAsks()
        #expect(asked == .none)
        let changed = machine.changed(tables: ["t"], everything: false)
        #expect(changed == .none)
        let registered = machine.registered()
        #expect(registered == .read)
        let again = machine.registered()
        #expect(again == .none)
        #expect(machine.phase == .reading)
    }

    @Test func aReadRunsOnlyWhenTheConsumerAsksAndTheValueIsStale() {
        var machine = Machine()
        let registered = machine.registered()
        #expect(registered == .none, "nobody asked yet")
        let asked = machine.consumerAsks()
        #expect(asked == .read)
        let delivered = machine.readSucceeded(tables: ["t"], duplicate: false)
        #expect(delivered == .deliver)
        let askedAgain = machine.consumerAsks()
        #expect(askedAgain == .none, "nothing changed: it waits")
        let other = machine.changed(tables: ["u"], everything: false)
        #expect(other == .none, "a table it did not read")
        let mine = machine.changed(tables: ["t"], everything: false)
        #expect(mine == .read)
    }

    @Test func aBurstOfCommitsIsOneReadPerConsumerTurn() {
        var machine = delivered(reading: ["t"])
        for _ in 0..<100 {
            let action = machine.changed(tables: ["t"], everything: false)
            #expect(action == .none, "the consumer has not asked")
        }
        #expect(machine.stale)
        let asked = machine.consumerAsks()
        #expect(asked == .read)
        for _ in 0..<100 {
            let action = machine.changed(tables: ["t"], everything: false)
            #expect(action == .none, "a read runs: kept for after it")
        }
        let done = machine.readSucceeded(tables: ["t"], duplicate: false)
        #expect(done == .deliver)
        #expect(machine.stale, "commits during the read make its value stale")
        let next = machine.consumerAsks()
        #expect(next == .read)
    }

    @Test func commitsDuringAReadCountOnlyForTheTablesItUsed() {
        var machine = delivered(reading: ["t"])
        _ = machine.changed(tables: ["t"], everything: false)
        _ = machine.consumerAsks()
        _ = machine.changed(tables: ["u"], everything: false)
        _ = machine.readSucceeded(tables: ["t", "v"], duplicate: false)
        #expect(!machine.stale, "u is not among the tables the read used")
        _ = machine.consumerAsks()
        _ = machine.changed(tables: ["v"], everything: false)
        #expect(machine.phase == .reading, "the new region counts: v was read last time")
    }

    @Test func aSchemaOrExternalChangeAlwaysCounts() {
        var machine = delivered(reading: ["t"])
        _ = machine.consumerAsks()
        let action = machine.changed(tables: [], everything: true)
        #expect(action == .read)
    }

    @Test func aDuplicateIsNotDeliveredAndTheConsumerGoesOnWaiting() {
        var machine = delivered(reading: ["t"])
        _ = machine.consumerAsks()
        _ = machine.changed(tables: ["t"], everything: false)
        let duplicate = machine.readSucceeded(tables: ["t"], duplicate: true)
        #expect(duplicate == .none)
        #expect(machine.consumerWaits)
        let changed = machine.changed(tables: ["t"], everything: false)
        #expect(changed == .read)
        _ = machine.changed(tables: ["t"], everything: false)  // during the read
        let during = machine.readSucceeded(tables: ["t"], duplicate: true)
        #expect(during == .read, "a commit during the read makes its duplicate stale: read again at once")
    }

    @Test func finishingIsFinalFromEveryPhase() {
        let registering = Machine()
        let idle = delivered(reading: ["t"])
        var reading = delivered(reading: ["t"])
        _ = reading.changed(tables: ["t"], everything: false)
        _ = reading.consumerAsks()
        for machine in [registering, idle, reading] {
            var machine = machine
            let first = machine.finish()
            #expect(first == .finish)
            let second = machine.finish()
            #expect(second == .none)
            let asked = machine.consumerAsks()
            #expect(asked == .finish)
            let changed = machine.changed(tables: ["t"], everything: true)
            #expect(changed == .none)
            let late = machine.readSucceeded(tables: ["t"], duplicate: false)
            #expect(late == .none, "a read that finishes after the end delivers nothing")
            #expect(machine.phase == .finished)
        }
    }
}
