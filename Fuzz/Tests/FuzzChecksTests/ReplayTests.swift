import Foundation
import FuzzChecks
import Testing

/// Replays the committed inputs through every fuzz target without libFuzzer: the seed corpus
/// (`Fuzz/Corpus/TARGET/`) and every input that once broke a property
/// (`Fuzz/Regressions/TARGET/`), plus a fixed pseudo-random sweep. `make fuzz` runs the
/// fuzzer itself.
@Suite("Fuzz targets, replayed")
struct ReplayTests {
    private static let fuzzDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private static func inputs(_ folder: String, _ target: FuzzTarget) -> [(name: String, bytes: [UInt8])] {
        let directory = fuzzDirectory.appendingPathComponent(folder).appendingPathComponent(target.rawValue)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.sorted().compactMap { name in
            FileManager.default.contents(atPath: directory.appendingPathComponent(name).path).map { (name, [UInt8]($0)) }
        }
    }

    @Test("the seed corpus holds", arguments: FuzzTarget.allCases)
    func corpus(_ target: FuzzTarget) {
        let inputs = Self.inputs("Corpus", target)
        #expect(inputs.count >= 5, "Fuzz/Corpus/\(target.rawValue) should hold seed inputs")
        for input in inputs {
            #expect(throws: Never.self, "Corpus/\(target.rawValue)/\(input.name)") { try target.check(input.bytes) }
        }
    }

    @Test("every input that once failed holds now", arguments: FuzzTarget.allCases)
    func regressions(_ target: FuzzTarget) {
        for input in Self.inputs("Regressions", target) {
            #expect(throws: Never.self, "Regressions/\(target.rawValue)/\(input.name)") { try target.check(input.bytes) }
        }
    }

    @Test("the regression inputs exist") func regressionInputsExist() {
        // The bugs fuzzing found: a NUL byte cutting a PromiseFS path short, and a refused
        // URL echoing a scheme of any length into its message.
        #expect(!Self.inputs("Regressions", .paths).isEmpty)
        #expect(!Self.inputs("Regressions", .urlEncoding).isEmpty)
    }

    @Test("a fixed pseudo-random sweep holds", arguments: FuzzTarget.allCases)
    func sweep(_ target: FuzzTarget) {
        var generator = SplitMix(seed: 0x5EED_0000 + UInt64(target.rawValue.utf8.count))
        for round in 0..<300 {
            let count = Int(generator.next() % 512)
            let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            #expect(throws: Never.self, "\(target.rawValue) sweep input \(round)") { try target.check(bytes) }
        }
    }
}

/// SplitMix64: a small fixed-seed generator, so the sweep is the same on every run.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
