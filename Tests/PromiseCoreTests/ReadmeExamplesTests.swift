// swift-format-ignore-file
// (documentation quotes this file's code line for line, layout included)
import Dispatch
import Foundation
import PromiseCore
import Synchronization
import Testing

// README.md's PromiseCore blocks, exactly as written there, with assertions on what they
// produce. `readmeSnippetsAreAllHere` fails when any README block is missing from every test
// file, so editing one without the other is caught. Blocks that start with `// Package.swift` are
// manifest fragments and are checked by building Examples/ instead.

// MARK: - Stand-ins for the reader's own code, named in the README

struct User: Sendable {
    let id: Int
    let name: String
}

struct Order: Sendable {
    let number: Int
}

enum LookupError: Error, Equatable {
    case notFound
    case notANumber
}

/// The error `FlakyServer.ping()` fails with.
struct Busy: Error {}

/// Looks a user up after a short delay; negative ids are not found.
func fetchUser(id: Int) -> Promise<User> {
    guard id >= 0 else { return Promise<User>(LookupError.notFound).delay(.milliseconds(5)) }
    return Promise(User(id: id, name: id == 7 ? "Ada" : "User \(id)")).delay(.milliseconds(5))
}

/// Three orders for any user, after a short delay.
func fetchOrders(for userID: Int) -> Promise<[Order]> {
    Promise([Order(number: 1), Order(number: 2), Order(number: 3)]).delay(.milliseconds(5))
}

/// One page of text, after a short delay.
func fetchPage(_ number: Int) -> Promise<String> {
    Promise("page \(number)").delay(.milliseconds(1))
}

/// Parses a port number, throwing for anything that is not one.
func parsePort(_ text: String) throws -> Int {
    guard let port = Int(text), (1...65535).contains(port) else { throw LookupError.notANumber }
    return port
}

/// A callback API: answers 42 on another thread.
func legacyLookup(_ key: String, completion: @escaping @Sendable (Int?, (any Error)?) -> Void) {
    DispatchQueue.global().async { completion(key == "answer" ? 42 : nil, nil) }
}

/// An async API: answers 42.
func asyncLookup(_ key: String) async throws -> Int {
    try await Task.sleep(for: .milliseconds(1))
    return 42
}

/// A cache whose `store` returns whether the user was new, a result callers often ignore.
final class UserCache: Sendable {
    private let users = Lock<[Int: User]>([:])

    @discardableResult
    func store(_ user: User) -> Bool {
        users.withLock { $0.updateValue(user, forKey: user.id) == nil }
    }
}

/// Answers "pong", after failing with `Busy` a given number of times.
final class FlakyServer: Sendable {
    private let failuresLeft: Lock<Int>

    init(failuresBeforeSuccess: Int) {
        failuresLeft = Lock(failuresBeforeSuccess)
    }

    func ping() -> Promise<String> {
        let fail = failuresLeft.withLock { left in
            defer { left -= 1 }
            return left > 0
        }
        return fail ? Promise<String>(Busy()) : Promise("pong")
    }
}

// The producer from "Cancellation", used by several snippets.

func slowQuery() -> Promise<[String]> {
    let (promise, resolver) = Promise<[String]>.pending()
    let timer = DispatchQueue.global().executeAfter(.seconds(5)) {
        resolver.fulfill(["row 1", "row 2"])
    }
    promise.onCancel { timer.cancel() }   // stop the work when nobody wants the rows
    return promise
}

// MARK: - The README's snippets

@Suite struct ReadmeExamplesTests {
    @Test func aFirstChain() throws {
        let answer = Promise { 6 * 7 }       // starts on the default context
            .then { $0 + 1 }                 // Promise<Int>
            .then { "answer: \($0)" }        // Promise<String>

        let text = try awaitPromise(answer)  // block only at the edge of a program
        // text == "answer: 43"

        #expect(text == "answer: 43")
    }

