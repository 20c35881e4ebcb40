// swift-format-ignore-file
// (documentation quotes this file's code line for line, layout included)
import Foundation
import PromiseTestSupport
import PromiseUV
import Testing

// The ```swift blocks of the DocC article ChildProcesses.md, each verbatim between the
// markers, with assertions on what they produce (PromiseCoreTests' DocCCodeBlocksTests
// fails when a block of the article is missing here).

/// The article's overview example, returning what it computed.
func childProcessesOverview() throws -> [String] {
// DocC: begin
let loop = try UVLoop()
let kernel = loop.output("uname", ["-s"])              // looked up on PATH

var sort = UVCommand("sort", arguments: ["-r"])
sort.standardInput = .text("b\na\nc\n")                // given to the child as a memfd
let sorted = loop.spawn(sort)
    .then(on: loop) { result in try result.requireSuccess("sort").outputText ?? "" }

let texts = try loop.run(until: all([kernel, sorted]))
try awaitPromise(loop.shutdown())
// DocC: end
    return texts
}

@Suite struct DocCProcessExamplesTests {
    @Test func overview() async throws {
        let texts = try await onNewThread { Result { try childProcessesOverview() } }.get().get()
        #expect(texts == ["Linux\n", "c\nb\na\n"])
    }

    @Test func missingProgram() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        // DocC: begin
        do {
            _ = try await loop.spawn(UVCommand("no-such-tool")).get()
        } catch UVError.Code.noSuchFileOrDirectory {
            print("install no-such-tool first")
        }
        // DocC: end
        // Any other error fails the test above; this checks that it was this one.
        await expectUVError(.noSuchFileOrDirectory) { try await loop.spawn(UVCommand("no-such-tool")).get() }
    }

    @Test func anExtraDescriptorByNumber() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        let listeningSocket = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(listeningSocket >= 0)
        defer { close(listeningSocket) }
        // DocC: begin
        var worker = UVCommand("/usr/local/bin/worker", arguments: ["--listen-fd", "3"])
        worker.extraDescriptors = [3: listeningSocket]    // the child's 3 is this socket
        let done = loop.spawn(worker)
        // DocC: end
        #expect(worker.extraDescriptors == [3: listeningSocket])
        // No such worker here: the command is checked and refused for that alone.
        await expectUVError(.noSuchFileOrDirectory) { _ = try await done.get() }
    }

    @Test func oneChildIntoAnother() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        // DocC: begin
        let pipe = try UVPipe()
        let list = loop.spawn(UVCommand("ls", arguments: ["-1", "/etc"], standardOutput: .pipe(pipe)))
        let count = loop.spawn(UVCommand("wc", arguments: ["-l"], standardInput: .pipe(pipe)))
        let lines = count.then(on: loop) { result in result.outputText ?? "" }
        // DocC: end
        let expected = try FileManager.default.contentsOfDirectory(atPath: "/etc").filter { !$0.hasPrefix(".") }.count  // as `ls` lists
        #expect(try await lines.get().trimmingCharacters(in: .whitespacesAndNewlines) == "\(expected)")
        #expect(try await list.get().exit == .exited(0))
    }

    @Test func readingARunningChildsOutput() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        let directory = try TemporaryDirectory()
        try writeProgram("#!/bin/sh\necho compiling $1\necho linking >&2\n", to: directory.path + "/build.sh")
        let projectDirectory = directory.path
        // DocC: begin
        var build = UVCommand("./build.sh", arguments: ["--release"], workingDirectory: projectDirectory)
        build.standardOutput = .stream(bufferLimit: 64 << 10)
        build.standardError = .combinedWithOutput
        let running = loop.start(build)
        var log: [UInt8] = []
        for try await piece in running.standardOutput! {
            log += piece                                   // as the build writes it
        }
        let finished = try await running.result.get()     // settles once the output has ended
        // DocC: end
        #expect(String(decoding: log, as: UTF8.self) == "compiling --release\nlinking\n")
        #expect(finished.exit == .exited(0))
    }

    @Test func aTeardownOfTwoStepsForAServerAndItsWorkers() throws {
        // DocC: begin
        var server = UVCommand("/usr/sbin/nginx", arguments: ["-g", "daemon off;"])
        server.teardown = [
            .signal(.interrupt, wait: .seconds(2)),       // finish what is in hand
            .signal(.terminate, wait: .seconds(5)),       // then stop; SIGKILL 5 s later
        ]
        server.processGroup = .ownSession                 // the signals reach its workers too
        // DocC: end
        #expect(server.terminationGrace == .seconds(7))
        #expect(server.teardown.map(\.signal) == [.interrupt, .terminate])
    }

    @Test func combiningStandardErrorWithOutput() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        let directory = try TemporaryDirectory()
        try writeFile("echo compiling\necho warning >&2\necho done\n", to: directory.path + "/run-checks.sh")
        let projectDirectory = directory.path
        func body() async throws -> String {
            // DocC: begin
            var checks = UVCommand("/bin/sh", arguments: ["run-checks.sh"], workingDirectory: projectDirectory)
            checks.standardError = .combinedWithOutput         // one log, in the order it was written
            let log = try await loop.spawn(checks).get().outputText ?? ""
            // DocC: end
            return log
        }
        #expect(try await body() == "compiling\nwarning\ndone\n")
    }

    @Test func aRunningChild() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        func example() -> UVChildProcess {
            // DocC: begin
            let server = loop.start(UVCommand("/usr/sbin/nginx", arguments: ["-g", "daemon off;"]))
            server.processID.then { pid in print("nginx is \(pid)") }
            server.send(.hangup)                               // reload, once it runs
            server.exit.then { exit in print("nginx \(exit)") }
            // DocC: end
            return server
        }
        _ = example  // the block as written is compiled; it runs below against a stand-in
        // A stand-in for the server (a real nginx would want port 80): a shell that reports
        // SIGHUP and exits on SIGTERM.
        let lines = CollectedLines()
        var command = UVCommand(
            "/bin/sh", arguments: ["-c", "trap 'echo reloaded' HUP; trap 'exit 0' TERM; echo ready; \(idleShellLoop)"],
            standardOutput: lines.output(on: loop))
        command.teardown = [.signal(.terminate, wait: .seconds(30))]
        let server = loop.start(command)
        _ = try await server.processID.get()
        #expect(try await eventually { lines.all == ["ready"] })
        try await server.send(.hangup).get()
        #expect(try await eventually { lines.all == ["ready", "reloaded"] })
        server.result.cancel()
        #expect(try await server.exit.get() == .exited(0))
    }

    @Test func writingToARunningChild() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        // DocC: begin
        let sorter = loop.start(UVCommand("sort", standardInput: .writer))
        let input = sorter.standardInput!
        for name in ["pear", "apple", "fig"] {
            input.write(name + "\n")                     // fulfilled once in the pipe
        }
        input.finish()                                   // sort reads end-of-file
        let sorted = sorter.result.then(on: loop) { $0.outputText ?? "" }
        // DocC: end
        #expect(try await sorted.get() == "apple\nfig\npear\n")
    }

    @Test func aPseudoTerminal() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        // DocC: begin
        var command = UVCommand("/bin/sh", arguments: ["-c", "read name; stty size; echo \"hi $name\""])
        command.terminal = UVCommand.Terminal(columns: 100, rows: 30)
        command.standardInput = .writer                  // typed at the terminal
        command.standardError = .combinedWithOutput      // shown on it too
        let session = loop.start(command)
        session.resizeTerminal(columns: 120, rows: 40)   // the child gets SIGWINCH
        session.standardInput!.write("Ada\n")
        let screen = session.result.then(on: loop) { $0.outputText ?? "" }
        // "Ada\r\n40 120\r\nhi Ada\r\n": the echo of what was typed, then the child's output
        // DocC: end
        #expect(try await screen.get() == "Ada\r\n40 120\r\nhi Ada\r\n")
    }

    @Test func cancellingALongRun() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        // DocC: begin
        var build = UVCommand("/bin/sh", arguments: ["-c", "echo step 1; sleep 60; echo step 2"])
        build.terminationGrace = .seconds(2)
        build.standardOutput = .lines(on: loop) { line in
            print(String(decoding: line, as: UTF8.self))
        }
        let building = loop.spawn(build)
        loop.after(.seconds(1)).then(on: loop) { building.cancel() }   // SIGTERM, SIGKILL 2 s later
        // DocC: end
        await #expect(throws: CancellationError.self) { try await building.get() }
    }
}
