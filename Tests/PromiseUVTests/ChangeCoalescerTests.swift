@testable import PromiseUV
import Testing

/// The pure type that merges a watch's waiting changes.
@Suite struct ChangeCoalescerTests {
    private func change(_ name: String, _ events: UVFileChange.Events = .change, exists: Bool = true) -> UVFileChange {
        UVFileChange(path: "/d/\(name)", name: name, events: events, exists: exists)
    }

    @Test func changesToOneNameMergeInPlaceAndKeepFirstEventOrder() {
        var waiting = ChangeCoalescer(overflowPath: "/d")
        waiting.add(change("a"))
        waiting.add(change("b", .rename))
        waiting.add(change("a", .rename, exists: false))
        let all = waiting.takeAll()
        #expect(all.map(\.name) == ["a", "b"])
        #expect(all[0] == UVFileChange(path: "/d/a", name: "a", events: [.change, .rename], count: 2, exists: false))
        #expect(waiting.isEmpty)
    }

    @Test func namesPastTheLimitMergeIntoOneChangeForTheDirectory() {
        var waiting = ChangeCoalescer(limit: 3, overflowPath: "/d")
        for index in 0..<10 { waiting.add(change("n\(index)", .rename)) }
        waiting.add(change("n1"))  // a name already apart still merges into its own change
        #expect(waiting.count == 4)
        let all = waiting.takeAll()
        #expect(all.prefix(3).map(\.name) == ["n0", "n1", "n2"])
        #expect(all[1].count == 2)
        #expect(all[3] == UVFileChange(path: "/d", name: nil, events: .rename, count: 7, exists: true))
    }

    @Test func takingTheFirstKeepsTheRestMergeable() {
        var waiting = ChangeCoalescer(limit: 2, overflowPath: "/d")
        waiting.add(change("a"))
        waiting.add(change("b"))
        waiting.add(change("c"))  // overflow
        #expect(waiting.takeFirst()?.name == "a")
        waiting.add(change("b"))  // merges into b
        waiting.add(change("d"))  // a slot is free again
        waiting.add(change("e"))  // overflow again
        let all = waiting.takeAll()
        #expect(all.map { $0.name ?? "nil" } == ["b", "nil", "d"])
        #expect(all[0].count == 2)
        #expect(all[1].count == 2)
        #expect(waiting.takeFirst() == nil)
    }

    @Test func aMillionEventsHoldBoundedMemory() {
        var waiting = ChangeCoalescer(overflowPath: "/d")
        for index in 0..<1_000_000 { waiting.add(change("n\(index % 5_000)")) }
        #expect(waiting.count == ChangeCoalescer.defaultLimit + 1)
        #expect(waiting.takeAll().reduce(0) { $0 + $1.count } == 1_000_000)
    }

    @Test func temporarySiblingsOfAtomicWritesAreRecognized() {
        #expect(TemporarySibling.matches(Array(".config.json.tmp-0123456789abcd".utf8)))
        #expect(TemporarySibling.matches(Array(".big.iso.download-zzzzzzzzzzzzzz".utf8)))
        #expect(!TemporarySibling.matches(Array("config.json.tmp-0123456789abcd".utf8)))  // not hidden
        #expect(!TemporarySibling.matches(Array(".config.json.tmp-0123456789ABCD".utf8)))  // not [0-9a-z]
        #expect(!TemporarySibling.matches(Array(".config.json.tmp-0123".utf8)))
        #expect(!TemporarySibling.matches(Array(".tmp-0123456789abcd".utf8)))  // no name before the tag
        #expect(!TemporarySibling.matches(Array(".notes.bak-0123456789abcd".utf8)))
    }
}
