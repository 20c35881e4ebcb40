// Every public operator, combinator and initializer that returns a promise appears in
// `DeadlockTable.cases`: built from a callback on a serial queue so that its promise cannot
// settle until that queue runs again, then awaited right there. `awaitPromise` must throw
// `deadlock` at once, whichever operator made the promise.
//
// Adding a public method that returns a `Promise` to PromiseCore or PromiseSignals? Add a case
// here (or, for a promise no context resolves, an entry in `DeadlockTable.exempt` with the
// reason). `everyPublicOperatorIsInTheTable` reads both modules' sources and fails for any
// promise-returning declaration that is in neither list.

import Dispatch
import Foundation
import PromiseCore
import Testing

/// One way to make a promise that needs `queue`, awaited on `queue` itself.
struct DeadlockCase: Sendable, CustomTestStringConvertible {
    /// The declaration, as `everyPublicOperatorIsInTheTable` names it: `then(on:_:)`.
    let operation: String
    /// Which overload or form, when the declaration has several.
    let form: String
    /// Builds the promise from a callback on `queue` and returns a wait for it (bounded, so
    /// a miss fails the test instead of hanging it).
    let make: @Sendable (_ queue: DispatchQueue, _ never: Promise<Int>) -> @Sendable () throws -> Void

    init(
        _ operation: String,
        _ form: String = "",
        _ make: @escaping @Sendable (_ queue: DispatchQueue, _ never: Promise<Int>) -> @Sendable () throws -> Void
    ) {
        self.operation = operation
        self.form = form
        self.make = make
    }

    var testDescription: String { form.isEmpty ? operation : "\(operation) \(form)" }
}

/// How long a case may wait before the miss shows: far longer than a detected deadlock takes.
private let bound: Duration = .seconds(3)

/// A wait on `promise` that gives up after ``bound``.
private func waiting<Value: Sendable>(_ promise: Promise<Value>) -> @Sendable () throws -> Void {
    { _ = try awaitPromise(promise, timeout: bound) }
}

