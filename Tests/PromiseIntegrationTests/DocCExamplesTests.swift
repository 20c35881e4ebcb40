// swift-format-ignore-file
// (documentation quotes this file's code line for line, layout included)
import Glibc
import PromiseCurl
import PromiseFS
import PromiseSQLite
import PromiseTestSupport
import PromiseUV
import Testing

// The ```swift blocks of DocC articles that need several products at once, each between
// `// DocC: begin` and `// DocC: end` exactly as written there (PromiseCoreTests'
// `DocCCodeBlocksTests` checks them): PromiseUV's "Running promises on a libuv loop" with
// PromiseCurl, PromiseFS and PromiseSQLite finishing the work, and reading a file line by
// line on a loop.

@Suite struct DocCExamplesTests {
    /// The loop as the default context waits for three other products: a process of its own.
    @Test func theLoopWaitsForOtherProducts() async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            func program() throws {   // blocking code: not in the async exit-test closure itself
                let url = TestServer.nginx.url("/small.txt")
                let path = "/proc/self/comm"

                // DocC: begin
                let loop = try UVLoop()
                Promises.defaultContext = loop
                CurlClient.shared.get(url).then { print("http", $0.status.code) }
                PromiseFileSystem().readText(path).then { print("fs", $0.utf8.count) }
                SQLiteDatabase(path: ":memory:").scalar(Int.self, "SELECT 6 * 7").then { print("sql", $0 ?? -1) }
                loop.run()                                        // returns after the three lines
                // DocC: end

                print("run returned")
            }
            try program()
        }
        let printed = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(printed.count == 4, "\(printed)")
        #expect(Set(printed.dropLast()).count == 3)
        #expect(printed.contains("http 200") && printed.contains("sql 42") && printed.contains { $0.hasPrefix("fs ") })
        #expect(printed.last == "run returned")
    }

    @Test func readingAFileLineByLineOnTheLoop() async throws {
        let directory = try TemporaryFolder()
        defer { directory.remove() }
        let path = directory.path("access.log")
        let log = (1...3_000).map { "GET /item/\($0) \($0 % 7 == 0 ? 500 : 200) 512" }.joined(separator: "\n") + "\n"
        try await PromiseFileSystem().writeText(path, log).get()
        let loop = try UVLoop()
        try loop.startThread(named: "log-reader")

        // DocC: begin
        let fs = PromiseFileSystem()
        let failures = UVLoopBound(0, loop: loop)           // touched on the loop thread only

        let counted = Promise {
            try await withTaskExecutorPreference(loop) {    // the loop body runs on the loop thread
                for try await line in fs.lines(path) where line.contains(" 500 ") {
                    failures.value += 1
                }
                return failures.value
            }
        }
        let summary = counted.then(on: loop) { count in "\(count) failed requests" }
        // DocC: end

        #expect(try await summary.get() == "428 failed requests")

        // The body of the `for` loop runs on the loop thread.
        let onLoop = Promise {
            try await withTaskExecutorPreference(loop) {
                var everyLine = true
                for try await _ in fs.lines(path) { everyLine = everyLine && loop.isOnLoopThread }
                return everyLine
            }
        }
        #expect(try await onLoop.get())

        // A line over the limit rejects the promise with tooLarge, naming the line.
        let long = directory.path("long.log")
        try await fs.writeText(long, "short\n" + String(repeating: "x", count: 100) + "\n").get()
        let refused = Promise {
            try await withTaskExecutorPreference(loop) {
                var count = 0
                for try await _ in fs.lines(long, maxLength: 64) { count += 1 }
                return count
            }
        }
        let error = await #expect(throws: FSError.self) { try await refused.get() }
        #expect(error?.code == .tooLarge)
        #expect(error?.message.contains("64-byte line limit") == true, "\(String(describing: error))")
        try await loop.shutdown().get()
    }
}
