import Foundation
import PromiseCore
import PromiseTestSupport
import Synchronization
import Testing

@testable import PromiseUV

/// Where a child's output goes besides the loop's pipes: standard error combined with
/// standard output, a file, a descriptor of this program's; and what each refuses.
@Suite struct ProcessOutputTests {
    static let bothStreams = "echo out 1; echo err 1 >&2; echo out 2; echo err 2 >&2"

    @Test func standardErrorCombinedWithCapturedOutputArrivesInOrderThroughOnePipe() async throws {
        let loop = try startedLoop("uv-combined")
        defer { loop.shutdown() }
        var command = UVCommand("/bin/sh", arguments: ["-c", Self.bothStreams])
        command.standardError = .combinedWithOutput
        let result = try await loop.spawn(command).get()
        #expect(result.outputText == "out 1\nerr 1\nout 2\nerr 2\n")
        #expect(result.standardError.isEmpty)
    }

    @Test func standardErrorCombinedWithStreamedLines() async throws {
        let loop = try startedLoop("uv-combined-lines")
        defer { loop.shutdown() }
        let lines = CollectedLines()
        var command = UVCommand("/bin/sh", arguments: ["-c", Self.bothStreams], standardOutput: lines.output(on: loop))
        command.standardError = .combinedWithOutput
        _ = try await loop.spawn(command).get()
        // The last handler was queued on the loop before the promise settled; it may run after
        // this task looks.
        #expect(try await eventually { lines.all.count >= 4 })
        #expect(lines.all == ["out 1", "err 1", "out 2", "err 2"])
    }

    @Test func aCombinedOutputPastItsLimitCarriesBothStreams() async throws {
        let loop = try startedLoop("uv-combined-limit")
        defer { loop.shutdown() }
        var command = UVCommand("/bin/sh", arguments: ["-c", "echo err >&2; exec yes"], standardOutput: .capture(limit: 1000))
        command.standardError = .combinedWithOutput
        let error = try await #require(throws: UVError.self) { try await loop.spawn(command).get() }
        #expect(error.code == .outputLimitExceeded)
        let partial = try #require(error.partialResult)
        #expect(partial.standardOutput.count == 1000)
        #expect(partial.standardOutput.starts(with: Array("err\ny\ny\n".utf8)))
    }

    @Test func outputToAFileTruncatesOrAppends() async throws {
        let loop = try startedLoop("uv-output-file")
        defer { loop.shutdown() }
        let directory = try TemporaryDirectory()
        let path = directory.path + "/log"
        try writeFile("old contents\n", to: path)
        var first = UVCommand("/bin/sh", arguments: ["-c", Self.bothStreams])
        first.standardOutput = .file(path)
        first.standardError = .combinedWithOutput
        let result = try await loop.spawn(first).get()
        #expect(result.standardOutput.isEmpty && result.standardError.isEmpty)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "out 1\nerr 1\nout 2\nerr 2\n")
        var second = UVCommand("/bin/sh", arguments: ["-c", "echo more; echo apart >&2"])
        second.standardOutput = .file(path, append: true)
        second.standardError = .file(directory.path + "/errors")
        _ = try await loop.spawn(second).get()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "out 1\nerr 1\nout 2\nerr 2\nmore\n")
        #expect(try String(contentsOfFile: directory.path + "/errors", encoding: .utf8) == "apart\n")
        let permissions = try FileManager.default.attributesOfItem(atPath: directory.path + "/errors")[.posixPermissions] as? Int
        #expect(permissions.map { $0 & 0o777 & ~0o644 } == 0, "a new output file is 0644 less the umask")
    }

    @Test func outputToADescriptorOfThisProgramLeavesItOpen() async throws {
        let loop = try startedLoop("uv-output-fd")
        defer { loop.shutdown() }
        let directory = try TemporaryDirectory()
        let path = directory.path + "/shared"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var command = UVCommand("/bin/sh", arguments: ["-c", "echo from child"])
        command.standardOutput = .descriptor(descriptor)
        _ = try await loop.spawn(command).get()
        #expect(fcntl(descriptor, F_GETFD) != -1, "the program's descriptor was closed")
        #expect(write(descriptor, "from parent\n", 12) == 12)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "from child\nfrom parent\n")
    }

    @Test func outputsThatCannotBeUsedAreRefusedBeforeAnythingStarts() async throws {
        let loop = try startedLoop("uv-output-bad")
        defer { loop.shutdown() }
        let directory = try TemporaryDirectory()
        var closedDescriptor = UVCommand("true")
        closedDescriptor.standardOutput = .descriptor(1_000_000)
        var negative = UVCommand("true")
        negative.standardError = .descriptor(-1)
        var missingDirectory = UVCommand("true")
        missingDirectory.standardOutput = .file(directory.path + "/no/such/dir/log")
        var aDirectory = UVCommand("true")
        aDirectory.standardOutput = .file(directory.path)
        var outputIntoItself = UVCommand("true")
        outputIntoItself.standardOutput = .combinedWithOutput
        var nul = UVCommand("true")
        nul.standardOutput = .file("log\0name")
        let badDescriptor = UVError.Code(uvCode: -EBADF)
        let cases: [(UVCommand, UVError.Code, String, String)] = [
            (closedDescriptor, badDescriptor, "spawn", "descriptor 1000000"),
            (negative, badDescriptor, "spawn", "standardError is descriptor -1"),
            (missingDirectory, .noSuchFileOrDirectory, "open", "cannot be written"),
            (aDirectory, .isADirectory, "open", "cannot be written"),
            (outputIntoItself, .invalidArgument, "spawn", "only standardError"),
            (nul, .invalidArgument, "spawn", "NUL byte"),
        ]
        for (command, code, operation, words) in cases {
            let error = try await #require(throws: UVError.self) { try await loop.spawn(command).get() }
            #expect(error.code == code, "\(error)")
            #expect(error.operation == operation, "\(error)")
            #expect(error.message.contains(words), "\(error)")
        }
    }

    @Test func anOutputFileOpenedForACommandRefusedLaterIsClosed() async throws {
        // The standard input cannot be opened after the output file was: the file's descriptor
        // must not stay open in this process.
        let loop = try startedLoop("uv-output-close")
        defer { loop.shutdown() }
        let directory = try TemporaryDirectory()
        var command = UVCommand("true")
        command.standardOutput = .file(directory.path + "/out")
        command.standardInput = .file(directory.path + "/missing-input")
        await expectUVError(.noSuchFileOrDirectory) { try await loop.spawn(command).get() }
        #expect(FileManager.default.fileExists(atPath: directory.path + "/out"), "the output file was not opened first")
        #expect(!descriptorsOpen(on: directory.path + "/out"), "the output file's descriptor leaked")
    }
}

/// Whether this process holds a descriptor open on the existing file at `path`.
func descriptorsOpen(on path: String) -> Bool {
    guard let resolved = realpath(path, nil) else { return false }
    let canonical = String(cString: resolved)
    free(resolved)
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return entries.contains { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == canonical }
}
