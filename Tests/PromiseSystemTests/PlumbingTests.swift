import Foundation
import Glibc
import Testing

@testable import PromiseSystem

@Suite struct DurationConversionTests {
    @Test func everyConversionRoundsUp() {
        #expect(Duration.nanoseconds(1).millisecondsRoundedUp(cappedAt: .max) == 1)
        #expect(Duration.milliseconds(1500).secondsRoundedUp(cappedAt: .max) == 2)
        #expect(Duration.seconds(2).secondsRoundedUp(cappedAt: .max) == 2)
        #expect(Duration.microseconds(1001).millisecondsRoundedUp(cappedAt: .max) == 2)
        #expect(Duration.milliseconds(3).millisecondsRoundedUp(cappedAt: .max) == 3)
        #expect(Duration(secondsComponent: 0, attosecondsComponent: 1).nanosecondsRoundedUp(cappedAt: .max) == 1)
        #expect(Duration.seconds(1).nanosecondsRoundedUp(cappedAt: .max) == 1_000_000_000)
    }

    @Test func zeroAndNegativeDurationsBecomeZero() {
        for duration in [Duration.zero, .milliseconds(-500), .seconds(-3), .nanoseconds(-1)] {
            #expect(duration.secondsRoundedUp(cappedAt: .max) == 0)
            #expect(duration.millisecondsRoundedUp(cappedAt: .max) == 0)
            #expect(duration.nanosecondsRoundedUp(cappedAt: .max) == 0)
        }
    }

    @Test func durationsPastTheCapBecomeTheCap() {
        #expect(Duration.seconds(Int64.max).millisecondsRoundedUp(cappedAt: 1 << 50) == 1 << 50)
        #expect(Duration.seconds(3).millisecondsRoundedUp(cappedAt: 2_500) == 2_500)
        #expect(Duration.milliseconds(2_999).secondsRoundedUp(cappedAt: 2) == 2)
        #expect(Duration.seconds(Int64(Int32.max) + 1).secondsRoundedUp(cappedAt: Int64(Int32.max)) == Int64(Int32.max))
        #expect(Duration.seconds(Int64.max).nanosecondsRoundedUp(cappedAt: .max) == .max)
    }

    @Test func secondsAsDoubleKeepsTheFraction() {
        #expect(Duration.milliseconds(1_250).secondsAsDouble == 1.25)
        #expect(Duration.milliseconds(-1_250).secondsAsDouble == -1.25)
    }

    /// `Duration` holds far more than `Int64.max` seconds, where its `components` trap.
    @Test(arguments: [Duration(attoseconds: .max), .seconds(1e20), .seconds(Int64.max) + .seconds(1)])
    func everyDurationPastInt64SecondsConvertsToTheCap(_ duration: Duration) {
        #expect(duration.secondsRoundedUp(cappedAt: .max) == .max)
        #expect(duration.millisecondsRoundedUp(cappedAt: 1 << 50) == 1 << 50)
        #expect(duration.nanosecondsRoundedUp(cappedAt: .max) == .max)
        #expect(duration.dispatchInterval == .never)
        #expect(duration.secondsAsDouble >= 9.2e18)
        let now = ContinuousClock.now
        #expect(now.advanced(saturatingBy: duration) == now.advanced(by: Duration.longestWait))
        #expect(now.advanced(saturatingBy: .zero - duration) == now.advanced(by: .zero - Duration.longestWait))
        #expect((.zero - duration).millisecondsRoundedUp(cappedAt: .max) == 0)
    }

    @Test func aDeadlineWithinTheLongestWaitIsExact() {
        let now = ContinuousClock.now
        #expect(now.advanced(saturatingBy: .seconds(3)) == now.advanced(by: .seconds(3)))
        #expect(now.advanced(saturatingBy: .seconds(-3)) == now.advanced(by: .seconds(-3)))
        #expect(Duration(attoseconds: 1).nanosecondsRoundedUp(cappedAt: .max) == 1)
        #expect(Duration(attoseconds: 1_000_000_001).nanosecondsRoundedUp(cappedAt: .max) == 2)
    }

    /// The conversions and `advanced(saturatingBy:)` above are the only ones: no other source
    /// file reads a `Duration`'s `components` (which trap past `Int64.max` seconds) or adds a
    /// caller's duration to an instant (which traps past what an instant holds).
    @Test func noSourceConvertsADurationOrComputesADeadlineItself() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources")
        // PromiseCore's inlinable code cannot reach PromiseBasics: its one sum clamps the limit
        // to a second, and its other adds a constant.
        let exceptions: Set<String> = ["PromiseBasics/DurationConversions.swift", "PromiseCore/Promise+Async.swift"]
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String } ?? []
        var checked = 0
        var offending: [String] = []
        for file in files where file.hasSuffix(".swift") && !exceptions.contains(file) {
            checked += 1
            let text = try String(contentsOfFile: sources.appendingPathComponent(file).path, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                let sums =
                    line.contains("now.advanced(by:") || line.contains("Instant.now +")
                    || (line.contains("now + ") && !line.contains("now() + ") && !line.contains("clampedForDeadline"))
                if line.contains(".components") || sums { offending.append("\(file):\(number + 1): \(line)") }
            }
        }
        #expect(checked > 100, "found \(checked) source files under \(sources.path)")
        #expect(offending.isEmpty, "convert through PromiseBasics' DurationConversions:\n\(offending.joined(separator: "\n"))")
        let promiseAsync = try String(contentsOfFile: sources.appendingPathComponent("PromiseCore/Promise+Async.swift").path, encoding: .utf8)
        #expect(promiseAsync.contains("now.advanced(by: min(limit, .seconds(1)))"))
    }
}

