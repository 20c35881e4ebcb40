import Foundation
import Testing

// PromiseCore's rule for what a program carries, and its measurement, are written once, at
// the top of `Promise` (Promise.swift): every public function, initializer, subscript and
// computed property of PromiseCore is `@_alwaysEmitIntoClient`, witnesses of protocol
// requirements included (the conformance's witness thunk holds the code), so that a program
// carries only the operators it calls. `scripts/check-core-cost` reports the bytes.

@Suite struct EmittedIntoCallersTests {
    @Test func everyPublicOperatorIsEmittedIntoItsCallers() throws {
        let declarations = try publicDeclarationsWithBodies()
        // The scan must see the module: PromiseCore has well over a hundred such declarations.
        #expect(declarations.count > 100, "the source scan found too little: \(declarations.count)")
        let kept = declarations.filter { !$0.emittedIntoClient }.map(\.key)
        #expect(
            kept.isEmpty,
            "public declarations of PromiseCore that every program would carry: mark them @_alwaysEmitIntoClient: \(kept.sorted())"
        )
    }

    @Test func theScanTellsEmittedFromKept() {
        let text = """
            public protocol Shape {
                func area() -> Double
            }
            /// Documented.
            @_alwaysEmitIntoClient
            @discardableResult
            public func emitted() -> Int { 1 }
            @inlinable
            public func inlinable() -> Int { 2 }
            public func plain() -> Int { 3 }
            public let stored = 4
            public var storedVariable: Int = 5
            public var computed: Int { 6 }
            nonisolated(nonsending) public func waits() async -> Int { 7 }
            """
        let found = declarationsWithBodies(in: text, file: "F.swift")
        #expect(
            found.map(\.key) == [
                "F.swift|public func emitted() -> Int { 1 }", "F.swift|public func inlinable() -> Int { 2 }",
                "F.swift|public func plain() -> Int { 3 }", "F.swift|public var computed: Int { 6 }",
                "F.swift|nonisolated(nonsending) public func waits() async -> Int { 7 }",
            ])
        #expect(found.map(\.emittedIntoClient) == [true, false, false, false, false])
    }
}

/// One public declaration with a body: where it is, and whether it is emitted into callers.
private struct PublicDeclaration {
    /// `File.swift|` and the declaration's first line, trimmed.
    let key: String
    let emittedIntoClient: Bool
}

/// Every public function, initializer, subscript and computed property with a body in
/// `Sources/PromiseCore`, `Internal/` included.
private func publicDeclarationsWithBodies() throws -> [PublicDeclaration] {
    let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/PromiseCore")
    guard let files = FileManager.default.enumerator(atPath: directory.path) else { return [] }
    var found: [PublicDeclaration] = []
    for case let file as String in files where file.hasSuffix(".swift") {
        let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
        found += declarationsWithBodies(in: text, file: URL(fileURLWithPath: file).lastPathComponent)
    }
    return found
}

/// The public declarations with a body in one file's text (a protocol's requirements have none;
/// a stored property is not code).
private func declarationsWithBodies(in text: String, file: String) -> [PublicDeclaration] {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let modifiers = [
        "public ", "static ", "convenience ", "final ", "nonisolated(nonsending) ", "nonisolated ", "mutating ", "override ",
    ]
    var found: [PublicDeclaration] = []
    var depth = 0
    var protocolDepth: Int?
    for (number, line) in lines.enumerated() {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("public protocol ") { protocolDepth = depth }
        defer {
            depth += line.filter { $0 == "{" }.count - line.filter { $0 == "}" }.count
            if let start = protocolDepth, depth <= start, line.contains("}") { protocolDepth = nil }
        }
        guard protocolDepth == nil else { continue }
        // Modifiers come in any order around `public` (`nonisolated(nonsending) public func`).
        var rest = Substring(trimmed)
        var isPublic = false
        while let modifier = modifiers.first(where: { rest.hasPrefix($0) }) {
            if modifier == "public " { isPublic = true }
            rest = rest.dropFirst(modifier.count)
        }
        guard isPublic else { continue }
        let isFunction =
            rest.hasPrefix("func ") || rest.hasPrefix("init(") || rest.hasPrefix("init<")
            || rest.hasPrefix("subscript")
        // A computed property opens its body on its first line; a stored one has none or an `=`.
        let isComputed = rest.hasPrefix("var ") && trimmed.contains("{") && !trimmed.contains(" = ")
        guard isFunction || isComputed else { continue }
        var attributes = number - 1
        var emitted = false
        while attributes >= 0, lines[attributes].trimmingCharacters(in: .whitespaces).hasPrefix("@") {
            if lines[attributes].contains("@_alwaysEmitIntoClient") { emitted = true }
            attributes -= 1
        }
        found.append(PublicDeclaration(key: file + "|" + trimmed, emittedIntoClient: emitted))
    }
    return found
}
