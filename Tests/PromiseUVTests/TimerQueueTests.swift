@testable import PromiseUV
import Testing

/// The timer queue alone (loop-thread state, so no loop needed), against a sorted-array model.
@Suite struct TimerQueueTests {
    /// A deterministic generator, so a failure replays.
    struct SplitMix {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
    }

    @Test(arguments: [1, 2, 3, 4, 5])
    func insertsRemovalsAndExpiriesMatchASortedModel(seed: UInt64) {
        var random = SplitMix(state: seed)
        let queue = TimerQueue()
        var live: [TimerEntry] = []
        var now: UInt64 = 1_000
        var popped: [TimerEntry] = []
        for _ in 0..<20_000 {
            switch random.next(10) {
            case 0..<6:
                let entry = TimerEntry()
                queue.insert(entry, duration: UInt64(random.next(40)), now: now)
                live.append(entry)
            case 6..<8 where !live.isEmpty:
                let entry = live.remove(at: random.next(live.count))
                #expect(queue.remove(entry))
                #expect(!queue.remove(entry), "a removed timer is gone")
            default:
                now += UInt64(random.next(5))
                let due = live.filter { $0.expiry <= now }.sorted(by: firesFirst)
                var fired: [TimerEntry] = []
                while let entry = queue.popExpired(now: now) { fired.append(entry) }
                #expect(fired.map(ObjectIdentifier.init) == due.map(ObjectIdentifier.init))
                live.removeAll { $0.expiry <= now }
                popped += fired
            }
            #expect(queue.count == live.count)
        }
        #expect(queue.nextExpiry == live.map(\.expiry).min())
        let rest = queue.removeAll()
        #expect(Set(rest.map(ObjectIdentifier.init)) == Set(live.map(ObjectIdentifier.init)))
        #expect(queue.count == 0 && queue.nextExpiry == nil)
        #expect(!popped.isEmpty)
    }

    private func firesFirst(_ a: TimerEntry, _ b: TimerEntry) -> Bool {
        a.expiry != b.expiry ? a.expiry < b.expiry : a.sequence < b.sequence
    }

    @Test func durationsRoundUpToWholeMilliseconds() {
        #expect(Duration.zero.uvMilliseconds == 0)
        #expect(Duration.milliseconds(-5).uvMilliseconds == 0)
        #expect(Duration.microseconds(1).uvMilliseconds == 1)
        #expect(Duration.milliseconds(3).uvMilliseconds == 3)
        #expect(Duration.microseconds(3_001).uvMilliseconds == 4)
        #expect(Duration.seconds(2).uvMilliseconds == 2_000)
        #expect(Duration.seconds(Int64.max).uvMilliseconds == 1 << 50)
    }
}
