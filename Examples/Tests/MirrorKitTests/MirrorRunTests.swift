import Foundation
@testable import MirrorKit
import Testing

/// Whole runs of the mirror against real loopback servers: httpbin (started by the
/// repository's test scripts) and the demo's own sample site.
@Suite struct MirrorRunTests {
    @Test func goodFailingSlowAndRedirectingURLsGiveTheExpectedRowsAndFiles() async throws {
        let output = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: output) }
        let lines = [
            HTTPBin.url("/html"),
            HTTPBin.url("/bytes/3000?seed=7"),
            HTTPBin.url("/redirect-to?url=%2Fhtml"),
            HTTPBin.url("/delay/1"),
            HTTPBin.url("/status/404"),
            HTTPBin.url("/status/503"),
            "http://127.0.0.1:9/refused",
            "file:///etc/passwd",
            "not a url at all",
            HTTPBin.url("/html"),  // a duplicate: mirrored once
        ]
        let (report, output_) = try await mirror(lines, into: output) {
            $0.retries = 1; $0.batchSize = 3
        }
        #expect(report.ok == 4)
        #expect(report.failed == 5)
        #expect(report.cancelled == 0 && report.notStarted == 0 && report.interruptedBy == nil)

        let rows = try await indexRows(output + "/index.sqlite")
        #expect(rows.count == 9)
        let byURL = Dictionary(uniqueKeysWithValues: rows.map { ($0.url, $0) })
        let page = try #require(byURL[HTTPBin.url("/html")])
        #expect(page.status == 200 && page.error == nil && page.attempts == 1)
        #expect(page.file == "127.0.0.1_\(HTTPBin.port)/html")
        let pageText = try String(contentsOfFile: output + "/" + page.file!, encoding: .utf8)
        #expect(pageText.contains("Herman Melville"))
        #expect(byURL[HTTPBin.url("/bytes/3000?seed=7")]?.bytes == 3000)
        let redirected = try #require(byURL[HTTPBin.url("/redirect-to?url=%2Fhtml")])
        #expect(redirected.finalURL == HTTPBin.url("/html"))
        #expect(redirected.status == 200 && redirected.bytes == page.bytes)
        let slow = try #require(byURL[HTTPBin.url("/delay/1")])
        #expect(slow.status == 200 && slow.durationMs >= 1000)
        let missing = try #require(byURL[HTTPBin.url("/status/404")])
        #expect(missing.status == 404 && missing.file == nil && missing.attempts == 1)  // a 404 is not retried
        #expect(missing.error?.hasPrefix("HTTP 404") == true)
        let busy = try #require(byURL[HTTPBin.url("/status/503")])
        #expect(busy.status == 503 && busy.attempts == 2)  // retried once
        let refused = try #require(byURL["http://127.0.0.1:9/refused"])
        #expect(refused.status == nil && refused.attempts == 2)
        #expect(refused.error?.contains("connection refused") == true)
        #expect(byURL["file:///etc/passwd"]?.error?.contains("scheme 'file' is not allowed") == true)
        #expect(byURL["not a url at all"]?.error?.hasPrefix("not a URL") == true)
        #expect(byURL["not a url at all"]?.attempts == 0)

        #expect(try checkConsistency(output, rows) == [])
        #expect(try storedFiles(output).count == 4)
        // Each failure has its line in the output; each retry says when it will try again.
        #expect(output_.contains { $0.hasPrefix("FAIL   404  \(HTTPBin.url("/status/404"))") })
        #expect(output_.contains { $0.hasPrefix("retry  \(HTTPBin.url("/status/503")): HTTP 503") })
        #expect(output_.filter { $0.hasPrefix("FAIL") }.count == 5)
    }

    @Test func aSecondRunIsIdempotent() async throws {
        let output = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: output) }
        let server = try SampleServer()
        defer { server.stop() }
        let lines = server.sampleURLs.filter { !$0.hasSuffix("/slow.html") }
        let (first, _) = try await mirror(lines, into: output)
        let filesAfterFirst = try storedFiles(output)
        let rowsAfterFirst = try await indexRows(output + "/index.sqlite")
        let (second, _) = try await mirror(lines, into: output)
        let filesAfterSecond = try storedFiles(output)
        let rowsAfterSecond = try await indexRows(output + "/index.sqlite")

        #expect(first.ok == 16 && first.failed == 4)
        #expect(second.ok == first.ok && second.failed == first.failed && second.bytes == first.bytes)
        #expect(second.runID == first.runID + 1)
        #expect(filesAfterSecond == filesAfterFirst)
        // The same rows, apart from what describes the attempt itself: its run and how long
        // libcurl's connect attempt took ("after 0 ms" one run, "after 1 ms" the next).
        func essence(_ rows: [IndexRow]) -> [String] {
            rows.map { row in
                let error = row.error.map { $0.replacing(/after \d+ ms/, with: "after … ms") } ?? "-"
                return "\(row.url) \(row.finalURL ?? "-") \(row.status ?? 0) \(row.bytes ?? -1) \(row.file ?? "-") \(error)"
            }
        }
        #expect(essence(rowsAfterSecond) == essence(rowsAfterFirst))
        #expect(rowsAfterSecond.allSatisfy { $0.runID == second.runID })
        #expect(try checkConsistency(output, rowsAfterSecond) == [])
    }

    @Test func anUnwritableOutputDirectoryFailsEachURLClearlyAndTheRunGoesOn() async throws {
        let scratch = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        // A regular file where the output directory should be: nothing can be created below it
        // (permissions would not stop the root user that CI may run as).
        try Data("not a directory".utf8).write(to: URL(fileURLWithPath: scratch + "/blocker"))
        let output = scratch + "/blocker/mirror"
        let (report, lines) = try await mirror([HTTPBin.url("/html"), HTTPBin.url("/status/404")], into: output)
        #expect(report.ok == 0 && report.failed == 2)
        #expect(report.indexPath == ":memory:")
        #expect(lines.contains { $0.hasPrefix("output: cannot create \(output)") })
        #expect(lines.contains { $0.hasPrefix("index: cannot open \(output)/index.sqlite") })
        let row = try #require(report.rows.first { $0.url == HTTPBin.url("/html") })
        #expect(row.status == 200 && row.file == nil)
        #expect(row.error?.contains("could not store it") == true)
        #expect(row.error?.contains("not a directory") == true || row.error?.contains("notADirectory") == true, "\(row.error ?? "")")
    }
}
