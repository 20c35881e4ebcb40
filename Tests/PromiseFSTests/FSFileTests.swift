import Dispatch
import Glibc
import PromiseFS
import Testing

@Suite struct FSFileTests {
    let fs = PromiseFileSystem()

    @Test func positionalAndSequentialReadsAndWrites() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let file = try await fs.open(dir("f"), options: FSOpenOptions(write: true, create: true)).get()
        try await file.write(Array("hello world".utf8)).get()
        try await file.write(Array("W".utf8), at: 6).get()
        #expect(try await file.read(at: 0, count: 100).get() == Array("hello World".utf8))
        #expect(try await file.read(at: 6, count: 3).get() == Array("Wor".utf8))
        #expect(try await file.read(at: 50, count: 3).get().isEmpty)
        try await file.seek(to: 0).get()
        #expect(try await file.read(count: 5).get() == Array("hello".utf8))
        #expect(try await file.read(count: 100).get() == Array(" World".utf8))
        #expect(try await file.read(count: 100).get().isEmpty)
        try await file.truncate(to: 5).get()
        try await file.sync().get()
        #expect(try await file.info().get().size == 5)
        try await file.close().get()
        #expect(plainRead(dir("f")) == "hello")
    }

    @Test func closeWaitsForQueuedWorkAndLaterCallsAreRefused() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let file = try await fs.open(dir("f"), options: .write).get()
        // Queued without waiting: close must still run after all of them.
        let writes = (0..<200).map { file.write(Array("\($0 % 10)".utf8)) }
        let closed = file.close()
        #expect(file.close() === closed)
        let late = await fsError(file.write(Array("late".utf8)))
        #expect(late?.code == .closed)
        try await closed.get()
        for write in writes { try await write.get() }
        #expect(plainRead(dir("f")) == (0..<200).map { "\($0 % 10)" }.joined())
    }

    @Test func openErrorsNameThePurpose() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let missing = await fsError(fs.open(dir("nope")))
        #expect(missing?.message == "no such file or directory opening \(dir("nope")) for reading")
        plainWrite(dir("f"), "x")
        let exists = await fsError(fs.open(dir("f"), options: FSOpenOptions(write: true, create: true, exclusive: true)))
        #expect(exists?.code == .fileExists)
        let readOnly = try await fs.open(dir("f")).get()
        #expect(await fsError(readOnly.write(Array("y".utf8)))?.code == .badFileDescriptor)
        try await readOnly.close().get()
    }

    @Test func chunksAsAnAsyncSequenceCoverTheWholeFile() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let bytes: [UInt8] = (0..<1_000_003).map { UInt8(truncatingIfNeeded: $0 / 3) }
        try await fs.writeFile(dir("big"), bytes, options: .inPlace).get()
        let file = try await fs.open(dir("big")).get()
        var collected: [UInt8] = []
        var sizes: [Int] = []
        for try await chunk in file.chunks(size: 65_536) {
            sizes.append(chunk.count)
            collected += chunk
        }
        try await file.close().get()
        #expect(collected == bytes)
        #expect(sizes.count == 16 && sizes.dropLast().allSatisfy { $0 == 65_536 })
    }

    @Test func forEachChunkDeliversEveryChunkOnItsContextAndCanBeCancelled() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        try await fs.writeFile(dir("big"), [UInt8](repeating: 7, count: 400_000), options: .inPlace).get()
        let queue = DispatchQueue(label: "chunks")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let seen = Counter()
        let file = try await fs.open(dir("big")).get()
        let total = try await file.forEachChunk(on: queue, size: 100_000) { chunk in
            #expect(DispatchQueue.getSpecific(key: key) == true)
            #expect(chunk.count == 100_000)
            seen.add(chunk.count)
        }.get()
        #expect(total == 400_000 && seen.value == 400_000)

        // Cancelled after the first chunk: no further chunk is read or delivered.
        try await file.seek(to: 0).get()
        let delivered = Counter()
        let gate = DispatchSemaphore(value: 0)
        let reading = file.forEachChunk(on: queue, size: 1000) { chunk in
            delivered.add(1)
            gate.wait()
        }
        while delivered.value == 0 { await Task.yield() }
        reading.cancel()
        gate.signal()
        #expect(await (try? reading.get()) == nil)
        #expect(reading.isCancelled)
        try await Task.sleep(for: .milliseconds(50))
        #expect(delivered.value == 1)
        try await file.close().get()
    }
}

/// A thread-safe counter for the tests.
final class Counter: Sendable {
    private let storage = Lock(0)
    func add(_ n: Int) { storage.withLock { $0 += n } }
    func max(_ n: Int) { storage.withLock { $0 = Swift.max($0, n) } }
    var value: Int { storage.withLock { $0 } }
}

@Suite struct DescriptorTests {
    let fs = PromiseFileSystem()

    @Test func descriptorsAreCloseOnExec() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir("watched")
        plainWrite(path, "x")
        let file = try await fs.open(path).get()
        defer { _ = file.close() }
        // Find our descriptor through /proc and read its open flags.
        var flags: Int?
        for name in plainList("/proc/self/fd") {
            var buffer = [CChar](repeating: 0, count: 4096)
            let n = readlink("/proc/self/fd/\(name)", &buffer, buffer.count - 1)
            guard n > 0, String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) == path else { continue }
            let info = plainRead("/proc/self/fdinfo/\(name)") ?? ""
            let line = info.split(separator: "\n").first { $0.hasPrefix("flags:") }
            flags = line.flatMap { Int($0.dropFirst("flags:".count).trimmingPrefix(while: { $0 == " " || $0 == "\t" }), radix: 8) }
        }
        let found = try #require(flags, "the open file's descriptor was not found in /proc/self/fd")
        #expect(found & 0o2000000 != 0, "O_CLOEXEC is not set: flags \(String(found, radix: 8))")
    }

    @Test func cancellingTheTaskStopsAChunkedRead() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        try await fs.writeFile(dir("f"), [UInt8](repeating: 1, count: 1 << 20), options: .inPlace).get()
        let file = try await fs.open(dir("f")).get()
        let chunksSeen = Counter()
        let reader = Task {
            for try await _ in file.chunks(size: 1024) {
                chunksSeen.add(1)
                if chunksSeen.value == 3 { withUnsafeCurrentTask { $0?.cancel() } }
            }
        }
        let result = await reader.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(chunksSeen.value == 3)
        try await file.close().get()
    }
}
