// swift-format-ignore-file
// (documentation quotes this file's code line for line, layout included)
import Dispatch
import PromiseCore
import Synchronization
import Testing

// Every PromiseCore block of Sources/PromiseCore/PromiseCore.docc/MigrationGuide.md, exactly
// as written there (each starts with a `// PromiseCore` line) between `// DocC: begin` and
// `// DocC: end`, with assertions on what it does. The other libraries' blocks start with
// their name and are not compiled; `DocCCodeBlocksTests` fails when one of our blocks has no
// copy in a region, or when another library's block is not followed by ours.

@Suite struct MigrationGuideTests {
    let slowQueriesStopped = Counter()

    // MARK: - PromiseKit

    @Test func promiseKitMakingPromises() async throws {
        // DocC: begin
        // PromiseCore
        let answer = Promise<Int> { fulfill, reject in
            lookUp("answer") { value, error in
                if let value { fulfill(value) } else { reject(error ?? Missing()) }
            }
        }
        let ready = Promise(42)
        let failed = Promise<Int>(Missing())
        let (later, resolver) = Promise<Int>.pending()
        resolver.fulfill(7)
        // DocC: end

        #expect(try await answer.get() == 42)
        #expect(ready.value == 42)
        await #expect(throws: Missing.self) { try await failed.get() }
        #expect(later.value == 7)
    }

    @Test func promiseKitChain() throws {
        let log = Recorder<String>()

        // DocC: begin
        // PromiseCore
        let greeting = Promise { fetchUser(id: 7) }
            .map { user in user.name }
            .done { name in log.append("loaded \(name)") }
            .done { name in log.append("hello, \(name)") }
            .always { log.append("finished") }
            .catch { error in log.append("failed: \(error)") }
        // DocC: end

        #expect(try awaitPromise(greeting, timeout: .seconds(5)) == "Ada")
        #expect(log.events == ["loaded Ada", "hello, Ada", "finished"])
    }

    @Test func promiseKitRecover() throws {
        // DocC: begin
        // PromiseCore
        let port = readPort().recover { error in
            guard error is Missing else { throw error }
            return 8080
        }
        // DocC: end

        #expect(try awaitPromise(port, timeout: .seconds(5)) == 8080)
    }

    @Test func promiseKitWhenAndRace() throws {
        // DocC: begin
        // PromiseCore
        let both = all(fetchUser(id: 7), fetchOrders(for: 7))
        let users = all([fetchUser(id: 1), fetchUser(id: 2)])
        let outcomes = any([fetchUser(id: 1), fetchUser(id: -1)])
        let first = race([fetchUser(id: 1), fetchUser(id: 2)])
        let pages = Promise.map(1...9, concurrency: 3) { fetchPage($0) }
        // DocC: end

        let (user, orders) = try awaitPromise(both, timeout: .seconds(5))
        #expect(user.name == "Ada" && orders.count == 3)
        #expect(try awaitPromise(users, timeout: .seconds(5)).map(\.id) == [1, 2])
        let results = try awaitPromise(outcomes, timeout: .seconds(5))
        #expect((try? results[0].get())?.id == 1)
        #expect(results[1].failureValue is Missing)
        #expect([1, 2].contains(try awaitPromise(first, timeout: .seconds(5)).id))
        #expect(try awaitPromise(pages, timeout: .seconds(5)) == (1...9).map { "page \($0)" })
    }

