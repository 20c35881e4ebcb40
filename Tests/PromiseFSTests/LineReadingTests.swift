import Glibc
import PromiseFS
import Testing

/// `FSFile.lines`, `PromiseFileSystem.lines` and the on-demand reading of `chunks`.
@Suite struct LineReadingTests {
    let fs = PromiseFileSystem()

    /// Writes raw bytes with plain libc.
    private func plainWrite(_ path: String, bytes: [UInt8]) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        precondition(fd >= 0, "test setup: cannot create \(path)")
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    private func lines(of path: String, chunkSize: Int, maxLength: Int = 1 << 20) async throws -> [String] {
        let file = try await fs.open(path).get()
        defer { _ = file.close() }
        var lines: [String] = []
        for try await line in file.lines(maxLength: maxLength, chunkSize: chunkSize) { lines.append(line) }
        return lines
    }

    @Test func everyLineEndingSplitsTheSameAtEveryChunkBoundary() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        plainWrite(dir("mixed"), bytes: Array("unix\nwindows\r\nold mac\rlast, no ending".utf8))
        // Every chunk size from 1 byte on puts a chunk boundary between \r and \n somewhere.
        for size in 1...12 {
            #expect(try await lines(of: dir("mixed"), chunkSize: size) == ["unix", "windows", "old mac", "last, no ending"], "chunk size \(size)")
        }
        plainWrite(dir("crlf-only"), bytes: Array("a\r\n\r\nb\r\n".utf8))
        for size in 1...4 {
            #expect(try await lines(of: dir("crlf-only"), chunkSize: size) == ["a", "", "b"], "chunk size \(size)")
        }
    }

    @Test func endingsAtTheEndAndEmptyFilesGiveNoExtraLine() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        plainWrite(dir("empty"), bytes: [])
        #expect(try await lines(of: dir("empty"), chunkSize: 4).isEmpty)
        plainWrite(dir("one"), bytes: Array("only\n".utf8))
        #expect(try await lines(of: dir("one"), chunkSize: 4) == ["only"])
        plainWrite(dir("blank"), bytes: Array("\n\n".utf8))
        #expect(try await lines(of: dir("blank"), chunkSize: 1) == ["", ""])
        plainWrite(dir("cr"), bytes: Array("x\r".utf8))
        #expect(try await lines(of: dir("cr"), chunkSize: 1) == ["x"])
    }

    @Test func aLineLongerThanTheLimitFailsWithItsNumberInsteadOfGrowingMemory() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        // No ending at all: the limit must hold while the line is still incomplete.
        plainWrite(dir("long"), bytes: Array("short\n".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: 100_000))
        do {
            _ = try await lines(of: dir("long"), chunkSize: 1_000, maxLength: 64)
            Issue.record("a 100 000-byte line passed a 64-byte limit")
        } catch let error as FSError {
            #expect(error.code == .tooLarge)
            #expect(error.description.contains("line 2"), "\(error)")
            #expect(
                error.message == "line longer than the 64-byte line limit reading line 2 of \(dir("long")) "
                    + "(lines(maxLength:) sets the limit)", "\(error)")
            #expect(!error.message.contains("size cap"), "a line limit is not a file size cap: \(error)")
        }
        // A line exactly at the limit is fine.
        plainWrite(dir("exact"), bytes: [UInt8](repeating: UInt8(ascii: "y"), count: 64) + [10])
        #expect(try await lines(of: dir("exact"), chunkSize: 7, maxLength: 64) == [String(repeating: "y", count: 64)])
    }

    @Test func aLineThatIsNotUTF8FailsWithItsNumber() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        plainWrite(dir("bad"), bytes: Array("fine\n".utf8) + [0xC3, 0x28, 0x0A] + Array("never read\n".utf8))
        do {
            _ = try await lines(of: dir("bad"), chunkSize: 3)
            Issue.record("invalid UTF-8 must not be read as text")
        } catch let error as FSError {
            #expect(error.code == .invalidUTF8)
            #expect(error.description.contains("line 2"), "\(error)")
        }
    }

    @Test func aLargeFileIsReadLineByLine() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let text = (1...100_000).map { "line \($0)" }.joined(separator: "\n") + "\n"
        plainWrite(dir("big"), bytes: Array(text.utf8))
        var count = 0
        var last = ""
        for try await line in fs.lines(dir("big")) {
            count += 1
            last = line
        }
        #expect(count == 100_000)
        #expect(last == "line 100000")
    }

    @Test func theConvenienceOpensAndClosesTheFileEvenWhenTheLoopStopsEarly() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        plainWrite(dir("hosts"), bytes: Array("# comment\n127.0.0.1 localhost\n::1 localhost\n".utf8))
        var kept: [String] = []
        for try await line in fs.lines(dir("hosts")) where !line.hasPrefix("#") {
            kept.append(line)
            break
        }
        #expect(kept == ["127.0.0.1 localhost"])
        // The dropped iterator closes its file (on the pool, so give it a moment).
        var closed = false
        for _ in 0..<500 where !closed {
            closed = !isOpen(dir("hosts"))
            if !closed { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(closed, "the file opened by lines() stayed open")
        await #expect(throws: FSError.self) {
            for try await _ in fs.lines(dir("missing")) {}
        }
    }

    @Test func chunksAreReadOnlyWhenAskedFor() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        plainWrite(dir("data"), bytes: Array("AAAABBBB".utf8))
        let file = try await fs.open(dir("data"), options: .readWrite).get()
        defer { _ = file.close() }
        var chunks = file.chunks(size: 4).makeAsyncIterator()
        #expect(try await chunks.next() == Array("AAAA".utf8))
        // Nothing past the first chunk has been read: a change made now is what comes next.
        try await file.write(Array("CCCC".utf8), at: 4).get()
        #expect(try await chunks.next() == Array("CCCC".utf8))
        #expect(try await chunks.next() == nil)
    }

    /// Whether any descriptor of this process refers to `path` (/proc/self/fd's links).
    private func isOpen(_ path: String) -> Bool {
        guard let dir = opendir("/proc/self/fd") else { return false }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: &entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            var target = [CChar](repeating: 0, count: 4096)
            let count = readlink("/proc/self/fd/\(name)", &target, target.count - 1)
            if count > 0, String(decoding: target[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) == path { return true }
        }
        return false
    }
}