@Suite struct NamedThreadTests {
    @Test func namesAreCutToWholeCharactersWithinFifteenBytes() {
        #expect(NamedThread.kernelName("promise-sqlite") == "promise-sqlite")
        #expect(NamedThread.kernelName("promise-sqlite-r") == "promise-sqlite-")
        // 7 two-byte characters are 14 bytes; the eighth would make 16.
        #expect(NamedThread.kernelName(String(repeating: "é", count: 8)) == String(repeating: "é", count: 7))
        #expect(NamedThread.kernelName("") == "")
    }

    @Test func aStartedThreadRunsItsBodyUnderItsName() async throws {
        let seen = UnsafeSendableBox()
        let done = DispatchLite()
        let status = NamedThread.start(name: "promise-test-named") {
            seen.value = threadComm()
            done.signal()
        }
        #expect(status == 0)
        done.wait()
        #expect(seen.value == "promise-test-na")
    }
}

@Suite struct ErrnoTextTests {
    @Test func theSentenceIsLowercasedAndCarriesTheNumber() {
        #expect(ErrnoText.describe(EACCES) == "permission denied (errno 13)")
        #expect(ErrnoText.sentence(ENOENT) == "no such file or directory")
        #expect(ErrnoText.describe(99_999).hasSuffix("(errno 99999)"))
    }
}

@Suite struct AdapterPathsTests {
    @Test func splitWorksOnBytesAndTrailingSlashes() {
        func split(_ path: String) -> (String, String) {
            let (directory, name) = AdapterPaths.split(path.utf8)
            return (String(decoding: directory, as: UTF8.self), String(decoding: name, as: UTF8.self))
        }
        #expect(split("a/b/c.txt") == ("a/b", "c.txt"))
        #expect(split("c.txt") == (".", "c.txt"))
        #expect(split("/c.txt") == ("/", "c.txt"))
        #expect(split("a/b//") == ("a", "b"))
        #expect(split("/") == ("/", ""))
        // A slash followed by a combining mark is one Character but still a separator.
        #expect(split("a/\u{301}b") == ("a", "\u{301}b"))
    }

    @Test func siblingPrefixesFitTheNameLimit() {
        let short = AdapterPaths.siblingPrefix(of: Array("data.bin".utf8), tag: ".tmp-", suffixLength: 14)
        #expect(String(decoding: short, as: UTF8.self) == ".data.bin.tmp-")
        let long = Array(String(repeating: "€", count: 85).utf8)  // 255 bytes
        let prefix = AdapterPaths.siblingPrefix(of: long, tag: ".tmp-", suffixLength: 14)
        #expect(prefix.count + 14 <= AdapterPaths.nameMax)
        #expect(String(validating: prefix, as: UTF8.self) != nil)
    }

    @Test func nulBytesAreFoundAndShown() {
        #expect(AdapterPaths.containsNUL("a\u{0}b"))
        #expect(!AdapterPaths.containsNUL("ab"))
        #expect(AdapterPaths.showingNUL("a\u{0}b") == "a\\0b")
    }
}

@Suite struct TemporaryNameTests {
    @Test func suffixesAreDistinctAndOfTheAnnouncedLength() {
        let suffixes = (0..<1_000).map { _ in TemporaryName.suffix() }
        #expect(Set(suffixes).count == 1_000)
        #expect(suffixes.allSatisfy { $0.count == TemporaryName.suffixLength })
        #expect(suffixes.allSatisfy { $0.allSatisfy { (48...57).contains($0) || (97...122).contains($0) } })
    }
}

/// The calling thread's name, from `/proc/thread-self/comm`.
func threadComm() -> String {
    guard let file = fopen("/proc/thread-self/comm", "r") else { return "" }
    defer { fclose(file) }
    var bytes = [UInt8]()
    while case let byte = fgetc(file), byte != EOF, byte != 10 { bytes.append(UInt8(byte)) }
    return String(decoding: bytes, as: UTF8.self)
}

/// A value handed from the started thread to the test, ordered by ``DispatchLite``.
final class UnsafeSendableBox: @unchecked Sendable {
    var value = ""
}

/// A one-shot semaphore on a POSIX semaphore (the test target imports no Dispatch).
final class DispatchLite: @unchecked Sendable {
    private var semaphore = sem_t()
    init() { sem_init(&semaphore, 0, 0) }
    deinit { sem_destroy(&semaphore) }
    func signal() { sem_post(&semaphore) }
    func wait() { while sem_wait(&semaphore) != 0 && errno == EINTR {} }
}

@Suite struct FIFOTests {
    @Test func elementsComeOutInTheOrderTheyWentIn() {
        var queue = FIFO<Int>()
        #expect(queue.isEmpty && queue.popFirst() == nil)
        var next = 0
        var expected = 0
        // Interleaved bursts: past the compaction threshold, through an empty queue, and back.
        for burst in [3, 2_000, 1, 5_000, 0, 17] {
            for _ in 0..<burst {
                queue.append(next)
                next += 1
            }
            #expect(queue.count == next - expected)
            for _ in 0..<(burst / 2 + 1) {
                guard let value = queue.popFirst() else { break }
                #expect(value == expected)
                expected += 1
            }
        }
        let rest = queue.removeAll()
        #expect(rest == Array(expected..<next))
        #expect(queue.isEmpty && queue.count == 0)
    }

    @Test func aPoppedElementIsReleasedAtOnce() {
        final class Tracked {}
        var queue = FIFO<Tracked>()
        weak var first: Tracked?
        do {
            let object = Tracked()
            first = object
            queue.append(object)
            queue.append(Tracked())
            queue.append(Tracked())
        }
        _ = queue.popFirst()
        #expect(first == nil, "the queue still held a popped element")
        #expect(queue.count == 2)
    }
}
