// swift-format-ignore-file
// (documentation quotes this file's code line for line, layout included)
import Dispatch
import PromiseCore
import Synchronization
import Testing

// Every PromiseCore block of Sources/PromiseCore/PromiseCore.docc/MigrationGuide.md, exactly
// as written there (each starts with a `// PromiseCore` line), with assertions on what it does.
// The other libraries' blocks start with their name and are not compiled.
// `articleSnippetsAreAllHere` fails when one of our blocks is missing from this file.

@Suite struct MigrationGuideTests {
    let slowQueriesStopped = Counter()

    // MARK: - PromiseKit

    @Test func promiseKitMakingPromises() async throws {
        // PromiseCore
        let answer = Promise<Int> { fulfill, reject in
            lookUp("answer") { value, error in
                if let value { fulfill(value) } else { reject(error ?? Missing()) }
            }
        }
        let ready = Promise(42)
        let failed = Promise<Int>(Missing())
        let later = Promise<Int>.pending()
        later.fulfill(7)

        #expect(try await answer.get() == 42)
        #expect(ready.value == 42)
        await #expect(throws: Missing.self) { try await failed.get() }
        #expect(later.value == 7)
    }

    @Test func promiseKitChain() throws {
        let log = Recorder<String>()

        // PromiseCore
        let greeting = Promise { fetchUser(id: 7) }
            .then { user in user.name }
            .then { name in log.append("loaded \(name)") }
            .then { name in log.append("hello, \(name)") }
            .always { log.append("finished") }
            .catch { error in log.append("failed: \(error)") }

        #expect(try awaitPromise(greeting, timeout: .seconds(5)) == "Ada")
        #expect(log.events == ["loaded Ada", "hello, Ada", "finished"])
    }

    @Test func promiseKitRecover() throws {
        // PromiseCore
        let port = readPort().recover { error in
            guard error is Missing else { throw error }
            return 8080
        }

        #expect(try awaitPromise(port, timeout: .seconds(5)) == 8080)
    }

    @Test func promiseKitWhenAndRace() throws {
        // PromiseCore
        let both = all(fetchUser(id: 7), fetchOrders(for: 7))
        let users = all([fetchUser(id: 1), fetchUser(id: 2)])
        let outcomes = any([fetchUser(id: 1), fetchUser(id: -1)])
        let first = race([fetchUser(id: 1), fetchUser(id: 2)])
        let pages = Promise.map(1...9, concurrency: 3) { fetchPage($0) }

        let (user, orders) = try awaitPromise(both, timeout: .seconds(5))
        #expect(user.name == "Ada" && orders.count == 3)
        #expect(try awaitPromise(users, timeout: .seconds(5)).map(\.id) == [1, 2])
        let results = try awaitPromise(outcomes, timeout: .seconds(5))
        #expect((try? results[0].get())?.id == 1)
        #expect(results[1].failureValue is Missing)
        #expect([1, 2].contains(try awaitPromise(first, timeout: .seconds(5)).id))
        #expect(try awaitPromise(pages, timeout: .seconds(5)) == (1...9).map { "page \($0)" })
    }

    @Test func promiseKitAfterTapWait() throws {
        let log = Recorder<String>()

        // PromiseCore
        let tick = Promise(()).delay(.milliseconds(20)).then {
            log.append("later")
        }
        let user = fetchUser(id: 7)
            .then { user in log.append("got \(user.name)") }
            .catch(policy: .allErrors) { error in log.append("failed: \(error)") }
        let value = try awaitPromise(fetchUser(id: 7))
        fetchUser(id: -1).catch { _ in }

        #expect(value.name == "Ada")
        #expect(try awaitPromise(user, timeout: .seconds(5)).name == "Ada")
        try awaitPromise(tick, timeout: .seconds(5))
        #expect(Set(log.events) == ["later", "got Ada"])
    }

    // MARK: - google/promises

    @Test func googleRetryTimeoutDelay() throws {
        let server = FlakyServer(failuresBeforeSuccess: 2)

        // PromiseCore
        let reply = retry(attempts: 3, delay: .milliseconds(10)) {
            server.ping()
        }.timeout(.seconds(5))
        let tick = Promise("tick").delay(.milliseconds(20))

        #expect(try awaitPromise(reply, timeout: .seconds(5)) == "pong")
        #expect(server.pings == 3)
        #expect(try awaitPromise(tick, timeout: .seconds(5)) == "tick")
    }

    @Test func googleErrors() throws {
        let log = Recorder<String>()

        // PromiseCore
        let rows = slowQuery().timeout(.milliseconds(20)).catch { error in
            if let error = error as? PromiseError, error.code == .timedOut {
                log.append("too slow")
            }
        }

        let error = #expect(throws: PromiseError.self) { try awaitPromise(rows, timeout: .seconds(5)) }
        #expect(error?.code == .timedOut)
        #expect(log.events == ["too slow"])
        #expect(pollUntil { slowQueriesStopped.value == 1 })
    }

