import Foundation
import Testing

// PromiseCore's rule for what a program carries: the compiler keeps every public function of a
// module in every program that links it (it marks them retained, so the `--gc-sections` that
// SwiftPM passes cannot drop them), so an operator a program never calls would still cost it
// bytes. Every public function, initializer, subscript and computed property of PromiseCore is
// therefore `@_alwaysEmitIntoClient`: its code is emitted into the modules that call it and
// into no other. The exceptions are listed below, each with why it stays in the module.
// `scripts/check-core-cost` measures the result.

/// The public declarations of PromiseCore that are not `@_alwaysEmitIntoClient`, keyed by file
/// and declaration line, with the reason.
private let staysInTheModule: [String: String] = [
    // Witnesses of protocol requirements the module itself calls through the protocol: the
    // conformance's witness table needs the module's copy, so emitting into callers saves nothing.
    "DispatchQueue+ExecutionContext.swift|public func executeAfter(_ delay: Duration, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {":
        "witness of ExecutionContext.executeAfter",
    "ExecutionContext.swift|public func executeAfter(_ delay: Duration, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {":
        "default implementation of ExecutionContext.executeAfter",
    "InvalidatableQueue.swift|public func execute(_ work: @escaping @Sendable () -> Void) {": "witness of ExecutionContext.execute",
    "InvalidatableQueue.swift|public func executeAfter(_ delay: Duration, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {":
        "witness of ExecutionContext.executeAfter",
    "InvalidatableQueue.swift|public func submit(_ job: ContextJob) {": "witness of ExecutionContext.submit",
    "InvalidatableQueue.swift|public func submit(_ job: ContextJob, after delay: Duration) -> ScheduledWork {":
        "witness of ExecutionContext.submit(_:after:)",
    "PromiseDiagnostic.swift|public var description: String { name }": "witness of CustomStringConvertible",
    "PromiseError.swift|public var description: String { libraryErrorDescription(cCode: nil) }": "witness of CustomStringConvertible",
    "PromiseError.swift|public var description: String { raw.rawValue }": "witness of CustomStringConvertible",
    // Called by the module's own code on its usual paths, so the module keeps a copy anyway.
    "PromiseError.swift|public init(_ code: Code, message: String, underlying: (any Error)? = nil) {":
        "every rejection the module makes",
    "PromiseError.swift|public var underlying: (any Error)? { cause.error }": "the description of every library error",
    "Promises.swift|public static var defaultContext: any ExecutionContext {": "every operator given no context",
    "Promises.swift|public static var diagnosticsHandler: @Sendable (PromiseDiagnostic) -> Void {": "every diagnostic report",
    "ScheduledWork.swift|public func cancel() {": "timeouts, delays and retries cancel their timers",
    "Backoff.swift|public func delay(beforeRetry retry: Int, using generator: inout some RandomNumberGenerator) -> Duration {":
        "the retry loop",
    "CatchPolicy.swift|public func handles(_ error: any Error) -> Bool {": "every catch and recover",
    // Small, and built on the type's private state, which stays private.
    "AwaitPromise.swift|public func whenSettled(_ body: @escaping @Sendable () -> Void) {": "private state",
    "AwaitPromise.swift|public var isSettled: Bool { settled() }": "private state",
    "Backoff.swift|public static func constant(_ delay: Duration) -> Backoff {": "private state",
    "Backoff.swift|public static func exponential(": "private state",
    "ContextRegistry.swift|public static func register(_ advisor: any BlockingWaitAdvisor, for id: ObjectIdentifier) {": "private state",
    "ContextRegistry.swift|public static func unregister(_ id: ObjectIdentifier) {": "private state",
    "InvalidatableQueue.swift|public func invalidate() {": "private state",
    "InvalidatableQueue.swift|public init(queue: DispatchQueue) {": "private state",
    "InvalidatableQueue.swift|public var isValid: Bool { valid.load(ordering: .acquiring) }": "private state",
    "ScheduledWork.swift|public init(cancel: @escaping @Sendable () -> Void) {": "private state",
]

@Suite struct EmittedIntoCallersTests {
    @Test func everyPublicOperatorIsEmittedIntoItsCallersOrListed() throws {
        let declarations = try publicDeclarationsWithBodies()
        // The scan must see the module: PromiseCore has well over a hundred such declarations.
        #expect(declarations.count > 100, "the source scan found too little: \(declarations.count)")
        let kept = declarations.filter { !$0.emittedIntoClient }.map(\.key)
        let unlisted = Set(kept).subtracting(staysInTheModule.keys)
        #expect(
            unlisted.isEmpty,
            """
            public declarations of PromiseCore that every program would carry: mark them \
            @_alwaysEmitIntoClient, or list them in staysInTheModule with the reason: \(unlisted.sorted())
            """
        )
        let stale = Set(staysInTheModule.keys).subtracting(kept)
        #expect(stale.isEmpty, "staysInTheModule names declarations that are gone or now emitted into callers: \(stale.sorted())")
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
            """
        let found = declarationsWithBodies(in: text, file: "F.swift")
        #expect(
            found.map(\.key) == [
                "F.swift|public func emitted() -> Int { 1 }", "F.swift|public func inlinable() -> Int { 2 }",
                "F.swift|public func plain() -> Int { 3 }", "F.swift|public var computed: Int { 6 }",
            ])
        #expect(found.map(\.emittedIntoClient) == [true, false, false, false])
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
    let modifiers = ["static ", "convenience ", "final ", "nonisolated ", "mutating ", "override "]
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
        guard protocolDepth == nil, trimmed.hasPrefix("public ") else { continue }
        var rest = trimmed.dropFirst("public ".count)
        while let modifier = modifiers.first(where: { rest.hasPrefix($0) }) { rest = rest.dropFirst(modifier.count) }
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
