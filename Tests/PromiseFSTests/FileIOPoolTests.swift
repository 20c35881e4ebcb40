import Dispatch
import Glibc
import PromiseFS
import Testing

@Suite struct FileIOPoolTests {
    /// While a pool of 3 threads is alive, at least 3 of the process's threads are named
    /// `promise-fs` (unnamed, they would carry the process's name).
    @Test func poolThreadsAreNamedForTheirProduct() async throws {
        let pool = try FileIOPool(threads: 3)
        var named = 0
        for _ in 0..<500 where named < 3 {
            named = threadNames().filter { $0 == "promise-fs" }.count
            if named < 3 { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(named >= 3, "threads: \(threadNames())")
        try await pool.shutdown().get()
    }

    /// The names (`comm`) of this process's threads.
    private func threadNames() -> [String] {
        guard let dir = opendir("/proc/self/task") else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let id = withUnsafeBytes(of: &entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard id != ".", id != "..", let comm = plainRead("/proc/self/task/\(id)/comm") else { continue }
            names.append(String(comm.prefix { $0 != "\n" }))
        }
        return names
    }

    @Test func tenThousandConcurrentReadsHoldOnlyAFewDescriptors() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let fs = PromiseFileSystem()
        let names = (0..<100).map { dir("file-\($0)") }
        for (index, name) in names.enumerated() { plainWrite(name, String(repeating: "\(index % 10)", count: 4096)) }
        // Only descriptors open on this test's files count: other suites run in parallel and
        // open databases, event loops and files of their own.
        // The sampler is a thread of its own (a dispatch queue), not a task: under the load of
        // the other suites a task may not run before the reads are over.
        let root = dir.path
        let peak = Counter()
        let samples = Counter()
        let stop = Counter()
        DispatchQueue(label: "fd-sampler").async {
            while stop.value == 0 {
                peak.max(descriptors(under: root))
                samples.add(1)
            }
        }
        while samples.value == 0 { try await Task.sleep(for: .milliseconds(1)) }
        let reads = (0..<10_000).map { fs.readFile(names[$0 % names.count]) }
        var total = 0
        for read in reads { total += try await read.get().count }
        stop.add(1)
        #expect(total == 10_000 * 4096)
        // One job per read: one descriptor per pool thread at a time. The sampler's listing is
        // not one instant (a number closed and reused mid-listing counts twice), so allow
        // twice that; opening all 10 000 first would show hundreds.
        #expect(peak.value <= 2 * FileIOPool.shared.threadCount, "peak \(peak.value) descriptors open on the test's files")
        #expect(peak.value >= 1, "the sampler must have seen reads in progress")
    }

    @Test func aFullQueueAndAShutDownPoolRejectAtOnceWithAClearError() async throws {
        let pool = try FileIOPool(threads: 1, queueLimit: 2)
        let fs = PromiseFileSystem(pool: pool)
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        // Occupy the only thread: a read of a FIFO that is open for writing (by the file
        // itself, opened read-write) blocks until bytes arrive.
        mkfifo(dir("fifo"), 0o600)
        let fifo = try await fs.open(dir("fifo"), options: .readWrite).get()
        let blocked = fifo.read(count: 7)
        try await Task.sleep(for: .milliseconds(200))  // the thread is now inside open(2)
        let queued = [fs.exists(dir("fifo")), fs.exists(dir("fifo"))]
        let refused = await fsError(fs.exists(dir("fifo")))
        #expect(refused?.code == .poolUnavailable)
        #expect(refused?.description.contains("queue is full") == true)
        plainWrite(dir("fifo"), "unblock")
        #expect(try await blocked.get() == Array("unblock".utf8))
        for promise in queued { #expect(try await promise.get()) }
        try await fifo.close().get()

        try await pool.shutdown().get()
        let afterShutdown = await fsError(fs.exists(dir.path))
        #expect(afterShutdown?.code == .poolUnavailable)
        #expect(afterShutdown?.description.contains("shut down") == true)
    }

    @Test func theSharedPoolRefusesToShutDown() async throws {
        let error = await fsError(FileIOPool.shared.shutdown())
        #expect(error?.code == .poolUnavailable)
        #expect(try await PromiseFileSystem().exists("/").get())
    }

    @Test func aJobCancelledBeforeItStartsNeverRuns() async throws {
        let pool = try FileIOPool(threads: 1, queueLimit: 10)
        let fs = PromiseFileSystem(pool: pool)
        let dir = try TemporaryDirectory()
        defer {
            dir.cleanUp()
            _ = pool.shutdown()
        }
        mkfifo(dir("fifo"), 0o600)
        let fifo = try await fs.open(dir("fifo"), options: .readWrite).get()
        let blocked = fifo.read(count: 2)  // blocks until bytes arrive: the file is its own writer
        try await Task.sleep(for: .milliseconds(50))
        let write = fs.writeText(dir("never"), "x")
        write.cancel()
        plainWrite(dir("fifo"), "go")
        _ = try await blocked.get()
        try await fifo.close().get()
        _ = try await fs.exists(dir.path).get()  // everything queued before has run
        #expect(write.isCancelled)
        #expect(plainRead(dir("never")) == nil)
    }
}

/// How many of this process's descriptors are open on files under `root` (read from /proc).
func descriptors(under root: String) -> Int {
    plainList("/proc/self/fd").filter { name in
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/fd/\(name)", &buffer, buffer.count - 1)
        guard n > 0 else { return false }
        let target = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return target.hasPrefix(root + "/")
    }.count
}

@Suite struct FileIOPoolConstructionTests {
    @Test func impossibleSizesThrowInsteadOfTrapping() {
        for (threads, limit) in [(0, 10), (-1, 10), (2, 0), (FileIOPool.maxThreads + 1, 10), (.max, 10), (.min, .min)] {
            let error = #expect(throws: FSError.self) { _ = try FileIOPool(threads: threads, queueLimit: limit) }
            #expect(error?.code == .invalidArgument, "\(threads) threads, limit \(limit)")
            #expect(error?.activity.contains("at least 1") == true)
        }
    }

    @Test func aShutDownPoolRefusesWorkWithTheReasonAndEveryShutdownSeesTheEnd() async throws {
        let pool = try FileIOPool(threads: 2)
        #expect(pool.threadCount == 2)
        let first = pool.shutdown()
        let second = pool.shutdown()
        try await first.get()
        try await second.get()
        try await pool.shutdown().get()
        let refused = await #expect(throws: FSError.self) { try await PromiseFileSystem(pool: pool).readFile("/etc/hostname").get() }
        #expect(refused?.code == .poolUnavailable)
        #expect(refused?.activity.hasSuffix("the FileIOPool was shut down") == true, "\(String(describing: refused))")
    }
}