    @Test func googleAny() throws {
        // PromiseCore
        let names = any([fetchUser(id: 1), fetchUser(id: -1)]).then { results in
            results.compactMap { try? $0.get().name }
        }

        #expect(try awaitPromise(names, timeout: .seconds(5)) == ["User 1"])
    }

    @Test func googleAwait() throws {
        // PromiseCore
        let user = try awaitPromise(fetchUser(id: 7))

        #expect(user.name == "Ada")
    }

    @Test func googleAwaitFromAsyncCode() async throws {
        // PromiseCore
        let user = try await fetchUser(id: 7).get()

        #expect(user.name == "Ada")
    }

    // MARK: - khanlou/Promise

    @Test func khanlouExtras() throws {
        // PromiseCore
        let port = Promise { try parsePort("8080") }
        let pair = all(fetchUser(id: 7), fetchOrders(for: 7))
        let named = fetchUser(id: 7).validate { !$0.name.isEmpty }

        #expect(try awaitPromise(port, timeout: .seconds(5)) == 8080)
        let (user, orders) = try awaitPromise(pair, timeout: .seconds(5))
        #expect(user.id == 7 && orders.count == 3)
        #expect(try awaitPromise(named, timeout: .seconds(5)).name == "Ada")
        let nameless = fetchUser(id: 0).validate { !$0.name.isEmpty }
        let error = #expect(throws: PromiseError.self) { try awaitPromise(nameless, timeout: .seconds(5)) }
        #expect(error?.code == .validationFailure)
    }

    @Test func khanlouTimingAndCombinators() throws {
        let server = FlakyServer(failuresBeforeSuccess: 1)
        let started = ContinuousClock.now

        // PromiseCore
        let reply = retry(attempts: 3, delay: .milliseconds(10)) { server.ping() }
        let rest = Promise(()).delay(.milliseconds(20))
        let limited = slowQuery().timeout(.milliseconds(50))
        let first = race([fetchUser(id: 1), fetchUser(id: 2)])
        let users = all([fetchUser(id: 1), fetchUser(id: 2)])

        #expect(try awaitPromise(reply, timeout: .seconds(5)) == "pong")
        #expect(server.pings == 2)
        try awaitPromise(rest, timeout: .seconds(5))
        #expect(ContinuousClock.now - started >= .milliseconds(20))
        let error = #expect(throws: PromiseError.self) { try awaitPromise(limited, timeout: .seconds(5)) }
        #expect(error?.code == .timedOut)
        #expect(pollUntil { slowQueriesStopped.value == 1 })
        #expect([1, 2].contains(try awaitPromise(first, timeout: .seconds(5)).id))
        #expect(try awaitPromise(users, timeout: .seconds(5)).map(\.id) == [1, 2])
    }

    @Test func khanlouTwoClosureThen() throws {
        let log = Recorder<String>()

        // PromiseCore
        let shown = fetchUser(id: 7)
            .then { user in log.append(user.name) }
            .catch { error in log.append("failed: \(error)") }
        let lookedUp = fetchUser(id: -1).catch { error in
            if error is Missing { log.append("missing") }
        }

        #expect(try awaitPromise(shown, timeout: .seconds(5)).name == "Ada")
        #expect(throws: Missing.self) { try awaitPromise(lookedUp, timeout: .seconds(5)) }
        #expect(Set(log.events) == ["Ada", "missing"])
    }

    @Test func khanlouInvalidatableQueue() throws {
        // PromiseCore
        let screen = InvalidatableQueue(queue: DispatchQueue(label: "screen"))
        let user = Promise<User>.pending()
        let title = user.then(on: screen) { $0.name }
        screen.invalidate()    // the screen went away: its callbacks are dropped
        user.fulfill(User(id: 7, name: "Ada"))

        let error = #expect(throws: PromiseError.self) { try awaitPromise(title, timeout: .seconds(5)) }
        #expect(error?.code == .contextInvalidated)   // rejected, not left pending
    }

    // MARK: - Semantic differences

    @Test func cancellationReachesTheWork() throws {
        // PromiseCore
        let rows = slowQuery()
        let count = rows.then { $0.count }
            .timeout(.milliseconds(20))    // on time-out, count is rejected and rows cancelled

        let error = #expect(throws: PromiseError.self) { try awaitPromise(count, timeout: .seconds(5)) }
        #expect(error?.code == .timedOut)
        #expect(pollUntil { rows.isCancelled && slowQueriesStopped.value == 1 })
    }

