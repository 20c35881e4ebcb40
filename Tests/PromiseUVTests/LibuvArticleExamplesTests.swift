// swift-format-ignore-file
// (documentation quotes this file's code line for line, layout included)
import Dispatch
import Glibc
import PromiseUV
import Testing

// The ```swift blocks of PromiseUV's DocC catalog (the landing page and "Running promises on a
// libuv loop"), each between `// DocC: begin` and `// DocC: end` exactly as written there,
// checked by PromiseCoreTests' `DocCCodeBlocksTests`. The blocks that make the loop the
// process's default context run in a process of their own (an exit test), which prints what
// they produced for the parent to check. The block that needs PromiseCurl, PromiseFS and
// PromiseSQLite runs in PromiseIntegrationTests.

@Suite struct LibuvArticleExamplesTests {
    @Test func landingPage() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            func program() throws {   // blocking code: not in the async exit-test closure itself
                @Sendable func expensiveComputation() -> Int { (1...1_000).reduce(0, +) }

                // DocC: begin
                let loop = try UVLoop()
                Promises.defaultContext = loop              // chains without `on:` run on the loop

                let answer = try loop.run(until:            // runs the loop on this thread until it settles
                    loop.work { expensiveComputation() }    // on libuv's thread pool
                        .timeout(.seconds(5))               // a uv timer
                        .then { value in "answer: \(value)" }
                )
                print(answer)
                try awaitPromise(loop.shutdown())
                // DocC: end
            }
            try program()
        }
        #expect(String(decoding: result?.standardOutputContent ?? [], as: UTF8.self) == "answer: 500500\n")
    }

    @Test func theFirstProgram() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            func program() throws {   // blocking code: not in the async exit-test closure itself
                let paths = ["a", "bb", "ccc"]
                @Sendable func checksum(of path: String) throws -> Int { path.utf8.reduce(0) { $0 + Int($1) } }

                // DocC: begin
                let loop = try UVLoop()
                Promises.defaultContext = loop

                let checksums = all(paths.map { path in
                    loop.work { try checksum(of: path) }          // blocking reads on libuv's pool
                })
                .timeout(.seconds(30))                            // a uv timer on the loop
                .then { sums in print(sums) }                     // on the main thread
                .catch { error in print("failed: \(error)") }

                loop.run()                                        // returns once everything above settled
                try awaitPromise(loop.shutdown())
                // DocC: end

                _ = checksums
            }
            try program()
        }
        #expect(String(decoding: result?.standardOutputContent ?? [], as: UTF8.self) == "[97, 196, 297]\n")
    }

    @Test func keepingTheLoopAliveAndRunningUntil() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            func program() throws {   // blocking code: not in the async exit-test closure itself
                let loop = try UVLoop()
                Promises.defaultContext = loop
                let url = "http://127.0.0.1/"
                /// A stand-in for an HTTP client whose answer comes from another thread.
                struct Client: Sendable {
                    func get(_ url: String) -> Promise<String> {
                        let (reply, replyResolver) = Promise<String>.pending()
                        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) { replyResolver.fulfill("reply from \(url)") }
                        return reply
                    }
                }
                let client = Client()
                @Sendable func buildReport() -> Promise<String> { loop.after(.milliseconds(5)).then { "report" } }
                @Sendable func mirrorEverything() -> Promise<Int> { loop.after(.seconds(30)).then { 0 } }

                // DocC: begin
                loop.keepAlive(until: client.get(url))
                loop.run()
                // DocC: end
                print("ran")

                // DocC: begin
                let report = try loop.run(until: buildReport())
                // DocC: end
                print(report)

                let raised = loop.after(.milliseconds(20)).then { _ = kill(getpid(), SIGINT) }
                do {
                    // DocC: begin
                    let work = mirrorEverything()
                    let interrupt = loop.nextSignal(.interrupt)
                    interrupt.then { _ in
                        print("interrupted: cancelling")
                        work.cancel()
                    }
                    let report = try loop.run(until: work.always { interrupt.cancel() })
                    // DocC: end
                    print("not interrupted: \(report)")
                } catch is CancellationError {
                    print("cancelled")
                }
                _ = raised
                try awaitPromise(loop.shutdown())
            }
            try program()
        }
        #expect(String(decoding: result?.standardOutputContent ?? [], as: UTF8.self) == "ran\nreport\ninterrupted: cancelling\ncancelled\n")
    }

    @Test func aLoopOnItsOwnThread() async throws {
        struct Request: Sendable { let path: String }
        enum Response: Sendable, Equatable {
            case page(String)
            case unavailable
        }
        @Sendable func render(_ request: Request) throws -> Response {
            guard request.path != "/slow" else { usleep(3_000_000); return .page("late") }
            return .page("<h1>\(request.path)</h1>")
        }

        // DocC: begin
        let loop = try UVLoop()
        try loop.startThread(named: "api-loop")

        func handle(_ request: Request) -> Promise<Response> {
            loop.work { try render(request) }              // blocking rendering on the pool
                .timeout(on: loop, .seconds(2))
                .recover(on: loop) { _ in Response.unavailable }
        }
        // DocC: end

        #expect(try await handle(Request(path: "/home")).get() == .page("<h1>/home</h1>"))
        #expect(try await handle(Request(path: "/slow")).get() == .unavailable)

        // DocC: begin
        try await loop.shutdown().get()
        // DocC: end
    }

    @Test func actorsAndTasksOnTheLoop() async throws {
        let loop = try UVLoop()
        try loop.startThread(named: "actor-loop")
        @Sendable func computeTotal() -> Int { 42 }

        // DocC: begin
        actor Connection {
            let loop: UVLoop
            nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }
            private var sent = 0

            init(loop: UVLoop) { self.loop = loop }

            func send(_ bytes: [UInt8]) async throws {
                try await loop.after(.milliseconds(1)).get()   // resumes on the loop thread
                sent += bytes.count
            }
        }

        let total = try await Task(executorPreference: loop) {
            try await loop.work { computeTotal() }.get()        // the task waits without blocking the loop
        }.value
        // DocC: end

        #expect(total == 42)
        let connection = Connection(loop: loop)
        try await connection.send([1, 2, 3])
        try await loop.shutdown().get()
    }
}
