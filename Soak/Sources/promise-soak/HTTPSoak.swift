import ArgumentParser
import Dispatch
import PromiseCore
import PromiseCurl
import Synchronization

/// `promise-soak http`: requests on one `CurlClient` against nginx on 127.0.0.1, a bounded
/// number in flight, each response's status and body checked.
struct HTTPSoak: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "http",
        abstract: "HTTP requests on one CurlClient against nginx on 127.0.0.1.",
        discussion: """
            Starts nginx with scripts/testservers/serve.py. Most requests are GET /hello?n=N \
            (200, "hello\\n"); every tenth is GET /small.txt (200, "hello from nginx\\n"), one \
            in fifty GET /missing/N (404), one in a hundred POST /hello with a small body, and \
            one in a hundred HEAD /hello (200, empty body). Nothing but 127.0.0.1 is contacted. \
            After the run the client is shut down and every descriptor it opened must be closed.
            """
    )

    @Option(help: "How many requests.")
    var count = 1_000_000

    @Option(help: "Requests in flight at once (also the client's connections per host).")
    var concurrency = 64

    @Option(help: "Seconds without a response before the run fails as stuck.")
    var stallTimeout = 60

    func validate() throws {
        try validateCount(count)
        guard (1...256).contains(concurrency) else { throw ValidationError("--concurrency must be 1...256, got \(concurrency)") }
    }

    func run() throws {
        let failures = SoakFailures()
        Promises.diagnosticsHandler = { report in failures.record("diagnostic: \(report)") }
        let nginx = try LoopbackNginx()
        defer { nginx.stop() }
        let base = "http://127.0.0.1:\(nginx.port)"

        let before = ProcessProbe.descriptors()
        var configuration = CurlConfiguration()
        configuration.maxConnectionsPerHost = concurrency
        configuration.timeout = .seconds(30)
        let client = try CurlClient(configuration: configuration)
        let window = DispatchSemaphore(value: concurrency)
        let completed = Counter()
        let inline = InlineContext()
        let monitor = SoakMonitor(
            name: "http",
            unit: "requests",
            total: count,
            detail: "\(concurrency) in flight on one CurlClient, nginx at 127.0.0.1:\(nginx.port) (1 worker)"
        )
        var submitted = 0
        while submitted < count {
            if window.wait(timeout: .now() + .seconds(stallTimeout)) == .timedOut {
                failures.record("no response for \(stallTimeout) s after \(completed.value) of \(submitted) requests completed")
                break
            }
            monitor.progress(completed.value)
            let expected = ExpectedResponse(submitted)
            let n = submitted
            expected.send(client, base)
                .then(on: inline) { (response: CurlResponse) -> Void in
                    if let problem = expected.problem(response) { failures.record("request \(n) \(expected.what): \(problem)") }
                    completed.increment()
                    window.signal()
                }
                .catch(on: inline, policy: .allErrors) { error in
                    failures.record("request \(n) \(expected.what): \(error)")
                    completed.increment()
                    window.signal()
                }
            submitted += 1
        }
        var drained = 0
        while drained < concurrency, window.wait(timeout: .now() + .seconds(stallTimeout)) == .success { drained += 1 }
        if drained < concurrency {
            failures.record("\(concurrency - drained) request(s) still pending \(stallTimeout) s after the last was sent")
        }
        monitor.progress(completed.value)
        if client.pendingRequests != 0 {
            failures.record("the client still counts \(client.pendingRequests) pending request(s) after every promise settled")
        }
        // Back to the initial value, or libdispatch refuses to free the semaphore.
        for _ in 0..<drained { window.signal() }

        do {
            try awaitPromise(client.shutdown(), timeout: .seconds(30))
        } catch {
            failures.record("shutting the client down: \(error)")
        }
        let teardown = checkTeardown(before: before, failures: failures, what: "client shutdown")
        guard monitor.finish(done: completed.value, failures: failures, extra: teardown) else { throw ExitCode.failure }
    }
}

/// A counter shared with callbacks.
final class Counter: Sendable {
    private let storage = Atomic<Int>(0)

    func increment() {
        storage.add(1, ordering: .relaxed)
    }

    var value: Int { storage.load(ordering: .relaxed) }
}

/// The request number `n` sends, and the response it must get.
struct ExpectedResponse: Sendable {
    enum Kind: Sendable { case hello, small, missing, post, head }

    let kind: Kind
    let n: Int

    init(_ n: Int) {
        self.n = n
        switch n % 100 {
        case 49, 99: kind = .missing
        case 7: kind = .post
        case 3: kind = .head
        case let r where r % 10 == 5: kind = .small
        default: kind = .hello
        }
    }

    var what: String {
        switch kind {
        case .hello: "GET /hello"
        case .small: "GET /small.txt"
        case .missing: "GET /missing/\(n)"
        case .post: "POST /hello"
        case .head: "HEAD /hello"
        }
    }

    func send(_ client: CurlClient, _ base: String) -> Promise<CurlResponse> {
        switch kind {
        case .hello: client.get("\(base)/hello?n=\(n)")
        case .small: client.get("\(base)/small.txt")
        case .missing: client.get("\(base)/missing/\(n)")
        case .post: client.post("\(base)/hello", body: .text("soak request \(n)"))
        case .head: client.head("\(base)/hello")
        }
    }

    private static let hello = Array("hello\n".utf8)
    private static let small = Array("hello from nginx\n".utf8)
    private static let notFound = Array("404 Not Found".utf8)

    /// What is wrong with `response`, or `nil`.
    func problem(_ response: CurlResponse) -> String? {
        let status = response.status.code
        let body = response.body
        let right: Bool
        switch kind {
        case .hello, .post: right = status == 200 && body == Self.hello
        case .small: right = status == 200 && body == Self.small
        case .missing: right = status == 404 && body.firstRange(of: Self.notFound) != nil
        case .head: right = status == 200 && body.isEmpty
        }
        return right ? nil : "status \(status), \(body.count)-byte body \(String(decoding: body.prefix(64), as: UTF8.self).debugDescription)"
    }
}