    @Test func creatingPromises() async throws {
        let ready = Promise(42)                          // already fulfilled
        let failed = Promise<Int>(LookupError.notFound)  // already rejected
        let computed = Promise { try parsePort("8080") } // runs on the default context

        let (later, resolver) = Promise<String>.pending() // you settle it, later
        resolver.fulfill("done")

        let bridged = Promise<Int> { fulfill, reject in  // adapts a callback API
            legacyLookup("answer") { value, error in
                if let value { fulfill(value) } else { reject(error ?? LookupError.notFound) }
            }
        }
        let wrapped = wrap { legacyLookup("answer", completion: $0) }  // the same, shorter
        let fromTask = Promise { try await asyncLookup("answer") }     // runs in a Task

        #expect(ready.value == 42)
        await #expect(throws: LookupError.notFound) { try await failed.get() }
        #expect(try await computed.get() == 8080)
        #expect(later.value == "done")
        #expect(try await bridged.get() == 42)
        #expect(try await wrapped.get() == 42)
        #expect(try await fromTask.get() == 42)  // never awaitPromise on a Task-backed promise
    }

    @Test func whichThenRuns() throws {
        let user = fetchUser(id: 7)                         // Promise<User>
        let name = user.then { $0.name }                    // a value: Promise<String>
        let orders = user.then { fetchOrders(for: $0.id) }  // a promise: Promise<[Order]>, flattened
        let same = user.then { print("loaded", $0.name) }   // nothing: Promise<User>, passed on

        let nameValue: String = try awaitPromise(name)
        let orderValues: [Order] = try awaitPromise(orders)
        let sameValue: User = try awaitPromise(same)
        #expect(nameValue == "Ada")
        #expect(orderValues.map(\.number) == [1, 2, 3])
        #expect(sameValue.id == 7)
    }

    @Test func annotatingTheClosureReturnType() throws {
        let user = fetchUser(id: 7)

        let cache = UserCache()
        let flag = user.then { cache.store($0) }                    // Promise<Bool>: store's result
        let kept = user.then { user -> Void in cache.store(user) }  // Promise<User>: passed on

        let flagValue: Bool = try awaitPromise(flag)
        let keptValue: User = try awaitPromise(kept)
        #expect(flagValue == true)   // the first store of user 7
        #expect(keptValue.name == "Ada")
    }

    @Test func catchAndRecover() throws {
        let port = Promise { try parsePort("eighty") }
            .recover { error in
                print("bad port (\(error)); using the default")
                return 8080
            }

        let greeting = fetchUser(id: -1)
            .then { print("hello,", $0.name) }
            .catch { error in print("could not load the user:", error) }

        #expect(try awaitPromise(port) == 8080)
        #expect(throws: LookupError.notFound) { try awaitPromise(greeting) }
    }

    @Test func matchingPromiseErrorCodes() throws {
        var message = ""
        do {
            _ = try awaitPromise(slowQuery().timeout(.milliseconds(50)))
        } catch PromiseError.Code.timedOut {
            message = "the query took too long"
        }

        #expect(message == "the query took too long")
    }

    @Test func longChains() throws {
        let report = fetchUser(id: 7)
            .map { $0.id }                                  // a value
            .flatMap { fetchOrders(for: $0) }               // a promise, waited for
            .done { print("loaded", $0.count, "orders") }   // a side effect; the orders pass on
            .map { $0.count }
            .map { "\($0) orders" }

        #expect(try awaitPromise(report, timeout: .seconds(5)) == "3 orders")
    }

    @Test func moreCombinators() throws {
        let settled = allSettled(fetchUser(id: 1), fetchOrders(for: 1))  // both Results; never rejects
        let mirror = race(fulfilled: [fetchUser(id: -1), fetchUser(id: 2)]) // the first success
        let backedOff = retry(attempts: 4, backoff: .exponential(initial: .milliseconds(5))) { attempt in
            fetchUser(id: attempt == 1 ? -1 : 3)                          // attempt is 1, 2, …
        }

        let (user, orders) = try awaitPromise(settled, timeout: .seconds(5))
        #expect((try? user.get())?.id == 1 && (try? orders.get())?.count == 3)
        #expect(try awaitPromise(mirror, timeout: .seconds(5)).name == "User 2")
        #expect(try awaitPromise(backedOff, timeout: .seconds(5)).id == 3)
    }

