import Foundation
import PromiseTestSupport
import PromiseUV
import Synchronization
import Testing

/// What each of several tasks got from a stream.
final class Outcomes: Sendable {
    let list = Lock<[Result<[UInt8]?, UVError>]>([])
}

/// A running child's output as an asynchronous sequence (`UVOutputStream`), against real
/// programs.
@Suite struct ProcessStreamTests {
    /// Reads a stream to its end.
    static func collect(_ stream: UVOutputStream) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        for try await piece in stream { bytes += piece }
        return bytes
    }

    /// Far more output than the buffer holds arrives whole and in order: the loop stops at the
    /// limit and reads again as the consumer takes (a loop that never read again would leave
    /// the child blocked and this test waiting).
    @Test func outputFarBeyondTheBufferArrivesWholeAndInOrder() async throws {
        let loop = try startedLoop("uv-stream")
        defer { loop.shutdown() }
        let child = loop.start(UVCommand("seq", arguments: ["1", "200000"], standardOutput: .stream(bufferLimit: 4_096)))
        let stream = try #require(child.standardOutput)
        #expect(child.standardError == nil)
        let bytes = try await Self.collect(stream)
        let expected = (1...200_000).map(String.init).joined(separator: "\n") + "\n"
        #expect(bytes.count == expected.utf8.count)
        #expect(bytes == Array(expected.utf8))
        let result = try await child.result.get()
        #expect(result.exit == .exited(0))
        #expect(result.standardOutput.isEmpty, "streamed output is not captured too")
    }

    @Test func bothStreamsAreReadAtOnce() async throws {
        let loop = try startedLoop("uv-stream-both")
        defer { loop.shutdown() }
        var command = UVCommand("/bin/sh", arguments: ["-c", "seq 1 50000; seq 1 30000 >&2"])
        command.standardOutput = .stream(bufferLimit: 1_024)
        command.standardError = .stream(bufferLimit: 1_024)
        let child = loop.start(command)
        let output = try #require(child.standardOutput)
        let error = try #require(child.standardError)
        async let out = Self.collect(output)
        async let err = Self.collect(error)
        let (outBytes, errBytes) = try await (out, err)
        #expect(String(decoding: outBytes, as: UTF8.self).split(separator: "\n").count == 50_000)
        #expect(String(decoding: errBytes, as: UTF8.self).split(separator: "\n").count == 30_000)
        #expect(try await child.result.get().exit == .exited(0))
    }

    /// A consumer that goes away after one piece leaves the child free: the loop reads on and
    /// drops the rest, and the result settles (a loop still paused would leave the child
    /// blocked on its full pipe and this test waiting).
    @Test func droppingTheStreamLetsTheChildFinish() async throws {
        let loop = try startedLoop("uv-stream-drop")
        defer { loop.shutdown() }
        let result = try await Self.readOnePieceThenLetGo(on: loop)
        #expect(try await result.get().exit == .exited(0))
    }

    /// Starts a child with far more output than its buffer, takes one piece, and releases the
    /// child's handle, its stream and the iterator; returns the result.
    static func readOnePieceThenLetGo(on loop: UVLoop) async throws -> Promise<UVProcessResult> {
        let child = loop.start(UVCommand("seq", arguments: ["1", "300000"], standardOutput: .stream(bufferLimit: 1_024)))
        var iterator = try #require(child.standardOutput).makeAsyncIterator()
        let first = try await iterator.next()
        #expect(first?.first == UInt8(ascii: "1"))
        return child.result
    }

    @Test func cancellingTheWaitingTaskThrowsAndKeepsTheOutputForLater() async throws {
        let loop = try startedLoop("uv-stream-cancel")
        defer { loop.shutdown() }
        let child = loop.start(UVCommand("/bin/sh", arguments: ["-c", "read line; echo got $line"], standardInput: .writer, standardOutput: .stream()))
        let stream = try #require(child.standardOutput)
        let waiting = Task {
            var iterator = stream.makeAsyncIterator(); return try await iterator.next()
        }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { _ = try await waiting.value }
        try await #require(child.standardInput).write("x\n").get()
        #expect(try await Self.collect(stream) == Array("got x\n".utf8))
        #expect(try await child.result.get().exit == .exited(0))
    }

    @Test func aSecondWaitingTaskIsRefused() async throws {
        let loop = try startedLoop("uv-stream-two")
        defer { loop.shutdown() }
        let child = loop.start(UVCommand("/bin/sh", arguments: ["-c", "read line; echo $line"], standardInput: .writer, standardOutput: .stream()))
        let stream = try #require(child.standardOutput)
        // Two tasks wait at once (the child writes nothing until it reads a line): whichever
        // comes second is refused at once, and the first gets the line.
        let outcomes = Outcomes()
        let tasks = (0..<2).map { _ in
            Task {
                var iterator = stream.makeAsyncIterator()
                do {
                    let piece = try await iterator.next()
                    outcomes.list.withLock { $0.append(.success(piece)) }
                } catch let error as UVError {
                    outcomes.list.withLock { $0.append(.failure(error)) }
                }
            }
        }
        #expect(try await eventually { outcomes.list.withLock { $0.count } == 1 })
        try await #require(child.standardInput).write("hello\n").get()
        for task in tasks { try await task.value }
        let both = outcomes.list.withLock { $0 }
        guard both.count == 2, case .failure(let refused) = both[0], case .success(let piece) = both[1] else {
            Issue.record("not one refusal then one line: \(both)")
            return
        }
        #expect(refused.code == .invalidArgument)
        #expect(piece == Array("hello\n".utf8))
    }

    @Test func aStreamIsRefusedBySpawnAndNeedsRoom() async throws {
        let loop = try startedLoop("uv-stream-bad")
        defer { loop.shutdown() }
        await expectUVError(.invalidArgument) { _ = try await loop.spawn(UVCommand("true", standardOutput: .stream())).get() }
        await expectUVError(.invalidArgument) { _ = try await loop.spawn(UVCommand("true", standardError: .stream())).get() }
        for limit in [0, -1, Int.min] {
            let child = loop.start(UVCommand("true", standardOutput: .stream(bufferLimit: limit)))
            await expectUVError(.invalidArgument) { _ = try await child.result.get() }
            await expectUVError(.invalidArgument) { _ = try await Self.collect(try #require(child.standardOutput)) }
        }
    }

    /// A child that never starts ends its stream with the same error as its result.
    @Test func aChildThatNeverStartsEndsItsStreamWithTheError() async throws {
        let loop = try startedLoop("uv-stream-refused")
        let missing = loop.start(UVCommand("no-such-program-here", standardOutput: .stream()))
        await expectUVError(.noSuchFileOrDirectory) { _ = try await Self.collect(try #require(missing.standardOutput)) }
        try await loop.shutdown().get()
        let late = loop.start(UVCommand("true", standardOutput: .stream()))
        await expectUVError(.loopClosed) { _ = try await Self.collect(try #require(late.standardOutput)) }
    }

    /// A stopped child's stream gives what it wrote, then ends; the result carries the stop.
    @Test func aCancelledChildsStreamEndsAfterWhatItWrote() async throws {
        let loop = try startedLoop("uv-stream-stop")
        defer { loop.shutdown() }
        let child = loop.start(
            UVCommand("/bin/sh", arguments: ["-c", "echo before; exec sleep 3600"], standardOutput: .stream(), terminationGrace: .zero))
        var iterator = try #require(child.standardOutput).makeAsyncIterator()
        #expect(try await iterator.next() == Array("before\n".utf8))
        child.result.cancel()
        #expect(try await iterator.next() == nil)
        await #expect(throws: CancellationError.self) { _ = try await child.result.get() }
    }
}