    @Test func promiseKitCompactMapTapAsVoid() throws {
        let log = Recorder<String>()

        // DocC: begin
        // PromiseCore
        let port = readSetting("port").map { text in
            guard let port = Int(text) else { throw NotANumber(text: text) }
            return port
        }
        let user = fetchUser(id: 7)
            .done { user in log.append("fulfilled: \(user.name)") }
            .catch(policy: .allErrors) { error in log.append("rejected: \(error)") }
        let saved = fetchUser(id: 7).map { _ in }
        // DocC: end

        #expect(try awaitPromise(port, timeout: .seconds(5)) == 8080)
        #expect(try awaitPromise(user, timeout: .seconds(5)).name == "Ada")
        let nothing: Void = try awaitPromise(saved, timeout: .seconds(5))
        _ = nothing
        #expect(log.events == ["fulfilled: Ada"])
        let notANumber = readSetting("name").map { text in
            guard let port = Int(text) else { throw NotANumber(text: text) }
            return port
        }
        #expect(throws: NotANumber(text: "ada")) { try awaitPromise(notANumber, timeout: .seconds(5)) }
        let missing = fetchUser(id: -1)
            .done { user in log.append("fulfilled: \(user.name)") }
            .catch(policy: .allErrors) { error in log.append("rejected: \(error)") }
        #expect(throws: Missing.self) { try awaitPromise(missing, timeout: .seconds(5)) }
        #expect(log.events.last == "rejected: Missing()")
    }

    @Test func promiseKitAfterTapWait() throws {
        let log = Recorder<String>()

        // DocC: begin
        // PromiseCore
        let tick = Promise(()).delay(.milliseconds(20)).done {
            log.append("later")
        }
        let user = fetchUser(id: 7)
            .done { user in log.append("got \(user.name)") }
            .catch(policy: .allErrors) { error in log.append("failed: \(error)") }
        let value = try awaitPromise(fetchUser(id: 7))
        fetchUser(id: -1).catch { _ in }
        // DocC: end

        #expect(value.name == "Ada")
        #expect(try awaitPromise(user, timeout: .seconds(5)).name == "Ada")
        try awaitPromise(tick, timeout: .seconds(5))
        #expect(Set(log.events) == ["later", "got Ada"])
    }

    // MARK: - google/promises

    @Test func googleRetryTimeoutDelay() throws {
        let server = FlakyServer(failuresBeforeSuccess: 2)

        // DocC: begin
        // PromiseCore
        let reply = retry(attempts: 3, delay: .milliseconds(10)) {
            server.ping()
        }.timeout(.seconds(5))
        let tick = Promise("tick").delay(.milliseconds(20))
        // DocC: end

        #expect(try awaitPromise(reply, timeout: .seconds(5)) == "pong")
        #expect(server.pings == 3)
        #expect(try awaitPromise(tick, timeout: .seconds(5)) == "tick")
    }

    @Test func googleErrors() throws {
        let log = Recorder<String>()

        // DocC: begin
        // PromiseCore
        let rows = slowQuery().timeout(.milliseconds(20)).catch { error in
            if let error = error as? PromiseError, error.code == .timedOut {
                log.append("too slow")
            }
        }
        // DocC: end

        let error = #expect(throws: PromiseError.self) { try awaitPromise(rows, timeout: .seconds(5)) }
        #expect(error?.code == .timedOut)
        #expect(log.events == ["too slow"])
        #expect(pollUntil { slowQueriesStopped.value == 1 })
    }

    @Test func googleAny() throws {
        // DocC: begin
        // PromiseCore
        let names = any([fetchUser(id: 1), fetchUser(id: -1)]).then { results in
            results.compactMap { try? $0.get().name }
        }
        // DocC: end

        #expect(try awaitPromise(names, timeout: .seconds(5)) == ["User 1"])
    }

    @Test func googleAwait() throws {
        // DocC: begin
        // PromiseCore
        let user = try awaitPromise(fetchUser(id: 7))
        // DocC: end

        #expect(user.name == "Ada")
    }

    @Test func googleAwaitFromAsyncCode() async throws {
        // DocC: begin
        // PromiseCore
        let user = try await fetchUser(id: 7).get()
        // DocC: end

        #expect(user.name == "Ada")
    }

    // MARK: - khanlou/Promise

