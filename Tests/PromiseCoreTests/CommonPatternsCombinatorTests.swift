// swift-format-ignore-file
// (documentation quotes this file's code line for line, layout included)
import Dispatch
import PromiseCore
import Testing

// The CommonPatterns.md blocks about allSettled, mapSettled, the static spellings,
// race(fulfilled:), labelled time-outs, retry with backoff and the two-value wraps, exactly as
// written there between `// DocC: begin` and `// DocC: end`, with assertions on what they do
// (`DocCCodeBlocksTests` checks them).

extension CommonPatternsTests {
    @Test func waitingForAllWhateverTheirResult() throws {
        // DocC: begin
        let outcomes = allSettled([fetchUser(id: 1), fetchUser(id: -1), fetchUser(id: 3)])
        // DocC: end

        let results = try awaitPromise(outcomes, timeout: .seconds(5))
        #expect(results.count == 3)
        #expect((try? results[0].get())?.name == "User 1")
        #expect(throws: Unavailable.self) { try results[1].get() }
        #expect((try? results[2].get())?.name == "User 3")

        let (cancelled, cancelledResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(cancelledResolver) {} }
        cancelled.cancel()
        let withCancellation = try awaitPromise(allSettled([cancelled, Promise(1)]), timeout: .seconds(5))
        #expect(withCancellation[0].failureValue is CancellationError)
    }

    @Test func waitingForAllOfDifferentTypes() throws {
        // DocC: begin
        let greeting = allSettled(fetchUser(id: -1), loadSettings())
            .then { user, settings in
                let name = (try? user.get())?.name ?? "guest"
                let theme = (try? settings.get())?.theme ?? "light"
                return "\(name) with the \(theme) theme"
            }
        // DocC: end

        #expect(try awaitPromise(greeting, timeout: .seconds(5)) == "guest with the dark theme")
    }

    @Test func manyInParallelGoingOnAfterFailures() throws {
        // DocC: begin
        let users = Promise.mapSettled([1, -2, 3, -4], concurrency: 2) { id in fetchUser(id: id) }
        // DocC: end

        let outcomes = try awaitPromise(users, timeout: .seconds(5))
        #expect(outcomes.map { (try? $0.get())?.name } == ["User 1", nil, "User 3", nil])
        #expect(outcomes[3].failureValue is Unavailable)
    }

    @Test func theSameSpelledOnPromise() throws {
        // DocC: begin
        let profile = Promise.all(fetchUser(id: 7), loadSettings())
        let firstTwo = Promise.any([fetchUser(id: -1), fetchUser(id: 2)])
        // DocC: end

        let (user, settings) = try awaitPromise(profile, timeout: .seconds(5))
        #expect(user.name == "Ada" && settings.theme == "dark")
        let outcomes = try awaitPromise(firstTwo, timeout: .seconds(5))
        #expect(outcomes[0].failureValue is Unavailable)
        #expect((try? outcomes[1].get())?.name == "User 2")
    }

    @Test func theFirstSuccess() throws {
        // DocC: begin
        let anyMirror = race(fulfilled: [fetchUser(id: -1), fetchUser(id: 7)])   // the failure does not win
        // DocC: end

        #expect(try awaitPromise(anyMirror, timeout: .seconds(5)).name == "Ada")
        let noMirror = race(fulfilled: [fetchUser(id: -1), fetchUser(id: -2)])
        #expect(throws: Unavailable.self) { try awaitPromise(noMirror, timeout: .seconds(5)) }
    }

    @Test func labelledTimeout() throws {
        // DocC: begin
        let user = search("slow query").timeout(.milliseconds(20), label: "search for slow query")
        // PromiseError.timedOut: search for slow query: still pending after 0.02 seconds; …
        // DocC: end

        let error = try #require(outcome(of: user).failureValue as? PromiseError)
        #expect(error.code == .timedOut)
        #expect(error.description.hasPrefix("PromiseError.timedOut: search for slow query: still pending after 0.02 seconds; "))
        #expect(pollUntil { searchesStopped.value == 1 }, "the time-out cancelled the search")
    }

    @Test func retryWithBackoff() throws {
        let service = StatusService(failuresBeforeSuccess: 3)
        let attemptsMade = Recorder<Int>()

        // DocC: begin
        let reachable = retry(attempts: 4, backoff: .exponential(initial: .milliseconds(5), maximum: .milliseconds(40))) { attempt in
            attemptsMade.append(attempt)
            return service.status()
        }
        // DocC: end

        #expect(try awaitPromise(reachable, timeout: .seconds(5)) == "ok")
        #expect(attemptsMade.events == [1, 2, 3, 4])
        #expect(service.calls == 4)
    }

    @Test func wrappingTwoMoreShapes() throws {
        // DocC: begin
        let row = wrap { readRow(key: "user:7", completion: $0) }          // (Error?, Row?) handler
        let page = wrap { fetchPage("index.html", completion: $0) }        // (Body?, Headers?, Error?) handler
        // DocC: end

        #expect(try awaitPromise(row, timeout: .seconds(5)) == "Ada")
        let (body, headers) = try awaitPromise(page, timeout: .seconds(5))
        #expect(body == "<h1>hello</h1>" && headers == ["content-type": "text/html"])
    }

    /// An error-first callback API: the row for `key`, after 1 ms on another thread.
    func readRow(key: String, completion: @escaping @Sendable ((any Error)?, String?) -> Void) {
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(1)) {
            key == "user:7" ? completion(nil, "Ada") : completion(Unavailable(), nil)
        }
    }

    /// A callback API with two values and an error: a page's body and headers.
    func fetchPage(_ name: String, completion: @escaping @Sendable (String?, [String: String]?, (any Error)?) -> Void) {
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(1)) {
            completion("<h1>hello</h1>", ["content-type": "text/html"], nil)
        }
    }
}
