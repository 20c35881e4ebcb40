import Glibc
import Synchronization

/// What went wrong during a soak run, collected from any thread. Keeps the first messages
/// and counts the rest.
final class SoakFailures: Sendable {
    private struct State {
        var count = 0
        var first: [String] = []
    }

    private let state = Mutex(State())
    private let keep = 20

    /// Records one failure.
    func record(_ message: String) {
        state.withLock { state in
            state.count += 1
            if state.first.count < keep { state.first.append(message) }
        }
    }

    /// How many failures were recorded.
    var count: Int { state.withLock { $0.count } }

    /// Prints the kept messages to standard error.
    func printReport(_ name: String) {
        let (count, first) = state.withLock { ($0.count, $0.first) }
        guard count > 0 else { return }
        printError("soak \(name): \(count) failure(s); the first \(first.count):")
        for message in first { printError("  - \(message)") }
    }
}

/// Samples resident memory and open descriptors at evenly spaced points of a run, prints them
/// as a table, and judges whether both stayed flat after the warm-up.
///
/// Each sample reads the resident set size twice: as it is ("untrimmed"), and right after
/// `malloc_trim(0)` has handed glibc's cached free pages back to the kernel ("RSS"). Only the
/// second is judged: how much free memory glibc keeps depends on how many threads (so malloc
/// arenas) Dispatch happened to start, not on what the program holds. The heap column is
/// what malloc has handed out and not had back (`mallinfo2`).
///
/// The criterion: the first sample at or past 10 % of the run is the warm-up level. Every later
/// sample's RSS must stay within max(8 MiB, 10 %) of it, its heap in use within
/// max(4 MiB, 25 %) of it (the finer test: a leak of 5 bytes per operation over 900 000
/// operations exceeds it), and the last sample's descriptor count must equal it exactly.
final class SoakMonitor {
    struct Sample {
        let done: Int
        let residentBytes: Int
        let trimmedBytes: Int
        let heapBytes: Int
        let threads: Int
        let descriptors: Int
        let elapsed: Double
    }

    static let points = 20
    static let warmUpFraction = 0.1
    static let minimumAllowance = 8 << 20
    static let minimumHeapAllowance = 4 << 20

    let name: String
    let unit: String
    let total: Int
    private(set) var samples: [Sample] = []
    private var nextPoint = 0
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private var warmUpIndex: Int?
    private var warmUpDescriptors: [Int32: String] = [:]

    /// Prints the header and takes the first sample (operations done: 0).
    init(name: String, unit: String, total: Int, detail: String) {
        self.name = name
        self.unit = unit
        self.total = total
        start = clock.now
        say("soak \(name): \(total) \(unit), \(detail)")
        say(pad("done", 12) + pad("RSS MiB", 10) + pad("untrimmed", 11) + pad("heap MiB", 10) + pad("threads", 9) + pad("fds", 6) + pad("elapsed s", 11))
        progress(0)
    }

