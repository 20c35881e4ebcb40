import Dispatch
import Glibc
import PromiseFS
import Testing

@Suite struct FileIOPoolTests {
    @Test func tenThousandConcurrentReadsHoldOnlyAFewDescriptors() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let fs = FileSystem()
        let names = (0..<100).map { dir("file-\($0)") }
        for (index, name) in names.enumerated() { plainWrite(name, String(repeating: "\(index % 10)", count: 4096)) }
        let before = plainList("/proc/self/fd").count
        let peak = Counter()
        let sampling = Task.detached {
            while !Task.isCancelled {
                peak.max(plainList("/proc/self/fd").count)
                try? await Task.sleep(for: .milliseconds(1))
            }
        }
        let reads = (0..<10_000).map { fs.readFile(names[$0 % names.count]) }
        var total = 0
        for read in reads { total += try await read.get().count }
        sampling.cancel()
        #expect(total == 10_000 * 4096)
        // One job per read: at most one descriptor per pool thread at a time (plus noise
        // from the sampler's own listing and other suites running in parallel).
        #expect(peak.value - before < 64, "peak \(peak.value) descriptors, \(before) before")
    }

    @Test func aFullQueueAndAShutDownPoolRejectAtOnceWithAClearError() async throws {
        let pool = FileIOPool(threads: 1, queueLimit: 2)
        let fs = FileSystem(pool: pool)
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        // Occupy the only thread: a read of a FIFO blocks until a writer opens it.
        mkfifo(dir("fifo"), 0o600)
        let blocked = fs.readFile(dir("fifo"))
        try await Task.sleep(for: .milliseconds(200))  // the thread is now inside open(2)
        let queued = [fs.exists(dir("fifo")), fs.exists(dir("fifo"))]
        let refused = await fsError(fs.exists(dir("fifo")))
        #expect(refused?.code == .poolUnavailable)
        #expect(refused?.description.contains("queue is full") == true)
        plainWrite(dir("fifo"), "unblock")
        #expect(try await blocked.get() == Array("unblock".utf8))
        for promise in queued { #expect(try await promise.get()) }

        try await pool.shutdown().get()
        let afterShutdown = await fsError(fs.exists(dir.path))
        #expect(afterShutdown?.code == .poolUnavailable)
        #expect(afterShutdown?.description.contains("shut down") == true)
    }

    @Test func theSharedPoolRefusesToShutDown() async throws {
        let error = await fsError(FileIOPool.shared.shutdown())
        #expect(error?.code == .poolUnavailable)
        #expect(try await FileSystem().exists("/").get())
    }

    @Test func aJobCancelledBeforeItStartsNeverRuns() async throws {
        let pool = FileIOPool(threads: 1, queueLimit: 10)
        let fs = FileSystem(pool: pool)
        let dir = try TemporaryDirectory()
        defer {
            dir.cleanUp()
            _ = pool.shutdown()
        }
        mkfifo(dir("fifo"), 0o600)
        let blocked = fs.readFile(dir("fifo"))
        try await Task.sleep(for: .milliseconds(50))
        let write = fs.writeText(dir("never"), "x")
        write.cancel()
        plainWrite(dir("fifo"), "go")
        _ = try await blocked.get()
        _ = try await fs.exists(dir.path).get()  // everything queued before has run
        #expect(write.isCancelled)
        #expect(plainRead(dir("never")) == nil)
    }
}