enum DeadlockTable {
    /// Every promise-returning public declaration of PromiseCore, each made so that the
    /// promise needs `queue`. Settled inputs make the work start on `queue` at once (behind
    /// the waiting callback); `never` is a pending promise the test settles afterwards, for
    /// operators whose own work only starts later (a timer).
    static let cases: [DeadlockCase] = [
        DeadlockCase("then(on:_:)", "value") { queue, _ in waiting(Promise(1).then(on: queue) { $0 + 1 }) },
        DeadlockCase("then(on:_:)", "promise") { queue, _ in waiting(Promise(1).then(on: queue) { Promise($0 + 1) }) },
        DeadlockCase("then(on:_:)", "void") { queue, _ in waiting(Promise(1).then(on: queue) { (_: Int) in }) },
        DeadlockCase("map(on:_:)") { queue, _ in waiting(Promise(1).map(on: queue) { $0 + 1 }) },
        DeadlockCase("flatMap(on:_:)") { queue, _ in waiting(Promise(1).flatMap(on: queue) { Promise($0 + 1) }) },
        DeadlockCase("done(on:_:)") { queue, _ in waiting(Promise(1).done(on: queue) { _ in }) },
        DeadlockCase("catch(on:policy:_:)") { queue, _ in waiting(Promise<Int>(SampleError()).catch(on: queue) { _ in }) },
        DeadlockCase("recover(on:policy:_:)", "value") { queue, _ in waiting(Promise<Int>(SampleError()).recover(on: queue) { _ in 0 }) },
        DeadlockCase("recover(on:policy:_:)", "promise") { queue, _ in
            waiting(Promise<Int>(SampleError()).recover(on: queue) { _ in Promise(0) })
        },
        DeadlockCase("flatMapError(on:policy:_:)") { queue, _ in
            waiting(Promise<Int>(SampleError()).flatMapError(on: queue) { _ in Promise(0) })
        },
        DeadlockCase("always(on:_:)") { queue, _ in waiting(Promise(1).always(on: queue) {}) },
        DeadlockCase("validate(on:_:)") { queue, _ in waiting(Promise(1).validate(on: queue) { $0 > 0 }) },
        DeadlockCase("reduce(on:_:_:)") { queue, _ in waiting(Promise(0).reduce(on: queue, [1, 2]) { Promise($0 + $1) }) },
        DeadlockCase("timeout(on:_:label:)") { queue, never in waiting(never.timeout(on: queue, .milliseconds(1))) },
        DeadlockCase("delay(on:_:)") { queue, _ in waiting(Promise(1).delay(on: queue, .milliseconds(1))) },
        DeadlockCase("init(on:work:)", "value") { queue, _ in waiting(Promise<Int>(on: queue) { 1 }) },
        DeadlockCase("init(on:work:)", "promise") { queue, _ in waiting(Promise<Int>(on: queue) { Promise(1) }) },
        DeadlockCase("init(on:work:)", "fulfill/reject") { queue, _ in
            waiting(Promise<Int>(on: queue) { fulfill, _ in fulfill(1) })
        },
        DeadlockCase("map(on:_:concurrency:_:)") { queue, _ in
            waiting(Promise<Int>.map(on: queue, [1, 2, 3], concurrency: 2) { Promise($0) })
        },
        DeadlockCase("mapSettled(on:_:concurrency:_:)") { queue, _ in
            waiting(Promise<Int>.mapSettled(on: queue, [1, 2, 3], concurrency: 2) { Promise($0) })
        },
        DeadlockCase("retry(on:attempts:delay:condition:_:)") { queue, _ in
            waiting(retry(on: queue, attempts: 2, delay: .milliseconds(1)) { Promise(1) })
        },
        DeadlockCase("retry(on:attempts:backoff:condition:_:)") { queue, _ in
            waiting(retry(on: queue, attempts: 2, backoff: .constant(.milliseconds(1))) { _ in Promise(1) })
        },
        DeadlockCase("all(_:)", "array") { queue, _ in waiting(all([Promise(1), Promise(1).then(on: queue) { $0 }])) },
        DeadlockCase("all(_:)", "variadic") { queue, _ in waiting(all(Promise("a"), Promise(1).then(on: queue) { $0 })) },
        DeadlockCase("all(_:)", "static array") { queue, _ in waiting(Promise.all([Promise(1).then(on: queue) { $0 }])) },
        DeadlockCase("all(_:)", "static variadic") { queue, _ in
            waiting(Promise.all(Promise("a"), Promise(1).then(on: queue) { $0 }))
        },
        DeadlockCase("any(_:)", "array") { queue, _ in waiting(any([Promise(1).then(on: queue) { $0 }])) },
        DeadlockCase("any(_:)", "variadic") { queue, _ in waiting(any(Promise("a"), Promise(1).then(on: queue) { $0 })) },
        DeadlockCase("any(_:)", "static array") { queue, _ in waiting(Promise.any([Promise(1).then(on: queue) { $0 }])) },
        DeadlockCase("any(_:)", "static variadic") { queue, _ in
            waiting(Promise.any(Promise("a"), Promise(1).then(on: queue) { $0 }))
        },
        DeadlockCase("allSettled(_:)", "array") { queue, _ in waiting(allSettled([Promise(1).then(on: queue) { $0 }])) },
        DeadlockCase("allSettled(_:)", "variadic") { queue, _ in
            waiting(allSettled(Promise("a"), Promise(1).then(on: queue) { $0 }))
        },
        DeadlockCase("allSettled(_:)", "static array") { queue, _ in
            waiting(Promise.allSettled([Promise(1).then(on: queue) { $0 }]))
        },
        DeadlockCase("allSettled(_:)", "static variadic") { queue, _ in
            waiting(Promise.allSettled(Promise("a"), Promise(1).then(on: queue) { $0 }))
        },
        DeadlockCase("race(_:)") { queue, _ in waiting(race([Promise(1).then(on: queue) { $0 }])) },
        DeadlockCase("race(_:)", "static") { queue, _ in waiting(Promise.race([Promise(1).then(on: queue) { $0 }])) },
        DeadlockCase("race(fulfilled:)") { queue, _ in waiting(race(fulfilled: [Promise(1).then(on: queue) { $0 }])) },
        DeadlockCase("race(fulfilled:)", "static") { queue, _ in
            waiting(Promise.race(fulfilled: [Promise(1).then(on: queue) { $0 }]))
        },
    ]

    /// Promise-returning declarations that no context resolves, so no wait for them can be
    /// told from a safe one: the reason for each.
    static let exempt: [String: String] = [
        "pending()": "settled by its resolver, from any thread",
        "init(_:)": "settled when made",
        "init(work:)": "resolved by a Swift concurrency task rather than a context",
        "onCancel(on:_:)": "returns the promise it is called on",
        "wrap(_:)": "resolved by the completion handler, which the caller calls from wherever it likes",
        "nextSignal(_:)": "resolved when the process receives a signal",
        "nextSignal()": "resolved when the process receives a signal",
    ]
}

/// What a case's wait did.
private enum WaitOutcome: Sendable, Equatable {
    case deadlock(afterMilliseconds: Int)
    case returned
    case failed(String)
}

