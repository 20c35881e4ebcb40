import Foundation
import PromiseTestSupport
import PromiseUV
import Testing

/// One child's output into another's input (`UVPipe`), and descriptors given for standard
/// input and output, against real programs.
@Suite struct ProcessPipeTests {
    @Test func aPipeCarriesOneChildsOutputIntoAnothersInput() async throws {
        let loop = try startedLoop("uv-pipe")
        defer { loop.shutdown() }
        let pipe = try UVPipe()
        let producer = loop.spawn(UVCommand("printf", arguments: ["b\\na\\nc\\n"], standardOutput: .pipe(pipe)))
        let consumer = loop.spawn(UVCommand("sort", standardInput: .pipe(pipe)))
        // Still referenced here: the ends belong to the children, so `sort` reads end-of-file
        // as soon as `printf` has exited.
        let sorted = try await consumer.get()
        withExtendedLifetime(pipe) {}
        #expect(sorted.exit == .exited(0))
        #expect(sorted.outputText == "a\nb\nc\n")
        let produced = try await producer.get()
        #expect(produced.exit == .exited(0))
        #expect(produced.outputText == "", "the output went into the pipe, not to the loop")
    }

    /// As in a shell, a writer whose reader has gone gets `SIGPIPE` (its default action, which
    /// a child always starts with), however much it meant to write.
    @Test func aWriterWhoseReaderExitedEndsWithSIGPIPE() async throws {
        let loop = try startedLoop("uv-pipe-epipe")
        defer { loop.shutdown() }
        let pipe = try UVPipe()
        let endless = loop.spawn(UVCommand("yes", standardOutput: .pipe(pipe), terminationGrace: .zero))
        let first = try await loop.spawn(UVCommand("head", arguments: ["-n", "1"], standardInput: .pipe(pipe))).get()
        #expect(first.outputText == "y\n")
        let ended = try await endless.get()
        #expect(ended.exit == .signaled(SIGPIPE), "\(ended.exit) \(ended.errorText ?? "")")
    }

    @Test func eachEndGoesToOneCommandOnly() async throws {
        let loop = try startedLoop("uv-pipe-twice")
        defer { loop.shutdown() }
        let pipe = try UVPipe()
        let reader = loop.spawn(UVCommand("cat", standardInput: .pipe(pipe)))
        let secondReader = await expectUVError(.invalidArgument) { _ = try await loop.spawn(UVCommand("cat", standardInput: .pipe(pipe))).get() }
        #expect(secondReader?.detail.contains("reading end") == true)
        let writer = loop.spawn(UVCommand("echo", arguments: ["once"], standardOutput: .pipe(pipe)))
        let secondWriter = await expectUVError(.invalidArgument) {
            _ = try await loop.spawn(UVCommand("echo", arguments: ["twice"], standardError: .pipe(pipe))).get()
        }
        #expect(secondWriter?.detail.contains("writing end") == true)
        #expect(try await writer.get().exit == .exited(0))
        #expect(try await reader.get().outputText == "once\n")
    }

    /// A reader whose pipe no command writes to reads end-of-file once the `UVPipe` is gone.
    @Test func aReaderOfAnAbandonedPipeReadsEndOfFile() async throws {
        let loop = try startedLoop("uv-pipe-alone")
        defer { loop.shutdown() }
        let reader = try { () throws -> Promise<UVProcessResult> in
            let pipe = try UVPipe()
            return loop.spawn(UVCommand("cat", standardInput: .pipe(pipe)))
        }()
        let result = try await reader.get()
        #expect(result.exit == .exited(0))
        #expect(result.outputText == "")
    }

    /// Descriptors given for standard input and output are copied when the command is handed
    /// over: closing them at once takes nothing from the child.
    @Test func givenDescriptorsMayBeClosedAsSoonAsTheCommandIsHandedOver() async throws {
        let loop = try startedLoop("uv-pipe-fd")
        defer { loop.shutdown() }
        let directory = try TemporaryDirectory()
        try writeFile("from a descriptor\n", to: directory.path + "/in")
        let input = open(directory.path + "/in", O_RDONLY | O_CLOEXEC)
        let output = open(directory.path + "/out", O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        try #require(input >= 0 && output >= 0)
        let copied = loop.spawn(UVCommand("cat", standardInput: .descriptor(input), standardOutput: .descriptor(output)))
        close(input)
        close(output)
        #expect(try await copied.get().exit == .exited(0))
        #expect(try String(contentsOfFile: directory.path + "/out", encoding: .utf8) == "from a descriptor\n")
        // Numbers no process can hold (a closed one may be reused by another test meanwhile).
        for number in [Int32(-1), Int32.max] {
            await expectUVError(UVError.Code(uvCode: -EBADF)) { _ = try await loop.spawn(UVCommand("cat", standardInput: .descriptor(number))).get() }
            await expectUVError(UVError.Code(uvCode: -EBADF)) { _ = try await loop.spawn(UVCommand("true", standardOutput: .descriptor(number))).get() }
        }
    }
}