    @Test func khanlouExtras() throws {
        // DocC: begin
        // PromiseCore
        let port = Promise { try parsePort("8080") }
        let pair = all(fetchUser(id: 7), fetchOrders(for: 7))
        let named = fetchUser(id: 7).validate { !$0.name.isEmpty }
        // DocC: end

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

        // DocC: begin
        // PromiseCore
        let reply = retry(attempts: 3, delay: .milliseconds(10)) { server.ping() }
        let rest = Promise(()).delay(.milliseconds(20))
        let limited = slowQuery().timeout(.milliseconds(50))
        let first = race([fetchUser(id: 1), fetchUser(id: 2)])
        let users = all([fetchUser(id: 1), fetchUser(id: 2)])
        // DocC: end

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

        // DocC: begin
        // PromiseCore
        let shown = fetchUser(id: 7)
            .then { user in log.append(user.name) }
            .catch { error in log.append("failed: \(error)") }
        let lookedUp = fetchUser(id: -1).catch { error in
            if error is Missing { log.append("missing") }
        }
        // DocC: end

        #expect(try awaitPromise(shown, timeout: .seconds(5)).name == "Ada")
        #expect(throws: Missing.self) { try awaitPromise(lookedUp, timeout: .seconds(5)) }
        #expect(Set(log.events) == ["Ada", "missing"])
    }

    @Test func khanlouInvalidatableQueue() throws {
        // DocC: begin
        // PromiseCore
        let screen = InvalidatableQueue(queue: DispatchQueue(label: "screen"))
        let (user, resolver) = Promise<User>.pending()
        let title = user.then(on: screen) { $0.name }
        screen.invalidate()    // the screen went away: its callbacks are dropped
        resolver.fulfill(User(id: 7, name: "Ada"))
        // DocC: end

        let error = #expect(throws: PromiseError.self) { try awaitPromise(title, timeout: .seconds(5)) }
        #expect(error?.code == .contextInvalidated)   // rejected, not left pending
    }

    // MARK: - SwiftNIO

    @Test func nioMakingFuturesAndFlatMapThrowing() async throws {
        // DocC: begin
        // PromiseCore
        let ready = Promise(42)
        let failed = Promise<Int>(Missing())
        let (later, resolver) = Promise<Int>.pending()
        resolver.fulfill(7)
        let port = readSetting("port").map { text in
            guard let port = Int(text) else { throw NotANumber(text: text) }
            return port
        }
        // DocC: end

        #expect(ready.value == 42)
        await #expect(throws: Missing.self) { try await failed.get() }
        #expect(later.value == 7)
        #expect(try await port.get() == 8080)
    }

    @Test func nioCombiningAndDelivering() throws {
        let log = Recorder<String>()
        let uiQueue = TaggedQueue("ui")
        let (relayedUser, relay) = Promise<User>.pending()
        let onUIQueue = Counter()
        @Sendable func check() { if uiQueue.isCurrent { onUIQueue.increment() } }

        do {
            let uiQueue = uiQueue.queue
            // DocC: begin
            // PromiseCore
            let both = all(fetchUser(id: 7), fetchOrders(for: 7))
            let total = all([fetchPrice(1), fetchPrice(2), fetchPrice(3)]).map { $0.reduce(0, +) }
            let shown = fetchUser(id: 7)
                .done(on: uiQueue) { user in log.append("fulfilled: \(user.name)") }
                .catch(on: uiQueue, policy: .allErrors) { error in log.append("rejected: \(error)") }
            let relayed = fetchUser(id: 7)
                .done(on: .inline) { user in relay.fulfill(user) }
                .catch(on: .inline, policy: .allErrors) { error in relay.reject(error) }
            // DocC: end

            let (user, orders) = try awaitPromise(both, timeout: .seconds(5))
            #expect(user.name == "Ada" && orders.count == 3)
            #expect(try awaitPromise(total, timeout: .seconds(5)) == 600)
            #expect(try awaitPromise(shown, timeout: .seconds(5)).name == "Ada")
            #expect(try awaitPromise(relayed, timeout: .seconds(5)).name == "Ada")
            #expect(try awaitPromise(relayedUser, timeout: .seconds(5)).name == "Ada")
            #expect(log.events == ["fulfilled: Ada"])
            // The `done` ran on the queue it was given.
            let ran = fetchUser(id: 7).done(on: uiQueue) { _ in check() }
            _ = try awaitPromise(ran, timeout: .seconds(5))
            #expect(onUIQueue.value == 1)
        }
    }

