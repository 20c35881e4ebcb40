@testable import PromiseSignals
import Testing

/// The signal owner's bookkeeping alone: which signals need the handler installed and which
/// actions go back, for every event, with no `sigaction`, no signal and no thread. The saved
/// action is a string naming it.
@Suite struct SignalRegistryTests {
    final class Watch: SignalWatchEntry, @unchecked Sendable {
        let signals: [Int32]
        let group: ObjectIdentifier? = nil
        var live = true
        init(_ signals: [Int32]) { self.signals = signals }
        func isLive() -> Bool { live }
        func fire(_ signal: Int32) {}
        func fail(_ error: any Error) {}
    }

    typealias Registry = SignalRegistry<String>

    private func restored(_ restore: [(Int32, String)]) -> [String] {
        restore.map { "\($0.0)=\($0.1)" }
    }

    @Test func theFirstWatchOfASignalInstallsAndTheLastPutsTheActionBack() {
        var registry = Registry()
        #expect(registry.unwatched([2, 15]) == [2, 15])
        let first = registry.start(Watch([2, 15]), installed: [(2, "int"), (15, "term")])
        #expect(registry.watchedSignals == [2, 15])
        #expect(registry.unwatched([2, 10]) == [10], "a watched signal is installed once")
        let second = registry.start(Watch([2, 10]), installed: [(10, "usr1")])
        #expect(registry.watched[2]?.count == 2)

        let one = registry.remove(first)
        #expect(one.map { restored($0.restore) } == ["15=term"], "2 is still watched by the second")
        let two = registry.remove(second)
        #expect(two.map { restored($0.restore) } == ["2=int", "10=usr1"])
        #expect(registry.watchedSignals.isEmpty && registry.entries.isEmpty)
        let again = registry.remove(first)
        #expect(again == nil, "an ended watch ends once")
    }

    @Test func aSweepEndsOnlyTheDeadWatchesAndRestoresWhatNobodyWatches() {
        var registry = Registry()
        let dead = Watch([2])
        let alive = Watch([15])
        let shared = Watch([15])
        _ = registry.start(dead, installed: [(2, "int")])
        _ = registry.start(alive, installed: [(15, "term")])
        _ = registry.start(shared, installed: [])
        dead.live = false
        shared.live = false
        let swept = registry.sweep()
        #expect(swept.ended.count == 2 && swept.ended.contains { $0 === dead } && swept.ended.contains { $0 === shared })
        #expect(restored(swept.restore) == ["2=int"], "15 stays: a live watch waits for it")
        #expect(registry.watchedSignals == [15])
        let nothing = registry.sweep()
        #expect(nothing.ended.isEmpty && nothing.restore.isEmpty)
    }

    @Test func aChildLeaseRecordsBeforeTheFirstAndRestoresAfterTheLast() {
        var lease = ChildSignalLease<String>()
        let first = lease.childStarted()
        let kept = lease.record("default", ignoresChildren: false)
        let second = lease.childStarted()
        let oneLeft = lease.childClosed()
        let last = lease.childClosed()
        let count = lease.count
        let laterFirst = lease.childStarted()
        let replaced = lease.record("ignore", ignoresChildren: true)
        let laterLast = lease.childClosed()
        #expect(first && !second, "the first child records the action")
        #expect(kept == .keep, "a handler or the default stays while children run")
        #expect(replaced == .installDefault, "an ignoring action would let the kernel reap the children")
        #expect(oneLeft == nil, "one child still runs")
        #expect(last == "default" && count == 0)
        #expect(laterFirst && laterLast == "ignore", "a later first child records again, and the ignoring action comes back")
    }
}

/// The events that cannot happen stop the process. An exit test captures nothing, so each
/// has its own.
@Suite struct SignalRegistryImpossibleEventTests {
    @Test func aWatchWhoseSignalHasNoHandlerStops() async {
        await #expect(processExitsWith: .failure) {
            var registry = SignalRegistry<String>()
            _ = registry.start(SignalRegistryTests.Watch([2]), installed: [])
        }
    }

    @Test func installingAWatchedSignalAgainStops() async {
        await #expect(processExitsWith: .failure) {
            var registry = SignalRegistry<String>()
            _ = registry.start(SignalRegistryTests.Watch([2]), installed: [(2, "int")])
            _ = registry.start(SignalRegistryTests.Watch([2]), installed: [(2, "again")])
        }
    }

    @Test func closingAChildThatNeverStartedStops() async {
        await #expect(processExitsWith: .failure) {
            var lease = ChildSignalLease<String>()
            _ = lease.childClosed()
        }
    }
}
