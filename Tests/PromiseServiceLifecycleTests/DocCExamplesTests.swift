import Glibc
import PromiseTestSupport
import Testing

/// PromiseServiceLifecycle's DocC landing page runs as written: `promise-lifecycle-helper docc`
/// holds it verbatim (Tests/PromiseLifecycleHelper/DocCExample.swift), with a server of its own
/// that sends the process SIGTERM once the group runs it.
@Suite struct DocCExamplesTests {
    @Test func theLandingPageProgramStopsEveryResourceOnSIGTERM() async throws {
        var template = Array("/tmp/promise-lifecycle-docc.XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) != nil }
        try #require(made)
        let directory = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { _ = system("rm -rf '\(directory)'") }

        let result = try await runHelperProgram("promise-lifecycle-helper", ["docc", directory], timeout: .seconds(60))
        let facts = result.output.split(separator: "\n").map(String.init)
        #expect(result.status == 0, "\(result.output)")
        #expect(facts.contains("group stopped"), "\(result.output)")
        #expect(facts.contains("loop refuses work: true"), "\(result.output)")
        #expect(facts.contains("database refuses work: true"), "\(result.output)")
        #expect(facts.contains("client refuses work: true"), "\(result.output)")
        #expect(facts.contains("database file: true"), "\(result.output)")
    }
}
