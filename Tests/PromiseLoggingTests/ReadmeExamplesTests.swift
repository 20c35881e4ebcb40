// swift-format-ignore-file
// (documentation quotes this file's code line for line, layout included)
// Compiled only with the Logging trait, as the module under test is (`make test` enables it).
#if Logging
import Glibc
import Logging
import PromiseLogging
import Testing

// The README's PromiseLogging block, exactly as written there (PromiseCoreTests'
// `readmeSnippetsAreAllHere` checks that it is here). The DocC landing page shows the same
// line, in the `// DocC: begin` … `// DocC: end` region (`DocCCodeBlocksTests` checks it).

@Suite struct LoggingReadmeExamplesTests {
    /// In a process of its own: the handler is process-wide. The parent reads what the
    /// default swift-log backend wrote.
    @Test func theOneLineOptInLogsDiagnosticsThroughSwiftLog() async {
        let exit = await #expect(processExitsWith: .success, observing: [\.standardOutputContent, \.standardErrorContent]) {
            // DocC: begin
            Promises.logDiagnostics(to: Logger(label: "my-server"))
            // DocC: end
            do {
                // A pending promise nothing can resolve, with a dependent: a broken promise.
                let orphan = Promise<Int>.pending().promise  // its resolver is released at once
                _ = orphan.then(on: .inline) { $0 + 1 }
            }
            fflush(nil)
        }
        guard let result = exit else { return }
        // swift-log's default backend writes to standard error.
        let output = String(decoding: result.standardOutputContent + result.standardErrorContent, as: UTF8.self)
        #expect(output.contains("my-server"), "\(output)")
        #expect(output.contains("error"), "\(output)")
        #expect(output.contains("broken promise of Promise<Int>"), "\(output)")
        #expect(output.contains("promise.value_type=Int"), "\(output)")
    }
}
#endif  // Logging