    @Test func unhandledRejectionsAreReported() throws {
        DiagnosticsProbe.install

        // PromiseCore
        func forgetful() { _ = Promise<SensorReading>(Missing()) }   // rejected, and nobody looks
        forgetful()                                                  // reported once it is deallocated
        let careful = Promise<SensorReading>(Missing()).catch { _ in }   // handled: nothing to report

        #expect(throws: Missing.self) { try awaitPromise(careful, timeout: .seconds(5)) }
        let reports = DiagnosticsProbe.reports(about: SensorReading.self)
        #expect(reports.count == 1)
        #expect(reports.first?.kind == .unhandledRejection)
        #expect(reports.first?.error is Missing)
    }

    @Test func sendableState() throws {
        // PromiseCore
        let total = RunningTotal()                  // not `var total = 0`: the compiler refuses that
        let added = all([Promise(1), Promise(2), Promise(3)])
            .then { amounts in total.add(amounts.reduce(0, +)) }

        #expect(try awaitPromise(added, timeout: .seconds(5)) == [1, 2, 3])
        #expect(total.value == 6)
    }

    @Test func inlineContext() {
        // PromiseCore
        let doubled = Promise(21).then(on: .inline) { $0 * 2 }   // ran already, on this thread

        #expect(doubled.value == 42)
    }

    // MARK: - The article and this file agree

    @Test func articleSnippetsAreAllHere() throws {
        let missing = try ArticleSnippets.missing(article: "MigrationGuide.md", testFile: #filePath)
        #expect(missing.count == 0, "MigrationGuide.md blocks not found verbatim in this file:\n\(missing.joined(separator: "\n\n"))")
        let blocks = try ArticleSnippets.blocks(article: "MigrationGuide.md")
        #expect(blocks.count >= 15)
        #expect(blocks.allSatisfy { $0.first == "// PromiseCore" })   // every block is ours or marked as theirs
    }
}

// MARK: - Helpers in the article

extension MigrationGuideTests {
    // PromiseCore
    final class RunningTotal: Sendable {          // shared with callbacks on other threads
        private let total = Mutex(0)
        func add(_ amount: Int) { total.withLock { $0 += amount } }
        var value: Int { total.withLock { $0 } }
    }
}

// MARK: - Stand-ins for the reader's own code (`User` and `Order` are ReadmeExamplesTests')

extension MigrationGuideTests {
    struct SensorReading: Sendable {
        let celsius: Double
    }

    struct Missing: Error {}

    /// Users after 5 ms; negative ids are missing, user 0 has no name.
    func fetchUser(id: Int) -> Promise<User> {
        guard id >= 0 else { return Promise<User>(Missing()).delay(.milliseconds(5)) }
        let name = id == 7 ? "Ada" : id == 0 ? "" : "User \(id)"
        return Promise(User(id: id, name: name)).delay(.milliseconds(5))
    }

    func fetchOrders(for userID: Int) -> Promise<[Order]> {
        Promise([Order(number: 1), Order(number: 2), Order(number: 3)]).delay(.milliseconds(5))
    }

    func fetchPage(_ number: Int) -> Promise<String> {
        Promise("page \(number)").delay(.milliseconds(1))
    }

    /// Answers 42 for "answer" on another thread, and `Missing` for anything else.
    func lookUp(_ key: String, completion: @escaping @Sendable (Int?, (any Error)?) -> Void) {
        DispatchQueue.global().async {
            key == "answer" ? completion(42, nil) : completion(nil, Missing())
        }
    }

    /// A configured port that is not there.
    func readPort() -> Promise<Int> {
        Promise<Int>(Missing()).delay(.milliseconds(1))
    }

    func parsePort(_ text: String) throws -> Int {
        guard let port = Int(text) else { throw Missing() }
        return port
    }

    /// Takes 5 s unless cancelled; counts cancellations in `slowQueriesStopped`.
    func slowQuery() -> Promise<[String]> {
        let promise = Promise<[String]>.pending()
        let timer = DispatchQueue.global().executeAfter(.seconds(5)) { promise.fulfill(["row 1", "row 2"]) }
        let stopped = slowQueriesStopped
        promise.onCancel {
            timer.cancel()
            stopped.increment()
        }
        return promise
    }

    /// Answers "pong" after failing a given number of times.
    final class FlakyServer: Sendable {
        private let state: Lock<(failuresLeft: Int, pings: Int)>

        init(failuresBeforeSuccess: Int) {
            state = Lock((failuresBeforeSuccess, 0))
        }

        var pings: Int { state.withLock { $0.pings } }

        func ping() -> Promise<String> {
            let fail = state.withLock { state in
                state.pings += 1
                state.failuresLeft -= 1
                return state.failuresLeft >= 0
            }
            return fail ? Promise<String>(Missing()).delay(.milliseconds(1)) : Promise("pong").delay(.milliseconds(1))
        }
    }
}
