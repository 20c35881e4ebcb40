import Foundation
import Glibc
import Testing

@testable import PromiseSystem

@Suite struct SystemCallTests {
    @Test func anInterruptedCallIsMadeAgainUntilItAnswers() {
        var calls = 0
        let result: Int32 = SystemCall.retryingInterrupts {
            calls += 1
            if calls < 4 {
                errno = EINTR
                return -1
            }
            return 7
        }
        #expect(result == 7)
        #expect(calls == 4)
    }

    @Test func aRealFailureIsReturnedAtOnceWithItsErrno() {
        var calls = 0
        let result: Int = SystemCall.retryingInterrupts {
            calls += 1
            errno = EBADF
            return -1
        }
        #expect(result == -1)
        #expect(errno == EBADF)
        #expect(calls == 1)
    }

    @Test func aValueOtherThanMinusOneIsNeverRetriedWhateverErrnoSays() {
        var calls = 0
        let result: Int32 = SystemCall.retryingInterrupts {
            calls += 1
            errno = EINTR
            return 0
        }
        #expect(result == 0)
        #expect(calls == 1)
    }

    @Test func writeAllDeliversEveryByteThroughAPipe() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        // Close-on-exec: a child another test spawns meanwhile would keep the write end open,
        // and the read below would never see the end of the data.
        for end in ends { try #require(fcntl(end, F_SETFD, FD_CLOEXEC) == 0) }
        defer { SystemCall.close(ends[0]) }
        let bytes = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        // The pipe holds 64 KiB: the writer blocks until the reader below has taken the rest.
        let writeEnd = ends[1]
        let writer = Thread {
            let failure = bytes.withUnsafeBytes { SystemCall.writeAll(writeEnd, $0) }
            SystemCall.close(writeEnd)
            precondition(failure == nil, "writeAll failed with errno \(failure ?? 0)")
        }
        writer.start()
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 8192)
        while true {
            let read = buffer.withUnsafeMutableBytes { SystemCall.read(ends[0], into: $0) }
            let count = try read.get()
            if count == 0 { break }
            received += buffer[..<count]
        }
        #expect(received == bytes)
    }

    @Test func writeAllReportsTheErrnoOfAFullNonBlockingPipe() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer {
            SystemCall.close(ends[0])
            SystemCall.close(ends[1])
        }
        try #require(fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK) == 0)
        let bytes = [UInt8](repeating: 1, count: 1 << 20)
        let failure = bytes.withUnsafeBytes { SystemCall.writeAll(ends[1], $0) }
        #expect(failure == EAGAIN)
    }

    @Test func readReportsTheErrnoOfABadDescriptor() {
        var buffer = [UInt8](repeating: 0, count: 16)
        let read = buffer.withUnsafeMutableBytes { SystemCall.read(-1, into: $0) }
        #expect(read == .failure(SystemCallError(errno: EBADF)))
    }

    @Test func closeReportsAFailureOnceAndNeverRetries() {
        #expect(SystemCall.close(-1) == EBADF)
    }

    @Test func sleepWaitsAtLeastTheTimeAsked() {
        let start = ContinuousClock.now
        SystemCall.sleep(nanoseconds: 20_000_000)
        #expect(ContinuousClock.now - start >= .milliseconds(20))
        SystemCall.sleep(nanoseconds: -5)
    }

    /// The layer is the only code that handles `EINTR`: a loop written elsewhere is a second
    /// policy, which is what this test refuses. Comments may name `EINTR`.
    @Test func noOtherFileRetriesInterruptedCalls() throws {
        let sources = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources")
        let layer = "PromiseBasics/Internal/SystemCall.swift"
        let files = try #require(FileManager.default.enumerator(atPath: sources.path))
        var scanned = 0
        var offenders: [String] = []
        for case let file as String in files where file.hasSuffix(".swift") {
            scanned += 1
            guard file != layer else { continue }
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                if handlesInterrupts(line) { offenders.append("\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))") }
            }
        }
        #expect(scanned > 200, "the scan found too few files under \(sources.path): \(scanned)")
        #expect(offenders.isEmpty, "handle EINTR through SystemCall (PromiseBasics) instead: \(offenders)")
    }

    @Test func theScanSeesCodeAndSkipsComments() {
        #expect(handlesInterrupts("if errno == EINTR { continue } // retried"))
        #expect(handlesInterrupts("    guard result != -1 || errno != EINTR else {"))
        #expect(!handlesInterrupts("/// `EINTR` is retried"))
        #expect(!handlesInterrupts("let x = 1 // not EINTR"))
    }
}

/// Whether a source line's code (what comes before a `//`) names `EINTR`.
private func handlesInterrupts(_ line: some StringProtocol) -> Bool {
    String(line).components(separatedBy: "//")[0].contains("EINTR")
}