    @Test func combinators() throws {
        let profile = all(fetchUser(id: 7), fetchOrders(for: 7))         // Promise<(User, [Order])>
            .then { user, orders in "\(user.name) has \(orders.count) orders" }

        let team = all([fetchUser(id: 1), fetchUser(id: 2)])             // Promise<[User]>
        let first = race([slowQuery(), Promise(["cached row"])])         // the first to settle
        let outcomes = any([fetchUser(id: 1), fetchUser(id: -1)])        // every Result, unless all fail
        let pages = Promise.map(1...20, concurrency: 4) { fetchPage($0) } // at most 4 at a time

        #expect(try awaitPromise(profile) == "Ada has 3 orders")
        #expect(try awaitPromise(team).map(\.name) == ["User 1", "User 2"])
        #expect(try awaitPromise(first) == ["cached row"])
        let results = try awaitPromise(outcomes)
        #expect(results.count == 2)
        #expect((try? results[0].get())?.id == 1)
        #expect(throws: LookupError.notFound) { try results[1].get() }
        let pageValues = try awaitPromise(pages)
        #expect(pageValues.count == 20)
        #expect(pageValues.first == "page 1" && pageValues.last == "page 20")
    }

    @Test func retryTimeoutDelay() throws {
        let server = FlakyServer(failuresBeforeSuccess: 2)
        let reply = retry(attempts: 3, delay: .milliseconds(10), condition: { _, error in error is Busy }) {
            server.ping()
        }
        .timeout(.seconds(5))
        .recover { _ in "offline" }

        let tick = Promise("tick").delay(.milliseconds(20))

        #expect(try awaitPromise(reply) == "pong")
        #expect(try awaitPromise(tick) == "tick")
    }

    @Test func cancellation() throws {
        let query = slowQuery()
        let count = query.then { $0.count }
        count.cancel()   // count is cancelled; so is query, its only consumer gone: the timer stops

        #expect(count.isCancelled)
        #expect(query.isCancelled)
    }

    @Test func swiftConcurrency() async throws {
        let fetched = try await fetchUser(id: 7).get()  // suspends; honours Task cancellation

        let task = Task { try await slowQuery().get() }
        task.cancel()                                   // cancels the query's promise as well

        #expect(fetched.name == "Ada")
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test func executionContexts() throws {
        let parser = DispatchQueue(label: "parser")
        let parsed = Promise("42").then(on: parser) { Int($0) ?? 0 }  // runs on the parser queue
        let now = Promise(1).then(on: .inline) { $0 + 1 }              // inline: already 2 here

        #expect(now.value == 2)
        #expect(try awaitPromise(parsed) == 42)
    }

    // MARK: - README and this file agree

    @Test func readmeSnippetsAreAllHere() throws {
        let thisFile = URL(fileURLWithPath: #filePath)
        let readme = thisFile.deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("README.md")
        let snippets = Self.swiftBlocks(in: try String(contentsOf: readme, encoding: .utf8))
            .filter { $0.first != "// Package.swift" }
        // Each product's example is compiled by that product's ReadmeExamplesTests.swift, or
        // quoted from a compiled DocC example: any Swift file of a test target.
        let tests = thisFile.deletingLastPathComponent().deletingLastPathComponent()
        let files = try FileManager.default.subpathsOfDirectory(atPath: tests.path)
            .filter { $0.hasSuffix(".swift") && !$0.contains(".build") }
        let homes = try files.map { path in
            Self.normalized(try String(contentsOf: tests.appendingPathComponent(path), encoding: .utf8))
        }
        #expect(snippets.count >= 10)
        for snippet in snippets {
            let found = homes.contains { Self.contains($0, snippet) }
            #expect(found, "README snippet not found verbatim in any test file:\n\(snippet.joined(separator: "\n"))")
        }
    }

    /// The ```swift blocks of a Markdown text, each as trimmed, non-empty lines.
    static func swiftBlocks(in markdown: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = []
            } else if current != nil, trimmed == "```" {
                blocks.append(current!)
                current = nil
            } else if current != nil, !trimmed.isEmpty {
                current!.append(trimmed)
            }
        }
        return blocks
    }

    /// A text as trimmed, non-empty lines.
    static func normalized(_ text: String) -> [String] {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Whether `lines` holds `block` as consecutive lines.
    static func contains(_ lines: [String], _ block: [String]) -> Bool {
        guard !block.isEmpty, block.count <= lines.count else { return block.isEmpty }
        return (0...(lines.count - block.count)).contains { start in
            lines[start..<(start + block.count)].elementsEqual(block)
        }
    }
}
