import Foundation
import PromiseTestSupport
import PromiseUV
import Testing

/// A child's standard input written while it runs (`UVCommand.Input.writer`), against real
/// programs.
extension ProcessTests {
    @Test func writesReachTheChildInOrderAndFinishEndsItsInput() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        let child = loop.start(UVCommand("cat", standardInput: .writer))
        let input = try #require(child.standardInput)
        let first = input.write("first\n")
        let empty = input.write([])
        let second = input.write(Array("second\n".utf8))
        try await first.get()
        try await empty.get()
        try await second.get()
        try await input.finish().get()
        let result = try await child.result.get()
        #expect(result.exit == .exited(0))
        #expect(result.outputText == "first\nsecond\n")
        // Finishing again settles the same way; a write after it is refused.
        try await input.finish().get()
        let late = await expectUVError(.invalidArgument) { try await input.write("late").get() }
        #expect(late?.message.contains("finish()") == true, "\(String(describing: late))")
    }

    @Test func aChildAnswersEachLineWhileItRuns() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        let lines = Lock<[String]>([])
        let child = loop.start(
            UVCommand(
                "/bin/sh", arguments: ["-c", "while read -r line; do echo \"got $line\"; done"], standardInput: .writer,
                standardOutput: .lines(on: loop) { line in lines.withLock { $0.append(String(decoding: line, as: UTF8.self)) } }))
        let input = try #require(child.standardInput)
        input.write("one\n")
        #expect(try await eventually(.seconds(20)) { lines.withLock { $0 } == ["got one"] })
        #expect(child.result.isPending, "the child ended before its second line")
        input.write("two\n")
        #expect(try await eventually(.seconds(20)) { lines.withLock { $0 } == ["got one", "got two"] })
        try await input.finish().get()
        #expect(try await child.result.get().exit == .exited(0))
    }

    @Test func aChildThatDoesNotReadHoldsTheWritesUntilItIsStopped() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        let child = loop.start(UVCommand("sleep", arguments: ["3600"], standardInput: .writer, terminationGrace: .zero))
        let input = try #require(child.standardInput)
        _ = try await child.processID.get()
        // Far more than a socket's buffer: nobody reads, so neither write can be done.
        let large = input.write([UInt8](repeating: 0x61, count: 16 << 20))
        let after = input.write("after\n")
        try await loop.after(.milliseconds(200)).get()
        #expect(large.isPending && after.isPending, "16 MiB went into a pipe that nobody reads")
        child.result.cancel()
        let error = await expectUVError(.brokenPipe) { try await large.get() }
        #expect(error?.message.contains("sleep") == true, "\(String(describing: error))")
        await expectUVError(.brokenPipe) { try await after.get() }
        await expectUVError(.brokenPipe) { try await input.write("later").get() }
        await expectUVError(.brokenPipe) { try await input.finish().get() }
        await #expect(throws: CancellationError.self) { try await child.result.get() }
    }

    @Test func aChildThatExitsWhileWrittenToFailsTheWriteAndRaisesNoSIGPIPE() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        // head reads 10 bytes and exits: the rest meets a closed pipe. SIGPIPE here would end
        // the test process.
        let child = loop.start(UVCommand("head", arguments: ["-c", "10"], standardInput: .writer, standardOutput: .discard))
        let input = try #require(child.standardInput)
        let write = input.write([UInt8](repeating: 0x62, count: 8 << 20))
        await expectUVError(.brokenPipe) { try await write.get() }
        #expect(try await child.result.get().exit == .exited(0))
        await expectUVError(.brokenPipe) { try await input.write("more").get() }
    }

    @Test func cancellingAWriteDropsWhatHasNotGoneOut() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        let directory = try TemporaryDirectory()
        let received = directory.path + "/received"
        let ready = Lock(false)
        // Reads nothing until SIGUSR1, then copies its input to `received`.
        let child = loop.start(
            UVCommand(
                "/bin/sh", arguments: ["-c", "trap 'exec cat > \"$0\"' USR1; echo ready; while :; do sleep 0.05; done", received],
                standardInput: .writer, standardOutput: .lines(on: loop) { _ in ready.withLock { $0 = true } }, terminationGrace: .zero))
        let input = try #require(child.standardInput)
        #expect(try await eventually(.seconds(20)) { ready.withLock { $0 } })
        let large = input.write([UInt8](repeating: 0x63, count: 16 << 20))
        large.cancel()
        await #expect(throws: CancellationError.self) { try await large.get() }
        let end = input.write("end\n")
        let finished = input.finish()
        try await child.send(.user1).get()
        try await end.get()
        try await finished.get()
        #expect(try await child.result.get().exit == .exited(0))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: received))
        #expect(bytes.count < (16 << 20) + 4, "the rest of the cancelled write went out")
        #expect(bytes.suffix(4) == Data("end\n".utf8))
    }

    @Test func writesFromManyThreadsKeepEachThreadsOrder() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        let child = loop.start(UVCommand("cat", standardInput: .writer))
        let input = try #require(child.standardInput)
        try await offCooperativePool {
            DispatchQueue.concurrentPerform(iterations: 8) { thread in
                for line in 0..<200 { input.write("\(thread) \(line)\n") }
            }
        }
        try await input.finish().get()
        let lines = try await child.result.get().outputText?.split(separator: "\n").map(String.init) ?? []
        #expect(lines.count == 8 * 200)
        for thread in 0..<8 {
            #expect(lines.filter { $0.hasPrefix("\(thread) ") } == (0..<200).map { "\(thread) \($0)" })
        }
    }

    @Test func aLargeWriteArrivesWhole() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        let child = loop.start(UVCommand("wc", arguments: ["-c"], standardInput: .writer))
        let input = try #require(child.standardInput)
        input.write([UInt8](repeating: 0x7a, count: 64 << 20))
        try await input.finish().get()
        #expect(try await child.result.get().outputText?.trimmingCharacters(in: .whitespacesAndNewlines) == "\(64 << 20)")
    }

    @Test func droppingTheStandardInputFinishesIt() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        let result: Promise<UVProcessResult>
        do {
            let child = loop.start(UVCommand("cat", standardInput: .writer))
            child.standardInput?.write("kept\n")
            result = child.result
        }
        // cat reads end-of-file once nothing can write any more, and exits.
        #expect(try await result.get().outputText == "kept\n")
    }

    @Test func aWriterNeedsStartAndARefusedCommandRefusesItsWrites() async throws {
        let loop = try startedLoop()
        defer { loop.shutdown() }
        let spawned = await expectUVError(.invalidArgument) { _ = try await loop.spawn(UVCommand("cat", standardInput: .writer)).get() }
        #expect(spawned?.message.contains("loop.start") == true, "\(String(describing: spawned))")
        let missing = loop.start(UVCommand("/nonexistent/program", standardInput: .writer))
        await expectUVError(.noSuchFileOrDirectory) { try await missing.standardInput?.write("x").get() }
        await expectUVError(.noSuchFileOrDirectory) { try await missing.standardInput?.finish().get() }
        #expect(loop.start(UVCommand("true")).standardInput == nil)
    }

    @Test func shutdownRejectsWhatWaitsWithLoopClosed() async throws {
        let loop = try startedLoop()
        let child = loop.start(UVCommand("sleep", arguments: ["3600"], standardInput: .writer))
        let input = try #require(child.standardInput)
        _ = try await child.processID.get()
        let large = input.write([UInt8](repeating: 0, count: 16 << 20))
        try await loop.shutdown().get()
        await expectUVError(.loopClosed) { try await large.get() }
        await expectUVError(.loopClosed) { try await input.write("x").get() }
        await expectUVError(.loopClosed) { try await child.result.get() }
    }
}
