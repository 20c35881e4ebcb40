import Foundation
import Testing

/// PromiseCore keeps its state in named types: a tuple type alias standing in for a struct
/// (and the forwarding properties it needs) is refused, wherever in the module it is.
@Suite struct NamedStateTests {
    @Test func noTupleStandsInForANamedType() throws {
        let directory = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/PromiseCore")
        let files = try #require(FileManager.default.enumerator(atPath: directory.path))
        var scanned = 0
        var aliases: [String] = []
        for case let file as String in files where file.hasSuffix(".swift") {
            scanned += 1
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where isTupleAlias(line) {
                aliases.append("\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(scanned > 40, "the scan found too few files under \(directory.path): \(scanned)")
        #expect(aliases.isEmpty, "make each a struct with named fields: \(aliases)")
    }

    @Test func theScanTellsATupleAliasFromOtherAliases() {
        #expect(isTupleAlias("    typealias State = (count: Int, done: Bool)"))
        #expect(isTupleAlias("package typealias Hooks = ("))
        #expect(isTupleAlias("@usableFromInline typealias Pair = (Int, Int)"))
        #expect(!isTupleAlias("typealias Hook = @convention(c) (UnsafeMutableRawPointer?) -> Void"))
        #expect(!isTupleAlias("typealias Body = (Int) -> Void"))
        #expect(!isTupleAlias("typealias Handler = @Sendable (Result<Int, any Error>) -> Void"))
        #expect(!isTupleAlias("/// typealias State = (count: Int, done: Bool)"))
    }
}

/// Whether a source line declares a type alias for a tuple (not for a function type).
private func isTupleAlias(_ line: some StringProtocol) -> Bool {
    let code = String(line).components(separatedBy: "//")[0]
    guard let range = code.range(of: #"\btypealias\s+\w+\s*=\s*\("#, options: .regularExpression) else { return false }
    let rest = code[range.upperBound...]
    // `(A, B) -> C` is a function type; a tuple alias has no arrow after its closing parenthesis.
    return !rest.contains("->")
}
