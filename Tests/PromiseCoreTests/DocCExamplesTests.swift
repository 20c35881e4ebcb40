// swift-format-ignore-file
// (documentation quotes this file's code line for line, layout included)
import Dispatch
import Glibc
import PromiseCore
import PromiseTestSupport
import Testing

// The ```swift blocks of PromiseCore's DocC articles (GettingStarted, Cancellation,
// ErrorHandling, ThreadingAndContexts, TypeInference and the landing page), each between
// `// DocC: begin` and `// DocC: end` exactly as the article shows it, with assertions on what
// it does. CommonPatterns and MigrationGuide have files of their own; `DocCCodeBlocksTests`
// fails when any article block has no copy in a region. `User`, `Order`, `fetchUser(id:)`,
// `fetchOrders(for:)`, `parsePort(_:)`, `legacyLookup(_:completion:)`, `slowQuery()` and
// `UserCache` are the README's stand-ins (ReadmeExamplesTests.swift).

@Suite struct DocCExamplesTests {
    let api = API()
    let logged = Recorder<String>()
    let downloads = Recorder<(promise: Promise<[UInt8]>, resolver: PromiseResolver<[UInt8]>)>()

    // MARK: - The landing page

    @Test func landingPage() throws {
        // DocC: begin
        let summary = all(fetchUser(id: 7), fetchOrders(for: 7))
            .then { user, orders in "\(user.name) has \(orders.count) orders" }
            .timeout(.seconds(2))
            .recover { _ in "no summary right now" }
        // DocC: end

        #expect(try awaitPromise(summary, timeout: .seconds(5)) == "Ada has 3 orders")
    }

    // MARK: - GettingStarted

    @Test func gettingStartedMakeAPromise() async throws {
        // DocC: begin
        let ready = Promise(42)                          // fulfilled already
        let failed = Promise<Int>(LookupError.notFound)  // rejected already
        let computed = Promise { try parsePort("8080") } // the closure runs on the default context

        let (later, resolver) = Promise<String>.pending() // settled by you, when the work is done
        resolver.fulfill("done")
        // DocC: end

        #expect(ready.value == 42)
        await #expect(throws: LookupError.notFound) { try await failed.get() }
        #expect(try await computed.get() == 8080)
        #expect(later.value == "done")
    }

    @Test func gettingStartedCompletionHandler() async throws {
        // DocC: begin
        func lookup(_ key: String) -> Promise<Int> {
            Promise { fulfill, reject in
                legacyLookup(key) { value, error in
                    if let value { fulfill(value) } else { reject(error ?? LookupError.notFound) }
                }
            }
        }
        // DocC: end

        #expect(try await lookup("answer").get() == 42)
        await #expect(throws: LookupError.notFound) { try await lookup("question").get() }
    }

    @Test func gettingStartedChainAndWait() throws {
        // DocC: begin
        let greeting = fetchUser(id: 7)
            .then { user in fetchOrders(for: user.id).then { orders in (user, orders) } }
            .then { user, orders in "\(user.name) has \(orders.count) orders" }
            .recover { _ in "hello, stranger" }

        let text = try awaitPromise(greeting, timeout: .seconds(10))
        print(text)
        // DocC: end

        #expect(text == "Ada has 3 orders")
        let stranger = fetchUser(id: -1).then { user in "\(user.name)" }.recover { _ in "hello, stranger" }
        #expect(try awaitPromise(stranger, timeout: .seconds(5)) == "hello, stranger")
    }

    @Test func gettingStartedSuspend() async throws {
        // DocC: begin
        let user = try await fetchUser(id: 7).get()
        // DocC: end

        #expect(user.name == "Ada")
    }

    // MARK: - Cancellation

    @Test func cancellationTravelsUp() throws {
        // DocC: begin
        func slowQuery() -> Promise<[String]> {
            let (promise, resolver) = Promise<[String]>.pending()
            let timer = DispatchQueue.global().executeAfter(.seconds(5)) {
                resolver.fulfill(["row 1", "row 2"])
            }
            promise.onCancel { timer.cancel() }   // stop the work when nobody wants the rows
            return promise
        }

        let query = slowQuery()
        let count = query.then { $0.count }
        count.cancel()   // count is cancelled; so is query, its only consumer gone: the timer stops
        // DocC: end

        #expect(count.isCancelled)
        #expect(query.isCancelled)
    }