    var elapsedSeconds: Double {
        let duration = clock.now - start
        return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private func mark(_ point: Int) -> Int {
        Int((Double(total) * Double(point) / Double(Self.points)).rounded(.up))
    }

    /// Takes a sample if `done` has reached the next point. Call it from the thread driving
    /// the run, as often as convenient; it costs a comparison when no point is due.
    func progress(_ done: Int) {
        guard nextPoint <= Self.points, done >= mark(nextPoint) else { return }
        while nextPoint <= Self.points, done >= mark(nextPoint) { nextPoint += 1 }
        takeSample(done)
    }

    private func takeSample(_ done: Int) {
        let sample = Sample(
            done: done,
            // Read before the trim below: Swift evaluates arguments in order.
            residentBytes: ProcessProbe.residentBytes(),
            trimmedBytes: { ProcessProbe.trimHeap(); return ProcessProbe.residentBytes() }(),
            heapBytes: ProcessProbe.heapInUseBytes(),
            threads: ProcessProbe.threadCount(),
            descriptors: ProcessProbe.descriptorCount(),
            elapsed: elapsedSeconds
        )
        samples.append(sample)
        var note = ""
        if warmUpIndex == nil, Double(done) >= Double(total) * Self.warmUpFraction, done > 0 {
            warmUpIndex = samples.count - 1
            warmUpDescriptors = ProcessProbe.descriptors()
            note = "  <- end of warm-up"
        }
        say(
            pad(String(done), 12) + pad(mib(sample.trimmedBytes), 10) + pad(mib(sample.residentBytes), 11) + pad(mib(sample.heapBytes), 10)
                + pad(String(sample.threads), 9) + pad(String(sample.descriptors), 6)
                + pad(fixed(sample.elapsed, 1), 11) + note
        )
    }

    /// Takes the last sample, prints the summary line and returns whether memory and
    /// descriptors stayed flat and `failures` is empty.
    func finish(done: Int, failures: SoakFailures, extra: String = "") -> Bool {
        if samples.last?.done != done {
            nextPoint = Self.points + 1
            takeSample(done)
        }
        let elapsed = samples.last?.elapsed ?? elapsedSeconds
        guard let warmUpIndex, let last = samples.last else {
            say("soak \(name): FAILED (the run ended before the warm-up did)")
            return false
        }
        let warmUp = samples[warmUpIndex]
        let after = samples[warmUpIndex...]
        let allowance = max(Self.minimumAllowance, warmUp.trimmedBytes / 10)
        let limit = warmUp.trimmedBytes + allowance
        let peak = after.map(\.trimmedBytes).max() ?? last.trimmedBytes
        let untrimmedPeak = after.map(\.residentBytes).max() ?? last.residentBytes
        let heapLimit = warmUp.heapBytes + max(Self.minimumHeapAllowance, warmUp.heapBytes / 4)
        let heapPeak = after.map(\.heapBytes).max() ?? last.heapBytes
        var problems: [String] = []
        if done != total { problems.append("\(done) of \(total) \(unit) done") }
        if failures.count > 0 { problems.append("\(failures.count) failure(s)") }
        if peak > limit {
            problems.append("RSS reached \(mib(peak)) MiB after warm-up, over the limit \(mib(limit)) MiB")
        }
        if heapPeak > heapLimit {
            problems.append("the heap reached \(mib(heapPeak)) MiB in use after warm-up, over the limit \(mib(heapLimit)) MiB")
        }
        if last.descriptors != warmUp.descriptors {
            problems.append("\(last.descriptors - warmUp.descriptors) descriptor(s) more than after warm-up")
            printDescriptorChange(from: warmUpDescriptors, to: ProcessProbe.descriptors())
        }
        failures.printReport(name)
        let verdict = problems.isEmpty ? "OK" : "FAILED (" + problems.joined(separator: "; ") + ")"
        say(
            "soak \(name): \(done) \(unit) in \(fixed(elapsed, 1)) s, "
                + "RSS \(mib(warmUp.trimmedBytes)) → \(mib(last.trimmedBytes)) MiB after warm-up (peak \(mib(peak)), limit \(mib(limit)); "
                + "untrimmed \(mib(warmUp.residentBytes)) → \(mib(last.residentBytes)), peak \(mib(untrimmedPeak))), "
                + "heap \(mib(warmUp.heapBytes)) → \(mib(last.heapBytes)) MiB (peak \(mib(heapPeak)), limit \(mib(heapLimit))), threads \(warmUp.threads) → \(last.threads), "
                + "fds \(warmUp.descriptors) → \(last.descriptors)"
                + (extra.isEmpty ? "" : ", " + extra) + ": " + verdict
        )
        return problems.isEmpty
    }

    private func printDescriptorChange(from before: [Int32: String], to after: [Int32: String]) {
        for (fd, target) in after.sorted(by: { $0.key < $1.key }) where before[fd] != target {
            printError("soak \(name): descriptor \(fd) opened after warm-up: \(target)")
        }
        for (fd, target) in before.sorted(by: { $0.key < $1.key }) where after[fd] != target {
            printError("soak \(name): descriptor \(fd) closed after warm-up: \(target)")
        }
    }
}

/// Compares the descriptors open after a run's teardown with those open before its setup, and
/// records every difference as a failure. Returns a short note for the summary line.
func checkTeardown(before: [Int32: String], failures: SoakFailures, what: String) -> String {
    let after = ProcessProbe.descriptors()
    for (fd, target) in after.sorted(by: { $0.key < $1.key }) where before[fd] != target {
        failures.record("descriptor \(fd) still open after \(what): \(target)")
    }
    for (fd, target) in before.sorted(by: { $0.key < $1.key }) where after[fd] != target {
        failures.record("descriptor \(fd) that was open before the run is gone after \(what): \(target)")
    }
    return "fds after \(what) \(after.count) (before setup \(before.count))"
}

func mib(_ bytes: Int) -> String { fixed(Double(bytes) / 1_048_576, 1) }

func fixed(_ value: Double, _ decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    var text = String(rounded)
    if let dot = text.firstIndex(of: ".") {
        let have = text.distance(from: dot, to: text.endIndex) - 1
        if have < decimals { text += String(repeating: "0", count: decimals - have) }
    } else if decimals > 0 {
        text += "." + String(repeating: "0", count: decimals)
    }
    return text
}

func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? " " + text : String(repeating: " ", count: width - text.count) + text
}

/// Writes one line to standard output at once, unbuffered, so the table appears row by row
/// when piped.
func say(_ line: String) {
    writeLine(line, to: 1)
}

/// Writes one line to standard error.
func printError(_ line: String) {
    writeLine(line, to: 2)
}

private func writeLine(_ line: String, to fd: Int32) {
    var line = line + "\n"
    line.withUTF8 { buffer in
        var rest = UnsafeRawBufferPointer(buffer)
        while !rest.isEmpty {
            let written = write(fd, rest.baseAddress, rest.count)
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            rest = UnsafeRawBufferPointer(rebasing: rest[written...])
        }
    }
}
