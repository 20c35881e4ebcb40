import Dispatch
import Foundation
import Glibc
import PromiseCore
import Testing

/// The lock tells ThreadSanitizer about each hand-over (see `Lock`), through hooks it looks up
/// once and then reads on every lock operation.
@Suite struct LockSanitizerTests {
    /// Found exactly when this process runs under ThreadSanitizer, and the same answer from
    /// every thread.
    @Test func hooksAreFoundExactlyUnderThreadSanitizer() {
        let underThreadSanitizer = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_acquire") != nil
        #expect((sanitizerHooks != nil) == underThreadSanitizer)
        let answers = Answers()
        DispatchQueue.concurrentPerform(iterations: 64) { _ in answers.record(sanitizerHooks != nil) }
        #expect(answers.all == [underThreadSanitizer])
    }

    /// Every lock in the package's sources, and in the suites the ThreadSanitizer run covers,
    /// is a `Lock`: a bare `Mutex` handed from one thread to another is invisible to
    /// ThreadSanitizer, which then reports the data it guards as raced. `Lock.swift` alone wraps
    /// one; code shown in the documentation (between `// DocC: begin` and `// DocC: end`) is
    /// what users write, and keeps the standard library's type.
    @Test func noSourceOutsideTheLockHoldsABareMutex() throws {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let exempt = ["Sources/PromiseCore/Internal/Lock.swift", "Tests/PromiseCoreTests/LockSanitizerTests.swift"]
        var scanned = 0
        var found: [String] = []
        for directory in ["Sources", "Tests/PromiseCoreTests", "Tests/PromiseTestingTests", "Tests/PromiseUVTests", "Tests/PromiseTestSupport"] {
            let files = try #require(FileManager.default.enumerator(atPath: root.appendingPathComponent(directory).path))
            for case let file as String in files where file.hasSuffix(".swift") && !file.contains(".docc/") {
                let path = "\(directory)/\(file)"
                guard !exempt.contains(path) else { continue }
                scanned += 1
                let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
                var inDocumentation = false
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let trimmed = line.trimmingCharacters(in: .whitespaces)
                    if trimmed == "// DocC: begin" { inDocumentation = true }
                    if trimmed == "// DocC: end" { inDocumentation = false }
                    if !inDocumentation, declaresBareMutex(line) { found.append("\(path):\(number + 1): \(trimmed)") }
                }
            }
        }
        #expect(scanned > 300, "the scan found too few files under \(root.path): \(scanned)")
        #expect(found.isEmpty, "use PromiseCore's Lock instead: \(found)")
    }

    @Test func theScanTellsABareMutexFromALockAndFromProse() {
        #expect(declaresBareMutex("    private let state = Mutex(State())"))
        #expect(declaresBareMutex("    private let machine: Mutex<Machine>"))
        #expect(declaresBareMutex("static let state = Synchronization.Mutex<Int>(0)"))
        #expect(!declaresBareMutex("    private let state = Lock(State())"))
        #expect(!declaresBareMutex("    // PromiseCore's Lock, not a bare Mutex: ThreadSanitizer cannot see it."))
        #expect(!declaresBareMutex("/// with a `Mutex<Int>` from the standard library"))
        #expect(!declaresBareMutex("    let pthreadMutex = PthreadMutex()"))
    }
}

/// Whether a source line's code (not its comment) names the standard library's `Mutex` type.
private func declaresBareMutex(_ line: some StringProtocol) -> Bool {
    let code = String(line).components(separatedBy: "//")[0]
    return code.range(of: #"(?<![\w.])(Synchronization\.)?Mutex\s*[<(]"#, options: .regularExpression) != nil
}

private final class Answers: @unchecked Sendable {
    private let lock = PthreadMutex()
    private var seen: Set<Bool> = []
    func record(_ answer: Bool) { _ = lock.withLock { seen.insert(answer) } }
    var all: Set<Bool> { lock.withLock { seen } }
}

/// A pthread mutex, so this test does not depend on the lock it checks.
private final class PthreadMutex: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }
    func withLock<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body()
    }
}