    @Test func cancellationCountsConsumers() throws {
        // DocC: begin
        let rows = slowQuery()
        let count = rows.then { $0.count }
        let first = rows.then { $0.first }
        count.cancel()   // rows keeps going: first still wants it
        first.cancel()   // now nobody does: rows is cancelled and its timer stopped
        // DocC: end

        #expect(rows.isCancelled)
        let shared = slowQuery()
        let one = shared.then { $0.count }
        let other = shared.then { $0.first }
        one.cancel()
        #expect(shared.isPending)
        other.cancel()
        #expect(shared.isCancelled)
    }

    @Test func cancellationAndCatchPolicy() throws {
        let messages = Recorder<String>()
        @Sendable func print(_ items: Any...) { messages.append(items.map { "\($0)" }.joined(separator: " ")) }

        // DocC: begin
        let saved = download()
            .then { bytes in try save(bytes) }
            .catch { error in print("could not save:", error) }                  // not for cancellation
            .catch(policy: .allErrors) { error in print("stopped:", error) }     // every error
            .always { print("done, one way or another") }                        // every outcome
        // DocC: end

        try #require(downloads.count == 1)
        downloads.events[0].promise.cancel()   // the download is stopped: the chain sees a cancellation
        #expect(throws: CancellationError.self) { try awaitPromise(saved, timeout: .seconds(5)) }
        #expect(messages.events == ["stopped: CancellationError()", "done, one way or another"])
    }

    @Test func cancellationFromATask() async throws {
        // DocC: begin
        let task = Task { try await slowQuery().get() }
        task.cancel()   // cancels the query's promise as well
        // DocC: end

        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test func cancellationReachesTheTask() async throws {
        // DocC: begin
        let user = Promise { try await api.user(id: 7) }
        user.cancel()   // cancels the Task running api.user(id:)
        // DocC: end

        #expect(user.isCancelled)
        #expect(await api.sawCancellation.value)
    }

    // MARK: - ErrorHandling

    @Test func errorHandlingCatch() throws {
        // DocC: begin
        let greeting = fetchUser(id: -1)
            .then { print("hello,", $0.name) }
            .catch { error in print("could not load the user:", error) }
        // DocC: end

        #expect(throws: LookupError.notFound) { try awaitPromise(greeting, timeout: .seconds(5)) }
    }

    @Test func errorHandlingRecover() throws {
        let configuredPort = "eighty"

        // DocC: begin
        let port = Promise { try parsePort(configuredPort) }
            .recover { error in
                guard error is LookupError else { throw error }
                return 8080
            }
        // DocC: end

        #expect(try awaitPromise(port, timeout: .seconds(5)) == 8080)
    }

    @Test func errorHandlingMatchACode() throws {
        // DocC: begin
        var message = ""
        do {
            _ = try awaitPromise(slowQuery().timeout(.milliseconds(50)))
        } catch PromiseError.Code.timedOut {
            message = "the query took too long"
        }
        // DocC: end

        #expect(message == "the query took too long")
    }

    @Test func errorHandlingOneShape() throws {
        // DocC: begin
        func summary(of error: any Error) -> String {
            guard let error = error as? any PromiseLibraryError else { return "\(error)" }
            return error.underlying.map { "\(error.message) (because: \($0))" } ?? error.message
        }
        // DocC: end

        #expect(summary(of: LookupError.notFound) == "notFound")
        let timedOut = #expect(throws: PromiseError.self) { try awaitPromise(slowQuery().timeout(.milliseconds(1))) }
        let error = try #require(timedOut)
        #expect(summary(of: error) == error.message)
        #expect(!error.message.isEmpty)
    }

    /// The handler is process-wide: a process of its own.
    @Test func errorHandlingWhereReportsGo() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            /// Stands in for a swift-log `Logger`.
            struct Logger: Sendable {
                func warning(_ message: String) { print("warning: \(message)") }
            }
            let logger = Logger()

            // DocC: begin
            Promises.diagnosticsHandler = { report in
                logger.warning("\(report)")
            }
            // DocC: end

            do { _ = Promise<Int>(LookupError.notFound) }   // rejected, never looked at
            fflush(nil)
        }
        let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
        #expect(output.hasPrefix("warning: "), "\(output)")
        #expect(output.contains("unhandled rejection of Promise<Int>"), "\(output)")
    }

    // MARK: - ThreadingAndContexts

    @Test func threadingMainQueueAsTheDefault() async throws {
        let result = try await runHelperProgram("promise-report-tool", [], timeout: .seconds(20))
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output == "QUARTERLY REPORT\n")
    }

    @Test func threadingOnAStep() throws {
        func download() -> Promise<[UInt8]> { Promise(Array("hello".utf8)) }

        // DocC: begin
        let parser = DispatchQueue(label: "parser")
        let parsed = download().then(on: parser) { bytes in try parse(bytes) }
        // DocC: end

        #expect(try awaitPromise(parsed, timeout: .seconds(5)) == "hello")
    }

    @Test func threadingInline() {
        // DocC: begin
        let now = Promise(1).then(on: .inline) { $0 + 1 }   // now.value == 2 already
        // DocC: end

        #expect(now.value == 2)
    }

    // MARK: - TypeInference

    @Test func typeInferenceForms() throws {
        // DocC: begin
        let user = fetchUser(id: 7)                         // Promise<User>
        let name = user.then { $0.name }                    // a value: Promise<String>
        let orders = user.then { fetchOrders(for: $0.id) }  // a promise: Promise<[Order]>, flattened
        let same = user.then { print("loaded", $0.name) }   // nothing: Promise<User>, passed on

        let label = user.then { user in
            let count = user.name.count
            return "\(user.name) (\(count) letters)"
        }                                                  // Promise<String>

        let cache = UserCache()
        let flag = user.then { cache.store($0) }                    // Promise<Bool>: store's result
        let kept = user.then { user -> Void in cache.store(user) }  // Promise<User>: passed on

        let nickname = user.then { user -> String? in
            user.name.isEmpty ? nil : user.name.lowercased()
        }
        let noOrders = user.then { _ -> [Order] in [] }
        // DocC: end

        let nameValue: String = try awaitPromise(name, timeout: .seconds(5))
        let orderValues: [Order] = try awaitPromise(orders, timeout: .seconds(5))
        let sameValue: User = try awaitPromise(same, timeout: .seconds(5))
        let labelValue: String = try awaitPromise(label, timeout: .seconds(5))
        let flagValue: Bool = try awaitPromise(flag, timeout: .seconds(5))
        let keptValue: User = try awaitPromise(kept, timeout: .seconds(5))
        let nicknameValue: String? = try awaitPromise(nickname, timeout: .seconds(5))
        let noOrdersValue: [Order] = try awaitPromise(noOrders, timeout: .seconds(5))
        #expect(nameValue == "Ada" && orderValues.count == 3 && sameValue.id == 7)
        #expect(labelValue == "Ada (3 letters)")
        #expect(keptValue.id == 7)
        _ = flagValue  // its type is the point: Bool
        #expect(nicknameValue == "ada" && noOrdersValue.isEmpty)
    }

    @Test func typeInferenceLongChain() throws {
        let id = 7

        // DocC: begin
        let total = fetchCart(id)                // Promise<Cart>
            .map { $0.items }                    // a value
            .flatMap { priceAll($0) }            // a promise, waited for
            .done { log("priced \($0.count)") }  // a side effect; the value passes on
            .map { $0.reduce(0) { $0 + $1.amount } }
            .validate { $0 >= 0 }
            .recover { _ in 0 }
        // DocC: end

        #expect(try awaitPromise(total, timeout: .seconds(5)) == 600)
        #expect(logged.events == ["priced 3"])
    }
}

