// swift-format-ignore-file
// (documentation quotes this file's code line for line, layout included)
import PromiseFS
import Testing

/// The README's PromiseFS example (its first part, as written there) and the rest of the tour,
/// with `dir` a fresh temporary directory.
@Suite struct ReadmeExamplesTests {
    @Test func promiseFSTour() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.cleanUp() }
        let dir = temporary.path

        // README: begin
        let fs = PromiseFileSystem()                             // jobs run on FileIOPool.shared
        let report = "\(dir)/report.txt"

        let lines = fs.writeText(report, "total: 42\nok\n")     // atomic and durable by default
            .then { fs.readText(report) }                        // Promise<String>
            .then { text in text.split(separator: "\n").count }  // Promise<Int>

        let missing = fs.readFile("\(dir)/nope").recover { error in
            print(error)   // FSError.noSuchFileOrDirectory (errno 2): no such file or directory opening /tmp/…/nope for reading
            return []
        }

        let count = try await lines.get()                        // 2, once written and read back
        let file = try await fs.open(report).get()
        var size = 0
        for try await chunk in file.chunks(size: 1 << 20) {     // one chunk in memory at a time
            size += chunk.count
        }
        try await file.close().get()
        // README: end

        #expect(count == 2)
        #expect(try await missing.get().isEmpty)
        #expect(size == 13)
        #expect(try await fs.listDirectory(dir).get().map(\.relativePath) == ["report.txt"])
    }
}
