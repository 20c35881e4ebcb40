import PromiseCore
import Synchronization

/// The demo's scenes. Each builds a chain, waits for it at the edge with `awaitPromise`, and
/// narrates every step as it happens.
struct Scenes: Sendable {
    let narrator: Narrator
    /// How many times the inventory service says "busy" before it answers.
    let inventoryFailures: Int
    /// How long the recommendations may take before the cached list is used.
    let recommendationsTimeout: Duration
    /// When set, the last scene's chain is cancelled after this long.
    let cancelDashboardAfter: Duration?

    private var users: SimulatedService { SimulatedService(name: "users", narrator: narrator) }
    private var orders: SimulatedService { SimulatedService(name: "orders", narrator: narrator) }
    private var settings: SimulatedService { SimulatedService(name: "settings", narrator: narrator) }
    private var inventory: SimulatedService { SimulatedService(name: "inventory", narrator: narrator) }
    private var recommendations: SimulatedService { SimulatedService(name: "recommendations", narrator: narrator) }
    private var downloads: SimulatedService { SimulatedService(name: "download", narrator: narrator) }

    // MARK: 1

    func chain() throws {
        narrator.scene(
            1, "A promise and a chain",
            "Promise { … } starts work on the default context, the library's own serial queue.",
            "then { … } says what to do with the value. Every step returns a new promise."
        )
        narrator.say("main", "building Promise { 6 * 7 }.then { $0 + 1 }")
        let answer = Promise { () -> Int in
            narrator.say("default queue", "the work runs and returns 6 * 7 = 42")
            return 6 * 7
        }
        .then { value in
            narrator.say("default queue", "then { $0 + 1 } is called with \(value) and returns \(value + 1)")
            return value + 1
        }
        let value = try awaitPromise(answer)
        narrator.say("main", "awaitPromise returned \(value); blocking like this belongs only at a program's edge")
    }

    // MARK: 2

    func allAtOnce() throws {
        narrator.scene(
            2, "all: several requests at once",
            "all(a, b, c) waits for every promise and fulfils with a tuple of their values."
        )
        let profile = all(
            users.request("look up user 7", latency: .milliseconds(150)) { .success("Ada") },
            orders.request("count the orders of user 7", latency: .milliseconds(250)) { .success(3) },
            settings.request("load the settings of user 7", latency: .milliseconds(100)) { .success("dark mode") }
        )
        .then { name, orderCount, theme in
            narrator.say("then", "all three arrived: (\"\(name)\", \(orderCount), \"\(theme)\")")
            return "\(name), \(orderCount) orders, \(theme)"
        }
        let summary = try awaitPromise(profile)
        narrator.say("main", "\"\(summary)\" — the requests overlapped, so this took the slowest one's time, not the sum")
    }

    // MARK: 3

    func retrying() throws {
        narrator.scene(
            3, "retry: a flaky service",
            "retry(attempts: 3, delay: 100 ms, condition:) { … } starts the work again after a rejection,",
            "as long as the condition agrees and retries are left."
        )
        let stock = retry(attempts: 3, delay: .milliseconds(100), condition: retryCondition) {
            askInventory(attempt: Counter.inventory.next())
        }
        do {
            let count = try awaitPromise(stock)
            narrator.say("main", "\(count) in stock")
        } catch {
            narrator.say("main", "retry gave up and rejected with the last error: \(error)")
        }
    }

    // MARK: 4

    func timeoutAndRecover() throws {
        narrator.scene(
            4, "timeout and recover: a slow service",
            "timeout(.milliseconds(\(recommendationsTimeout.milliseconds))) rejects with PromiseError.timedOut if the answer is late,",
            "and withdraws its interest: the request behind it is cancelled, so the work stops.",
            "recover { … } turns a rejection into a value."
        )
        let picks = askRecommendations()
            .timeout(recommendationsTimeout)
            .recover { error in
                narrator.say("recover", "called with \(error)")
                narrator.say("recover", "returns the cached list instead")
                return ["Dune", "Emma"]
            }
        let list = try awaitPromise(picks)
        narrator.say("main", "got \(list)")
    }

    // MARK: 5

