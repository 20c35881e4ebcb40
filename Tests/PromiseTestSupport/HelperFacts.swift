/// The `key: value` lines a helper process printed, looked up by key: `fact("error")`.
///
/// A key the helper never printed reads as a note holding its whole output, so the failing
/// expectation shows what the helper said instead of an empty string.
package struct HelperFacts {
    private let facts: [String: String]
    private let output: String

    /// Reads the `key: value` lines of `output`; other lines are skipped.
    package init(_ output: String) {
        self.output = output
        var facts: [String: String] = [:]
        for line in output.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            facts[String(line[..<colon])] = String(line[line.index(after: colon)...].drop(while: { $0 == " " }))
        }
        self.facts = facts
    }

    /// The value printed for `key`.
    package func callAsFunction(_ key: String) -> String {
        facts[key] ?? "(missing; the helper said: \(output))"
    }
}
