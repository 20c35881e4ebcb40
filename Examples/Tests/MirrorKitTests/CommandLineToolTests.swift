import Foundation
import Glibc
import MirrorKit
import Synchronization
import Testing

/// The two programs of PromiseCore's "Command-line tools" article, run as a user would run
/// them: exit statuses, output, retries and Ctrl-C, against servers on 127.0.0.1.
@Suite struct CommandLineToolTests {
    /// Runs the example program `name`, sends it `signal` once its output satisfies
    /// `signalWhen` (if a signal is given), and returns its exit status and output.
    private func run(
        _ name: String,
        _ arguments: [String],
        signal: Int32? = nil,
        when signalWhen: @escaping @Sendable (String) -> Bool = { _ in true }
    ) async throws -> (status: Int32, output: String) {
        let program = try RunningProgram(name, arguments)
        if let signal {
            let ready = try await eventually(.seconds(30)) { signalWhen(program.output) }
            #expect(ready, "\(name) never reached the point to signal it: \(program.output)")
            program.send(signal)
        }
        let exited = try await program.waitForExit(within: .seconds(60))
        #expect(exited, "\(name) did not exit: \(program.output)")
        return (program.status, program.output)
    }

    /// A port on 127.0.0.1 where nothing listens: bound, then closed.
    private func closedPort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test func fetchDownloadsRetriesAndExitsOneWhenSomethingFailed() async throws {
        let server = try SampleServer()
        defer { server.stop() }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // /flaky.json answers 503 once, then 200: the retry gets it.
        let result = try await run("promise-fetch", [directory, server.url("/"), server.url("/flaky.json"), server.url("/missing")])
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.contains("FAIL \(server.url("/missing")):"), "\(result.output)")
        #expect(result.output.contains("saved 1-index") && result.output.contains("saved 2-flaky.json"), "\(result.output)")
        #expect(result.output.contains("2 downloaded, 1 failed, 0 not finished"), "\(result.output)")
        let stored = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(stored == ["1-index", "2-flaky.json"], "a failed download leaves no file: \(stored)")
        let json = try String(contentsOfFile: directory + "/2-flaky.json", encoding: .utf8)
        #expect(json.contains("\"status\": \"ok\""))
    }

    @Test func fetchStopsOnCtrlCWithStatus130AndNoPartialFile() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A body that trickles for 20 s: still arriving when the signal comes.
        let slow = HTTPBin.url("/drip?duration=20&numbytes=20&delay=0")
        let result = try await run("promise-fetch", [directory, HTTPBin.url("/html"), slow], signal: SIGINT) { output in
            output.contains("saved 1-html")
        }
        #expect(result.status == 130, "\(result.output)")
        #expect(result.output.contains("1 downloaded, 0 failed, 1 not finished"), "\(result.output)")
        let stored = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(stored == ["1-html"], "the cancelled download left nothing: \(stored)")
    }

    @Test func waitSucceedsAtOnceForAServerThatIsUp() async throws {
        let server = try SampleServer()
        defer { server.stop() }
        let result = try await run("promise-wait", [server.url("/"), "10"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("ready after 1 attempt(s)"), "\(result.output)")
    }

    @Test func waitGivesUpAtItsDeadlineAfterRetrying() async throws {
        let started = ContinuousClock.now
        let result = try await run("promise-wait", ["http://127.0.0.1:\(closedPort())/", "1"])
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.contains("gave up after"), "\(result.output)")
        #expect(result.output.contains("still pending after 1.0 seconds"), "\(result.output)")
        #expect(!result.output.contains("gave up after 1 attempt(s)"), "it retried: \(result.output)")
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    @Test func waitStopsOnCtrlCWithStatus130() async throws {
        // Signalled once it says Ctrl-C is caught: before that, SIGINT would simply kill it.
        let result = try await run("promise-wait", ["http://127.0.0.1:\(closedPort())/", "60"], signal: SIGINT) { $0.contains("Ctrl-C stops") }
        #expect(result.status == 130, "\(result.output)")
        #expect(!result.output.contains("gave up"), "\(result.output)")
    }

    @Test func bothToolsExplainTheirUsageWithStatus2() async throws {
        let fetch = try await run("promise-fetch", [])
        #expect(fetch.status == 2)
        #expect(fetch.output.contains("usage: promise-fetch DIRECTORY URL..."))
        let wait = try await run("promise-wait", ["http://127.0.0.1:1/", "soon"])
        #expect(wait.status == 2)
        #expect(wait.output.contains("usage: promise-wait URL [SECONDS]"))
    }
}

/// Every code block of PromiseCore's "Command-line tools" article appears, line for line, in
/// one of the two programs, so the article cannot drift from code that runs.
@Suite struct CommandLineToolsArticleTests {
    @Test func everyCodeBlockIsCopiedFromTheTools() throws {
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let article = examples.deletingLastPathComponent()
            .appendingPathComponent("Sources/PromiseCore/PromiseCore.docc/CommandLineTools.md")
        let sources = try ["promise-fetch", "promise-wait"].map { tool in
            lines(try String(contentsOf: examples.appendingPathComponent("Sources/\(tool)/main.swift"), encoding: .utf8))
        }
        let blocks = swiftBlocks(try String(contentsOf: article, encoding: .utf8))
        #expect(blocks.count >= 10)
        for block in blocks {
            let found = sources.contains { source in
                (0...max(0, source.count - block.count)).contains { start in
                    source.count >= block.count && Array(source[start..<(start + block.count)]) == block
                }
            }
            #expect(found, "article block not found in promise-fetch or promise-wait:\n\(block.joined(separator: "\n"))")
        }
    }

    /// The text as trimmed, non-empty lines.
    private func lines(_ text: String) -> [String] {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The ```swift blocks, each as trimmed, non-empty lines.
    private func swiftBlocks(_ markdown: String) -> [[String]] {
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
}
