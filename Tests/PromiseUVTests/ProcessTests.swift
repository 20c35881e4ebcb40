import Foundation
import PromiseTestSupport
import PromiseUV
import Synchronization
import Testing

/// Child processes against real programs. Serialized: the checks for descriptors and zombies
/// left over look at the whole test process.
///
/// No test in this process changes SIGCHLD's action. Other suites spawn children beside these,
/// and SIGCHLD's action is leased by the first child and put back by the last: an action of a
/// test's own, swapped in while another suite's child runs, would be undone under it or would
/// undo the lease (an ignored SIGCHLD has the kernel reap every child, and their statuses are
/// lost). A program's own SIGCHLD action is checked in processes of their own, by
/// `ChildSignalOwnerTests`.
@Suite(.serialized) struct ProcessTests {
    @Test func capturesOutputErrorAndExitStatus() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        let result = try await loop.spawn(UVCommand("/bin/sh", arguments: ["-c", "echo out; echo err >&2; exit 3"])).get()
        #expect(result.exit == .exited(3))
        #expect(result.outputText == "out\n")
        #expect(result.errorText == "err\n")
        #expect(result.processID > 0)
        expectUVErrorNow(.processFailed) { try result.requireSuccess("sh") }
    }

    @Test func looksProgramsUpOnPathAndRequiresSuccessWhenAsked() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        #expect(try await loop.output("echo", ["a b", "c"]).get() == "a b c\n")
        await expectUVError(.processFailed) { try await loop.output("false").get() }
        #expect(try await loop.output("false", requireSuccess: false).get() == "")
    }

    @Test func environmentIsInheritedReplacedOrAmended() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        setenv("PROMISE_UV_SPAWN_PROBE", "inherited", 1)
        let script = "echo \"$PROMISE_UV_SPAWN_PROBE|${HOME-unset}|$EXTRA\""
        let inherited = try await loop.spawn(UVCommand("/bin/sh", arguments: ["-c", script])).get()
        #expect(inherited.outputText == "inherited|\(ProcessInfo.processInfo.environment["HOME"] ?? "unset")|\n")
        let replaced = try await loop.spawn(UVCommand("/bin/sh", arguments: ["-c", script], environment: .replace(["EXTRA": "x"]))).get()
        #expect(replaced.outputText == "|unset|x\n")
        let amended = try await loop.spawn(
            UVCommand("/bin/sh", arguments: ["-c", script], environment: .inherit(amending: ["HOME": nil, "EXTRA": "y"]))
        ).get()
        #expect(amended.outputText == "inherited|unset|y\n")
        // A replaced environment without PATH still finds programs in the default PATH.
        #expect(try await loop.spawn(UVCommand("true", environment: .replace([:]))).get().exit == .exited(0))
    }

    /// An amended environment passes the inherited variables on byte for byte, UTF-8 or not.
    /// In a process of its own: `setenv` would race the other tests' spawns reading `environ`.
    @Test func anAmendedEnvironmentKeepsInheritedBytesThatAreNotUTF8() async {
        await #expect(processExitsWith: .success) {
            let raw: [CChar] = [0x61, CChar(bitPattern: 0xFF), 0x62, 0]
            guard setenv("PROMISE_UV_RAW_BYTES", raw, 1) == 0, let loop = try? startedLoop() else { exit(2) }
            let script = "printf %s \"$PROMISE_UV_RAW_BYTES|$Y\" | od -An -tx1"
            let child = loop.spawn(UVCommand("/bin/sh", arguments: ["-c", script], environment: .inherit(amending: ["Y": "1"])))
            guard let result = try? await child.get() else { exit(3) }
            let bytes = (result.outputText ?? "").split(whereSeparator: \.isWhitespace)
            exit(bytes == ["61", "ff", "62", "7c", "31"] ? 0 : 4)
        }
    }

    @Test func workingDirectoryAndRelativeProgram() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        let directory = try TemporaryDirectory()
        let real = URL(fileURLWithPath: directory.path).resolvingSymlinksInPath().path
        let result = try await loop.spawn(UVCommand("pwd", workingDirectory: directory.path)).get()
        #expect(result.outputText == "\(real)\n" || result.outputText == "\(directory.path)\n")
        try writeProgram("#!/bin/sh\necho hello from $0\n", to: directory.path + "/hello.sh")
        let relative = try await loop.spawn(UVCommand("./hello.sh", workingDirectory: directory.path)).get()
        #expect(relative.outputText == "hello from ./hello.sh\n")
    }

    @Test func standardInputFromBytesFileOrNull() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        let bytes = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let echoed = try await loop.spawn(UVCommand("cat", standardInput: .bytes(bytes))).get()
        #expect(echoed.standardOutput == bytes)
        // A child that reads nothing of a large input neither blocks nor signals the parent.
        let ignoring = try await loop.spawn(UVCommand("true", standardInput: .bytes(bytes))).get()
        #expect(ignoring.exit == .exited(0))
        let directory = try TemporaryDirectory()
        let file = directory.path + "/input.txt"
        try writeFile("from a file\n", to: file)
        #expect(try await loop.spawn(UVCommand("cat", standardInput: .file(file))).get().outputText == "from a file\n")
        #expect(try await loop.spawn(UVCommand("cat")).get().standardOutput.isEmpty)
        await expectUVError(.noSuchFileOrDirectory) {
            try await loop.spawn(UVCommand("cat", standardInput: .file(directory.path + "/missing"))).get()
        }
    }

    @Test func streamsLinesAndChunksToAContext() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        let queue = DispatchQueue(label: "lines")
        let lines = Lock<[String]>([])
        let command = UVCommand(
            "/bin/sh", arguments: ["-c", "printf 'a\\nbb\\n\\nlast'"],
            standardOutput: .lines(on: queue) { line in lines.withLock { $0.append(String(decoding: line, as: UTF8.self)) } })
        let result = try await loop.spawn(command).then(on: queue) { $0 }.get()
        #expect(result.standardOutput.isEmpty)
        #expect(lines.withLock { $0 } == ["a", "bb", "", "last"])

        let total = Lock(0)
        let chunks = UVCommand(
            "/bin/sh", arguments: ["-c", "yes | head -c 1000000"],
            standardOutput: .chunks(on: queue) { chunk in total.withLock { $0 += chunk.count } })
        _ = try await loop.spawn(chunks).then(on: queue) { $0 }.get()
        #expect(total.withLock { $0 } == 1_000_000)

        let tooLong = UVCommand("/bin/sh", arguments: ["-c", "yes | tr -d '\\n'"], standardOutput: .lines(maxLength: 4096) { _ in })
        await expectUVError(.outputLimitExceeded) { try await loop.spawn(tooLong).get() }
    }

    @Test func largeOutputAndCapBreach() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        let large = UVCommand("/bin/sh", arguments: ["-c", "yes | head -c 50000000"], standardOutput: .capture(limit: 64 << 20))
        let result = try await loop.spawn(large).get()
        #expect(result.standardOutput.count == 50_000_000)
        #expect(result.standardOutput.prefix(4) == [UInt8(ascii: "y"), 10, UInt8(ascii: "y"), 10])

        let endless = UVCommand("yes", standardOutput: .capture(limit: 1 << 20), terminationGrace: .milliseconds(100))
        do {
            _ = try await loop.spawn(endless).get()
            Issue.record("yes ended within its cap")
        } catch let error as UVError {
            #expect(error.code == .outputLimitExceeded)
            #expect(error.message.contains("1048576 bytes"))
        }
        // Exactly the limit is accepted; a zero limit refuses the first byte.
        let exact = UVCommand("/bin/sh", arguments: ["-c", "printf 12345"], standardOutput: .capture(limit: 5))
        #expect(try await loop.spawn(exact).get().outputText == "12345")
        let zero = UVCommand("/bin/sh", arguments: ["-c", "printf 1"], standardOutput: .capture(limit: 0))
        await expectUVError(.outputLimitExceeded) { try await loop.spawn(zero).get() }
        let huge = UVCommand("/bin/sh", arguments: ["-c", "printf ok"], standardOutput: .capture(limit: .max), terminationGrace: .seconds(1 << 40))
        #expect(try await loop.spawn(huge).get().outputText == "ok")
    }

    @Test func theLimitErrorCarriesWhatWasReadAndHowTheChildEnded() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        // Past the limit, the loop closes the pipe and sends SIGTERM. Whatever still writes
        // gets EPIPE, so the writer is quiet about it, and the child ends in `sleep`, which
        // only the signal ends.
        var endless = UVCommand(
            "/bin/sh", arguments: ["-c", "echo starting >&2; seq 1 100000 2>/dev/null; exec sleep 3600"],
            standardOutput: .capture(limit: 100_001))
        endless.teardown = [.signal(.terminate, wait: .seconds(10))]
        let error = try await #require(throws: UVError.self) { try await loop.spawn(endless).get() }
        #expect(error.code == .outputLimitExceeded)
        let partial = try #require(error.partialResult, "the limit error carries no partial result")
        #expect(partial.standardOutput.count == 100_001, "a capture keeps exactly its limit")
        let written = Array((1...100_000).map { "\($0)\n" }.joined().utf8)
        #expect(partial.standardOutput == Array(written.prefix(100_001)), "the bytes kept are not the first ones written")
        #expect(partial.standardError == Array("starting\n".utf8))
        #expect(partial.exit == .signaled(SIGTERM))
        #expect(partial.processID > 0)
        // Other errors carry none.
        let refused = try await #require(throws: UVError.self) { try await loop.spawn(UVCommand("no-such-program-\(getpid())")).get() }
        #expect(refused.partialResult == nil)
    }

    @Test func argv0IsWhatTheChildIsCalled() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        var named = UVCommand("/bin/cat", arguments: ["/proc/self/cmdline"])
        named.argv0 = "renamed-cat"
        #expect(try await loop.spawn(named).get().outputText == "renamed-cat\0/proc/self/cmdline\0")
        // Without it, the program as given; on PATH, by its name.
        #expect(try await loop.spawn(UVCommand("cat", arguments: ["/proc/self/cmdline"])).get().outputText == "cat\0/proc/self/cmdline\0")
        named.argv0 = "bad\0name"
        await expectUVError(.invalidArgument) { try await loop.spawn(named).get() }
    }

    @Test func clearErrorsForProgramsThatCannotRun() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        let directory = try TemporaryDirectory()
        let plain = directory.path + "/not-executable"
        try writeFile("echo no\n", to: plain, mode: 0o644)
        let cases: [(UVCommand, UVError.Code, String)] = [
            (UVCommand("no-such-program-\(getpid())"), .noSuchFileOrDirectory, "spawn"),
            (UVCommand("/no/such/program"), .noSuchFileOrDirectory, "spawn"),
            (UVCommand(directory.path), .isADirectory, "spawn"),
            (UVCommand(plain), .permissionDenied, "spawn"),
            (UVCommand("true", workingDirectory: directory.path + "/missing"), .noSuchFileOrDirectory, "chdir"),
            (UVCommand("true", workingDirectory: plain), .notADirectory, "chdir"),
            (UVCommand(""), .invalidArgument, "spawn"),
            (UVCommand("echo", arguments: ["a\0b"]), .invalidArgument, "spawn"),
            (UVCommand("true", terminationGrace: .seconds(-1)), .invalidArgument, "spawn"),
            (UVCommand("true", standardOutput: .capture(limit: -1)), .invalidArgument, "spawn"),
            (UVCommand("true", standardError: .lines(maxLength: 0) { _ in }), .invalidArgument, "spawn"),
            (UVCommand("true", environment: .replace(["A=B": "c"])), .invalidArgument, "spawn"),
        ]
        for (command, code, operation) in cases {
            do {
                _ = try await loop.spawn(command).get()
                Issue.record("\(command.program) ran")
            } catch let error as UVError {
                #expect(error.code == code, "\(command.program): \(error)")
                #expect(error.operation == operation, "\(command.program): \(error)")
            }
        }
    }

    /// `execvp` moves on past a PATH entry that `execve` refuses, a FIFO with execute
    /// permission included, and so does the lookup: the program in a later directory runs.
    @Test func pathLookupMovesOnPastEntriesExecveRefuses() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        let directory = try TemporaryDirectory()
        for sub in ["fifo", "plain", "later"] {
            try FileManager.default.createDirectory(atPath: directory.path + "/" + sub, withIntermediateDirectories: false)
        }
        #expect(mkfifo(directory.path + "/fifo/tool", 0o755) == 0)
        #expect(chmod(directory.path + "/fifo/tool", 0o755) == 0)
        try writeFile("#!/bin/sh\necho wrong\n", to: directory.path + "/plain/tool", mode: 0o644)
        try writeProgram("#!/bin/sh\necho found in later\n", to: directory.path + "/later/tool")

        let path = ["fifo", "plain", "later"].map { directory.path + "/" + $0 }.joined(separator: ":")
        let found = try await loop.spawn(UVCommand("tool", environment: .replace(["PATH": path]))).get()
        #expect(found.outputText == "found in later\n")

        // With nothing runnable left, the first refusal is the error, and it says what it was.
        let onlyFIFO = UVCommand("tool", environment: .replace(["PATH": directory.path + "/fifo"]))
        do {
            _ = try await loop.spawn(onlyFIFO).get()
            Issue.record("a FIFO ran")
        } catch let error as UVError {
            #expect(error.code == .permissionDenied, "\(error)")
            #expect(error.detail.contains("fifo/tool is not a regular file"), "\(error)")
        }
        await expectUVError(.permissionDenied) { try await loop.spawn(UVCommand(directory.path + "/fifo/tool")).get() }
    }

    /// A program found nowhere names the directories searched, each once, and only the first
    /// three of a long PATH.
    @Test func aMissingProgramNamesTheDirectoriesSearchedBriefly() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        func detail(path: String) async -> String {
            do {
                _ = try await loop.spawn(UVCommand("no-such-program-\(getpid())", environment: .replace(["PATH": path]))).get()
                return "ran"
            } catch let error as UVError {
                return error.code == .noSuchFileOrDirectory ? error.detail : "\(error)"
            } catch {
                return "\(error)"
            }
        }
        #expect(await detail(path: "/no-a:/no-b:/no-a") == "no program named no-such-program-\(getpid()) on PATH (searched /no-a, /no-b)")
        let long = (1...2000).map { "/no-\($0 % 7)" }.joined(separator: ":")
        #expect(await detail(path: long) == "no program named no-such-program-\(getpid()) on PATH (searched /no-1, /no-2, /no-3 and 4 more directories)")
        #expect(await detail(path: "") == "no program named no-such-program-\(getpid()) on PATH (searched .)")
    }

    @Test func exitBySignalIsReported() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        let result = try await loop.spawn(UVCommand("/bin/sh", arguments: ["-c", "kill -KILL $$"])).get()
        #expect(result.exit == .signaled(SIGKILL))
        #expect(!result.exit.isSuccess)
    }

    @Test func childSeesOnlyItsThreeStandardDescriptors() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        // Keep a descriptor of each kind PromiseUV opens for a child alive meanwhile.
        let other = loop.spawn(UVCommand("sleep", arguments: ["3600"], standardInput: .bytes([1, 2, 3]), terminationGrace: .zero))
        defer { other.cancel() }
        // The test process holds descriptors that are not close-on-exec (Foundation's pipes,
        // the test harness's, other suites'): none reaches the child either.
        let listing = try await loop.spawn(UVCommand("/bin/sh", arguments: ["-c", "ls /proc/$$/fd"], standardInput: .bytes(Array("x".utf8))))
            .get()
        // The shell lists its own descriptors, which it inherited.
        #expect(listing.outputText?.split(separator: "\n").map(String.init) == ["0", "1", "2"], "\(listing.outputText ?? "")")
    }
}