// MARK: - Stand-ins for the reader's own code

extension DocCExamplesTests {
    /// A download that stays pending until the test cancels or fulfils it (`downloads`).
    func download() -> Promise<[UInt8]> {
        let (promise, resolver) = Promise<[UInt8]>.pending()
        downloads.append((promise, resolver))
        return promise
    }

    /// The bytes as UTF-8 text.
    func parse(_ bytes: [UInt8]) throws -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// Pretends to store the bytes; returns how many.
    func save(_ bytes: [UInt8]) throws -> Int {
        bytes.count
    }

    /// An async API whose `user(id:)` takes 5 s unless its task is cancelled.
    struct API: Sendable {
        let sawCancellation = Flag()

        func user(id: Int) async throws -> User {
            do {
                try await Task.sleep(for: .seconds(5))
            } catch {
                sawCancellation.set()
                throw error
            }
            return User(id: id, name: "Ada")
        }
    }

    /// A flag an async test can wait for.
    final class Flag: Sendable {
        private let state = Lock(false)
        func set() { state.withLock { $0 = true } }
        /// Whether it was set within 5 seconds.
        var value: Bool {
            get async {
                for _ in 0..<500 where !state.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(10)) }
                return state.withLock { $0 }
            }
        }
    }

    struct Cart: Sendable { let items: [String] }
    struct Price: Sendable { let amount: Int }

    func fetchCart(_ id: Int) -> Promise<Cart> {
        Promise(Cart(items: ["book", "lamp", "mug"])).delay(.milliseconds(1))
    }

    func priceAll(_ items: [String]) -> Promise<[Price]> {
        Promise(items.map { _ in Price(amount: 200) }).delay(.milliseconds(1))
    }

    func log(_ line: String) { logged.append(line) }
}
