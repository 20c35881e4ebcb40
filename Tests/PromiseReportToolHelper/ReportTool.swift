// swift-format-ignore-file
// (documentation quotes this file's code line for line, layout included)
// PromiseCore's "Threading and contexts" article, "Choosing the main queue": an async `main`
// that makes the main queue the default context, verbatim between `// DocC: begin` and
// `// DocC: end` (PromiseCoreTests' `DocCCodeBlocksTests` checks it). Spawned by
// PromiseCoreTests' DocCExamplesTests, which expects the upper-cased report.
// DocC: begin
import Dispatch
import PromiseCore

@main
struct ReportTool {
    static func main() async {
        Promises.defaultContext = DispatchQueue.main
        do {
            // The `then` callback runs on the main queue, isolated to the main actor.
            let report = try await fetchReport().then { report in report.uppercased() }.get()
            print(report)
        } catch {
            print("failed:", error)
        }
    }
}
// DocC: end

/// The report, after 10 ms on another queue. Its own `then` runs on the default context, the
/// main queue: `MainActor.assumeIsolated` stops the program unless it is isolated to the main
/// actor, as the article says.
func fetchReport() -> Promise<String> {
    Promise<String> { fulfill, _ in
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(10)) { fulfill("quarterly report") }
    }
    .then { report in
        MainActor.assumeIsolated { report }
    }
}