@Suite struct DeadlockTableTests {
    @Test(arguments: DeadlockTable.cases)
    func awaitingAPromiseOnTheContextItNeedsThrowsDeadlockAtOnce(_ entry: DeadlockCase) async throws {
        let queue = DispatchQueue(label: "deadlock-table")
        let (never, neverResolver) = Promise<Int>.pending()
        let outcome = Promise(0).then(on: queue) { _ -> WaitOutcome in
            let wait = entry.make(queue, never)
            let start = ContinuousClock.now
            do {
                try wait()
                return .returned
            } catch let error as PromiseError where error.code == .deadlock {
                let elapsed = start.duration(to: .now)
                return .deadlock(afterMilliseconds: Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000))
            } catch {
                return .failed("\(error)")
            }
        }
        let result = try await outcome.timeout(.seconds(30)).get()
        neverResolver.fulfill(0)
        guard case .deadlock(let milliseconds) = result else {
            Issue.record("\(entry.testDescription): expected deadlock, got \(result)")
            return
        }
        #expect(milliseconds < 1000, "\(entry.testDescription): deadlock took \(milliseconds) ms")
    }

    @Test func everyPublicOperatorIsInTheTable() throws {
        let declared = try promiseReturningDeclarations()
        #expect(declared.count > 20, "the source scan found too little: \(declared.sorted())")
        let covered = Set(DeadlockTable.cases.map(\.operation)).union(DeadlockTable.exempt.keys)
        let missing = declared.subtracting(covered)
        #expect(missing.isEmpty, "public operators missing from DeadlockTable.cases: \(missing.sorted())")
        let stale = covered.subtracting(declared)
        #expect(stale.isEmpty, "DeadlockTable names declarations PromiseCore and PromiseSignals no longer have: \(stale.sorted())")
    }
}

// MARK: Reading the declarations

/// The names (`then(on:_:)`) of the public functions that return a `Promise` in PromiseCore and
/// PromiseSignals (its `Promises.nextSignal`), and of the public initializers in PromiseCore's
/// `Promise` files.
private func promiseReturningDeclarations() throws -> Set<String> {
    let sources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources")
    var names: Set<String> = []
    for module in ["PromiseCore", "PromiseSignals"] {
        let directory = sources.appendingPathComponent(module)
        for file in try FileManager.default.contentsOfDirectory(atPath: directory.path) where file.hasSuffix(".swift") {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            let initializersCount = file == "Promise.swift" || file.hasPrefix("Promise+")
            names.formUnion(declarations(in: text, initializersCount: initializersCount))
        }
    }
    return names
}

/// The promise-returning public declarations in one file's text.
private func declarations(in text: String, initializersCount: Bool) -> [String] {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    var names: [String] = []
    for (number, line) in lines.enumerated() {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        let isInit = trimmed.hasPrefix("public convenience init") || trimmed.hasPrefix("public init")
        guard isInit || trimmed.hasPrefix("public func ") || trimmed.hasPrefix("public static func ") else { continue }
        if isInit, !initializersCount { continue }
        // The signature runs to the body's opening brace.
        let signature = Array(lines[number...].joined(separator: "\n").prefix { $0 != "{" })
        guard let (name, tail) = parse(signature, isInit: isInit) else { continue }
        // A promise alone, or first in a tuple with its resolver (`pending()`).
        if isInit || tail.contains("-> Promise<") || tail.contains("-> (promise: Promise<") { names.append(name) }
    }
    return names
}

/// `then(on:_:)` and what follows the parameter clause, from
/// `public func then<N: Sendable>(on context: …, _ body: …) -> Promise<N>`.
private func parse(_ signature: [Character], isInit: Bool) -> (String, String)? {
    var index = 0
    let text = String(signature)
    guard let keyword = text.range(of: isInit ? "init" : "func ") else { return nil }
    index = text.distance(from: text.startIndex, to: keyword.upperBound)
    var base = "init"
    if !isInit {
        base = ""
        while index < signature.count, signature[index] != "<", signature[index] != "(" {
            if signature[index] != "`" { base.append(signature[index]) }
            index += 1
        }
    }
    if index < signature.count, signature[index] == "<" {
        var depth = 0
        repeat {
            if signature[index] == "<" { depth += 1 }
            if signature[index] == ">" { depth -= 1 }
            index += 1
        } while depth > 0 && index < signature.count
    }
    guard index < signature.count, signature[index] == "(" else { return nil }
    index += 1
    var labels: [String] = []
    var depth = 0
    var current = ""
    while index < signature.count {
        let c = signature[index]
        let isArrow = c == ">" && index > 0 && signature[index - 1] == "-"
        index += 1
        if depth == 0, c == ")" || c == "," {
            let label = current.trimmingCharacters(in: .whitespacesAndNewlines).prefix { $0 != " " && $0 != ":" }
            if !label.isEmpty { labels.append(String(label)) }
            current = ""
            if c == ")" { break }
            continue
        }
        if c == "(" || c == "[" || c == "<" { depth += 1 }
        if c == ")" || c == "]" || (c == ">" && !isArrow) { depth -= 1 }
        current.append(c)
    }
    let tail = String(signature[index...])
    return (base + "(" + labels.map { $0 + ":" }.joined() + ")", tail)
}
