// swift-format-ignore-file
// (documentation quotes this file's code line for line, layout included)
#if Tracing && Metrics
import Foundation
import PromiseCurl
import PromiseSQLite
import PromiseTestSupport
import PromiseUV
import Testing
import Tracing

/// The code blocks of the three "Tracing and metrics" articles, as written there
/// (`DocCCodeBlocksTests` checks they are), with what they record.
@Suite struct TelemetryDocCExamplesTests {
    let recorders = Recorders()

    @Test func curlArticle() async throws {
        let (tracer, metrics) = (recorders.tracer, recorders.metrics)
        let server = "http://127.0.0.1:\(TestServer.httpbin.ports["http"]!)"
        // DocC: begin
        var configuration = CurlConfiguration()
        configuration.tracer = tracer                 // any Tracer: OpenTelemetry's, or InMemoryTracer in tests
        configuration.metricsFactory = metrics        // any MetricsFactory: Prometheus's, or TestMetrics
        let client = try CurlClient(configuration: configuration)

        let parent = tracer.startSpan("refresh")
        let answer = InstrumentationContext.withValue(parent.context) {
            client.get(server + "/uuid").validate()      // span "GET", a child of "refresh"
        }
        // DocC: end
        _ = try await answer.get()
        parent.end()
        #expect(try recorders.span(named: "GET").parentSpanID == (try recorders.span(named: "refresh")).spanID)
        #expect(recorders.counter("http.client.requests", [("http.request.method", "GET"), ("http.response.status_code", "200")]) == 1)
    }

    @Test func sqliteArticle() async throws {
        let (tracer, metrics) = (recorders.tracer, recorders.metrics)
        let directory = try ScratchDirectory("promise-telemetry-docc")
        let path = directory("notes.sqlite")
        let body = "first note"
        let setUp = try await SQLiteDatabase.open(path: path).get()
        try await setUp.execute("CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT)").get()
        try await setUp.close().get()
        // DocC: begin
        var configuration = SQLiteConfiguration()
        configuration.tracer = tracer
        configuration.metricsFactory = metrics
        let db = try await SQLiteDatabase.open(path: path, configuration: configuration).get()

        try await db.transaction { connection in            // span "transaction"
            try connection.execute("INSERT INTO notes(body) VALUES (?)", [body])   // span "INSERT", its child
        }.get()
        // DocC: end
        try await db.close().get()
        #expect(try recorders.span(named: "INSERT").parentSpanID == (try recorders.span(named: "transaction")).spanID)
    }

    @Test func uvArticle() async throws {
        let (tracer, metrics) = (recorders.tracer, recorders.metrics)
        let scratch = try ScratchDirectory("promise-telemetry-docc")
        let (archivePath, directory) = (scratch("notes.tar.gz"), scratch("notes"))
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        try Data("a note\n".utf8).write(to: URL(fileURLWithPath: directory + "/note.txt"))
        let loop = try UVLoop()
        try loop.startThread(named: "uv-docc")
        defer { loop.shutdown() }
        // DocC: begin
        var archive = UVCommand("/usr/bin/tar", arguments: ["-czf", archivePath, "-C", directory, "."])
        archive.tracer = tracer
        archive.metricsFactory = metrics
        let packed = loop.spawn(archive)          // span "tar", a child of the caller's
        // DocC: end
        let result = try await packed.get()
        #expect(result.exit == .exited(0))
        #expect(try recorders.span(named: "tar").int("process.exit.code") == 0)
        #expect(recorders.counter("process.runs", [("process.executable.name", "tar"), ("process.outcome", "exited")]) == 1)
    }
}
#endif