    // MARK: - Semantic differences

    @Test func cancellationReachesTheWork() throws {
        // DocC: begin
        // PromiseCore
        let rows = slowQuery()
        let count = rows.then { $0.count }
            .timeout(.milliseconds(20))    // on time-out, count is rejected and rows cancelled
        // DocC: end

        let error = #expect(throws: PromiseError.self) { try awaitPromise(count, timeout: .seconds(5)) }
        #expect(error?.code == .timedOut)
        #expect(pollUntil { rows.isCancelled && slowQueriesStopped.value == 1 })
    }

    @Test func unhandledRejectionsAreReported() throws {
        DiagnosticsProbe.install

        // DocC: begin
        // PromiseCore
        func forgetful() { _ = Promise<SensorReading>(Missing()) }   // rejected, and nobody looks
        forgetful()                                                  // reported once it is deallocated
        let careful = Promise<SensorReading>(Missing()).catch { _ in }   // handled: nothing to report
        // DocC: end

        #expect(throws: Missing.self) { try awaitPromise(careful, timeout: .seconds(5)) }
        let reports = DiagnosticsProbe.reports(about: SensorReading.self)
        #expect(reports.count == 1)
        #expect(reports.first?.kind == .unhandledRejection)
        #expect(reports.first?.error is Missing)
    }

    @Test func sendableState() throws {
        // DocC: begin
        // PromiseCore
        let total = RunningTotal()                  // not `var total = 0`: the compiler refuses that
        let added = all([Promise(1), Promise(2), Promise(3)])
            .then { amounts in total.add(amounts.reduce(0, +)) }
        // DocC: end

        #expect(try awaitPromise(added, timeout: .seconds(5)) == [1, 2, 3])
        #expect(total.value == 6)
    }

    @Test func inlineContext() {
        // DocC: begin
        // PromiseCore
        let doubled = Promise(21).then(on: .inline) { $0 * 2 }   // ran already, on this thread
        // DocC: end

        #expect(doubled.value == 42)
    }
}

// MARK: - Helpers in the article

extension MigrationGuideTests {
    // DocC: begin
    // PromiseCore
    final class RunningTotal: Sendable {          // shared with callbacks on other threads
        private let total = Mutex(0)
        func add(_ amount: Int) { total.withLock { $0 += amount } }
        var value: Int { total.withLock { $0 } }
    }
    // DocC: end
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

    /// A setting's text after 1 ms: "8080" for "port", "ada" for anything else.
    func readSetting(_ name: String) -> Promise<String> {
        Promise(name == "port" ? "8080" : "ada").delay(.milliseconds(1))
    }

    struct NotANumber: Error, Equatable {
        let text: String
    }

    /// 100 times `item`, after 1 ms.
    func fetchPrice(_ item: Int) -> Promise<Int> {
        Promise(item * 100).delay(.milliseconds(1))
    }

    func parsePort(_ text: String) throws -> Int {
        guard let port = Int(text) else { throw Missing() }
        return port
    }

    /// Takes 5 s unless cancelled; counts cancellations in `slowQueriesStopped`.
    func slowQuery() -> Promise<[String]> {
        let (promise, resolver) = Promise<[String]>.pending()
        let timer = DispatchQueue.global().executeAfter(.seconds(5)) { resolver.fulfill(["row 1", "row 2"]) }
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