    func cancellation() throws {
        narrator.scene(
            5, "Cancellation",
            "cancel() rejects a promise with CancellationError. It travels up the chain to the",
            "producer, whose onCancel handler stops the work, and down to every later step:",
            "then callbacks are skipped, catch skips cancellation unless asked, always still runs."
        )
        let download = downloads.request("download report.csv", latency: .seconds(1)) { .success("id,total\n1,42\n") }
        let report =
            download
            .then { csv in
                narrator.say("then", "parsing \(csv.count) bytes (never printed: the chain is cancelled first)")
                return csv.split(separator: "\n").count
            }
            .then { rows in
                narrator.say("then", "saving \(rows) rows (never printed either)")
            }
        let finished =
            report
            .catch { error in
                narrator.say("catch", "called with \(error) (not printed: catch skips CancellationError by default)")
            }
            .catch(policy: .allErrors) { error in
                narrator.say("catch(policy: .allErrors)", "called with \(error)")
            }
            .always {
                narrator.say("always", "runs for every outcome, cancellation included")
            }
        _ = Promises.defaultQueue.executeAfter(.milliseconds(150)) {
            narrator.say("user", "presses Cancel: report.cancel()")
            report.cancel()
        }
        do {
            _ = try awaitPromise(finished)
        } catch is CancellationError {
            narrator.say(
                "main", "awaitPromise threw CancellationError; download.isCancelled == \(download.isCancelled)"
            )
        }
    }

    // MARK: 6

    func dashboard() throws {
        narrator.scene(
            6, "Everything in one chain",
            "all(user, retry { inventory }, recommendations.timeout(…).recover { … }).then { render }",
            cancelDashboardAfter.map { "The whole chain is cancelled after \($0.milliseconds) ms (--cancel-after-ms)." }
                ?? "Run with --cancel-after-ms 200 to cancel the whole chain midway."
        )
        Counter.inventory.reset()
        let page = all(
            users.request("look up user 7", latency: .milliseconds(120)) { .success("Ada") },
            retry(attempts: 3, delay: .milliseconds(100), condition: retryCondition) {
                askInventory(attempt: Counter.inventory.next())
            },
            askRecommendations()
                .timeout(recommendationsTimeout)
                .recover { _ in ["Dune", "Emma"] }
        )
        .then { name, stock, picks in
            "Hello \(name)! \(stock) in stock. You might like: \(picks.joined(separator: ", "))."
        }
        if let cancelDashboardAfter {
            _ = Promises.defaultQueue.executeAfter(cancelDashboardAfter) {
                narrator.say("user", "presses Cancel: page.cancel()")
                page.cancel()
            }
        }
        do {
            let text = try awaitPromise(page)
            narrator.say("main", text)
        } catch is CancellationError {
            narrator.say("main", "the page was cancelled; every request still running was told to stop")
        } catch {
            narrator.say("main", "the page failed: \(error)")
        }
    }

    // MARK: Helpers

    private func askInventory(attempt: Int) -> Promise<Int> {
        let failures = inventoryFailures
        return inventory.request("attempt \(attempt): how many copies in stock?", latency: .milliseconds(30)) {
            attempt <= failures ? .failure(Busy()) : .success(12)
        }
    }

    private func askRecommendations() -> Promise<[String]> {
        recommendations.request("recommend books for user 7", latency: .seconds(2)) { .success(["Middlemarch"]) }
    }

    private var retryCondition: @Sendable (Int, any Error) -> Bool {
        { [narrator] remaining, error in
            let again = error is Busy
            narrator.say(
                "retry",
                again
                    ? "\(error) is worth another try (retries left: \(remaining)); trying again in 100 ms"
                    : "\(error) is not worth retrying; giving up"
            )
            return again
        }
    }
}

/// Counts the inventory's attempts across retries.
final class Counter: Sendable {
    static let inventory = Counter()
    private let value = Atomic<Int>(0)

    /// The next attempt's number, starting at 1.
    func next() -> Int { value.add(1, ordering: .relaxed).newValue }

    /// Starts counting from 1 again.
    func reset() { value.store(0, ordering: .relaxed) }
}
