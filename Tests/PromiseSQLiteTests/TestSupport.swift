import Glibc
import PromiseSQLite
import PromiseTestSupport
import Synchronization
import Testing

/// A fresh directory under /tmp for one test, removed with everything in it by `cleanUp`.
struct TemporaryDirectory {
    let path: String

    init() {
        var template = Array("/tmp/promisesqlite-test.XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) != nil }
        precondition(made, "test setup: mkdtemp failed")
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func callAsFunction(_ name: String) -> String { "\(path)/\(name)" }

    func cleanUp() {
        _ = system("rm -rf '\(path)'")
    }
}

/// The SQLiteError a promise rejects with (records an issue otherwise).
func sqliteError<T: Sendable>(_ promise: Promise<T>, sourceLocation: SourceLocation = #_sourceLocation) async -> SQLiteError? {
    do {
        let value = try await promise.get()
        Issue.record("expected a rejection, got \(value)", sourceLocation: sourceLocation)
        return nil
    } catch let error as SQLiteError {
        return error
    } catch {
        Issue.record("expected an SQLiteError, got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Whether a promise rejects with `CancellationError`.
func isCancelled<T: Sendable>(_ promise: Promise<T>) async -> Bool {
    do {
        _ = try await promise.get()
        return false
    } catch {
        return error is CancellationError
    }
}

/// Lets `promise`, a statement of `db` that runs until stopped, run for 100 ms, cancels it,
/// and checks that it rejects with `CancellationError`, promptly, and that `db` runs the next
/// statement at once. `unstopped` says what the statement does when nothing stops it.
func expectCancellationStops<T: Sendable>(
    _ promise: Promise<T>, on db: SQLiteDatabase, unstopped: String, sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let settled = SettleTime(of: promise)
    try await Task.sleep(for: .milliseconds(100))
    let cancelled = ContinuousClock.now
    promise.cancel()
    #expect(await isCancelled(promise), sourceLocation: sourceLocation)
    // The connection is free again at once: the cancellation stopped the statement.
    #expect(try await db.scalar(Int.self, "SELECT 42").get() == 42, sourceLocation: sourceLocation)
    expectTimeLimit(
        settled.since(cancelled), under: .seconds(60), "the cancelled statement settling (\(unstopped))",
        sourceLocation: sourceLocation)
}

/// A one-shot gate. A connection thread blocks in `wait()` (a semaphore: it is not a pool
/// thread); a test awaits `opened()`, which polls, so no cooperative-pool thread ever blocks.
final class Gate: @unchecked Sendable {
    private var semaphore = sem_t()
    private let isOpen = Atomic<Bool>(false)

    init() { sem_init(&semaphore, 0, 0) }
    deinit { sem_destroy(&semaphore) }

    func open() {
        isOpen.store(true, ordering: .releasing)
        sem_post(&semaphore)
    }

    /// Blocks the calling thread until `open()`: for connection threads only.
    func wait() { while sem_wait(&semaphore) != 0 && errno == EINTR {} }

    /// Waits, without blocking a thread, until `open()` was called (at most 60 s).
    func opened(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let done = try await eventually(.seconds(60)) { isOpen.load(ordering: .acquiring) }
        #expect(done, "the gate was never opened", sourceLocation: sourceLocation)
    }
}

/// A `promisesqlite-helper` process (built next to the test binary).
struct HelperProcess {
    let pid: pid_t
    let outputPath: String

    /// Starts the helper with `arguments`, its standard output going to `outputPath`; through
    /// `launcher` if given (a command that ends by running the helper path and arguments it
    /// is given last).
    init(_ arguments: [String], outputPath: String, launcher: [String] = []) {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        precondition(n > 0, "cannot read /proc/self/exe")
        let me = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let executable = String(me[..<me.lastIndex(of: "/")!]) + "/promisesqlite-helper"
        precondition(access(executable, X_OK) == 0, "\(executable) is missing: build with `swift build --build-tests`")
        self.outputPath = outputPath
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let command = launcher + [executable] + arguments
        let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let status = posix_spawn(&pid, command[0], &actions, nil, argv, environ)
        precondition(status == 0, "posix_spawn \(command[0]) failed: \(status)")
        self.pid = pid
    }

    /// What the helper printed so far.
    var output: String {
        let fd = open(outputPath, O_RDONLY)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 65536)
        let n = read(fd, &bytes, bytes.count)
        return n > 0 ? String(decoding: bytes[0..<n], as: UTF8.self) : ""
    }

    /// Waits for the helper to print a line starting with `prefix`.
    func waitFor(_ prefix: String) async throws {
        let seen = try await eventually(.seconds(30)) { output.split(separator: "\n").contains { $0.hasPrefix(prefix) } }
        #expect(seen, "the helper never printed '\(prefix)': \(output)")
    }

    /// Waits for the helper to exit: its status, or 128 + the signal that ended it.
    @discardableResult
    func wait() async throws -> Int32 { try await exitStatus(of: pid) }
}
