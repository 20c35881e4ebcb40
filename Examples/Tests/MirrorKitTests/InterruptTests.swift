import Foundation
import Glibc
@testable import MirrorKit
import PromiseSQLite
import Synchronization
import Testing

/// Ctrl-C, for real: the `promise-demo` program is started as a child process and sent SIGINT
/// while transfers are in flight.
@Suite struct InterruptTests {
    @Test func sigintCancelsTransfersLeavesNoPartialFileAndAConsistentIndex() async throws {
        let output = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: output) }
        let fast = [HTTPBin.url("/html"), HTTPBin.url("/bytes/5000?seed=1"), HTTPBin.url("/json")]
        // Bodies that trickle for 20 s: in flight, mid-body, when the signal arrives.
        let slow = (1...4).map { HTTPBin.url("/drip?duration=20&numbytes=20&delay=0&n=\($0)") }
        let program = try RunningProgram(
            "promise-demo",
            ["mirror", "--plain", "--output", output, "--concurrency", "5", "--retries", "0"] + fast + slow
        )
        // Wait until the fast ones are stored and the slow ones have begun to arrive.
        let ready = try await eventually(.seconds(60)) {
            program.output.components(separatedBy: "\n").filter { $0.hasPrefix("ok ") }.count == 3
        }
        #expect(ready, "the fast URLs were not mirrored: \(program.output)")
        try await Task.sleep(for: .milliseconds(1500))
        program.send(SIGINT)
        let exited = try await program.waitForExit(within: .seconds(30))
        #expect(exited, "promise-demo did not exit after SIGINT: \(program.output)")
        let out = program.output

        #expect(program.reason == .exit && program.status == 130, "\(out)")
        #expect(out.contains("SIGINT: stopping. Cancelling 4 transfer(s) in flight"), "\(out)")
        #expect(out.contains("3 stored"), "\(out)")
        #expect(out.contains("4 cancelled in flight, 1 not started") || out.contains("4 cancelled in flight, 0 not started"), "\(out)")

        let rows = try await indexRows(output + "/index.sqlite")
        #expect(Set(rows.map(\.url)) == Set(fast), "only finished URLs are recorded")
        #expect(rows.allSatisfy { $0.error == nil && $0.file != nil })
        #expect(try checkConsistency(output, rows) == [])
        let leftovers = try filesBelow(output).keys.filter { $0.contains(".tmp-") || $0.contains("drip") }
        #expect(leftovers.isEmpty, "partial files: \(leftovers)")

        // The run is recorded as interrupted, with its counts.
        let index = try await MirrorIndex.open(output + "/index.sqlite").get()
        let run = try #require(try await index.db.queryFirst("SELECT outcome, ok, failed, cancelled FROM runs").get())
        try await index.close().get()
        #expect(try run.get("outcome", as: String.self) == "interrupted by SIGINT")
        #expect(try run.get("ok", as: Int.self) == 3)
        #expect(try run.get("cancelled", as: Int.self) == 4)
    }
}

/// Polls `condition` until it holds or `timeout` passes.
func eventually(_ timeout: Duration, _ condition: @Sendable () -> Bool) async throws -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(20))
    }
    return condition()
}
