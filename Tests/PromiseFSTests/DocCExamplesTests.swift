// swift-format-ignore-file
// (documentation quotes this file's code line for line, layout included)
import PromiseFS
import Testing

// The ```swift blocks of PromiseFS's DocC catalog, each between `// DocC: begin` and
// `// DocC: end` exactly as written there (PromiseCoreTests' `DocCCodeBlocksTests` checks
// them), with assertions on what they do.

@Suite struct DocCExamplesTests {
    @Test func landingPage() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.cleanUp() }
        let directory = temporary.path
        let printed = PrintedLines()
        @Sendable func print(_ item: Any) { printed.append("\(item)") }
        try await PromiseFileSystem().writeText(directory + "/notes.txt", "first line\n").get()

        // DocC: begin
        let fs = PromiseFileSystem()
        let notes = directory + "/notes.txt"
        let saved = fs.readText(notes)
            .then { text in text + "one more line\n" }
            .then { text in fs.writeText(notes, text) }  // atomic and durable by default
            .catch { error in print(error) }  // FSError.noSuchFileOrDirectory (errno 2): no such file or directory opening …/notes.txt for reading
        // DocC: end

        try await saved.get()
        #expect(try await fs.readText(notes).get() == "first line\none more line\n")
        #expect(printed.all.isEmpty)

        // Without the file, the catch prints the line its comment shows.
        let missing = fs.readText(directory + "/gone.txt").catch { error in print(error) }
        let error = await #expect(throws: FSError.self) { try await missing.get() }
        #expect(error?.code == .noSuchFileOrDirectory)
        #expect(printed.all == ["FSError.noSuchFileOrDirectory (errno 2): no such file or directory opening \(directory)/gone.txt for reading"])
    }
}

/// Lines printed from callbacks on other threads.
final class PrintedLines: Sendable {
    private let lines = Lock<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}
