import PromiseTestSupport
import Testing

/// Child processes leave SIGCHLD as they found it and never fight the signal watches: every
/// order of spawning and reaping children on two loops, with and without a SIGCHLD handler of
/// the program's own or an ignored SIGCHLD, and a probe at every point between, runs in a
/// process of its own (`promise-signal-owner-helper sigchld`), checked against the rules:
///
/// - while any spawned child is open (on any loop), SIGCHLD's action is the one from before
///   the first, unless that one ignored SIGCHLD (then it is the default, so that the kernel
///   leaves the reaping to the loop); on a kernel without pidfds, where the loops watch
///   SIGCHLD, it is libuv's handler;
/// - once the last one is closed, the action from before the first is back (the program's
///   handler, the default, or ignoring);
/// - a child a loop spawned reports its own exit status, and a child the program started
///   itself and reaps with `waitpid` keeps its status, whatever runs beside it (unless SIGCHLD
///   is ignored with no child open: then the kernel reaps it, as it would without a loop);
/// - a SIGCHLD watch is refused, through `Promises.nextSignal` and `UVLoop.nextSignal` alike,
///   with or without children.
///
/// The `signal` scripts stand in for a kernel without pidfds; each script runs with a probe at
/// one place only, the pidfd ones with a probe at every place.
@Suite struct ChildSignalOwnerTests {
    @Test(arguments: ChildSignalScript.all)
    func everyOrderOfSpawnsReapsAndProbesOnTwoLoops(_ script: ChildSignalScript) async throws {
        let result = try await runHelperProgram(
            "promise-signal-owner-helper", ["sigchld", script.bySignal ? "signal" : "pidfd", script.steps.joined(separator: ",")])
        #expect(result.status == 0, "\(script): \(result.output)")
        #expect(result.output.split(separator: "\n").map(String.init) == script.expectedLines, "\(script)")
    }

    @Test func theScriptsCoverEveryOrder() {
        let scripts = ChildSignalScript.all
        #expect(Set(scripts.map { [$0.bySignal ? "signal" : "pidfd"] + $0.steps }).count == scripts.count)
        // Two children reaped: 6 orders of the four steps; two spawned and one reaped: 3 orders.
        // With a pidfd, a probe at every place (5 and 4), with no handler, a handler, or SIGCHLD
        // ignored; by signal, a probe at one place.
        #expect(scripts.filter { !$0.bySignal }.count == 3 * (6 * 5 + 3 * 4))
        #expect(scripts.filter(\.bySignal).count == 3 * (6 + 3))
        #expect(scripts.contains { !$0.bySignal && $0.steps == ["handler", "spawn-a", "spawn-b", "reap-a", "probe", "reap-b"] })
        #expect(scripts.contains { !$0.bySignal && $0.steps == ["ignore", "spawn-b", "probe", "spawn-a", "reap-a"] })
        #expect(scripts.contains { $0.bySignal && $0.steps == ["ignore", "spawn-a", "probe", "reap-a", "spawn-b", "reap-b"] })
    }
}

/// One order of steps for the helper's `sigchld` mode, and what the rules say it prints.
struct ChildSignalScript: Sendable, CustomTestStringConvertible {
    /// Whether the loops reap through SIGCHLD (as without pidfds) rather than pidfds.
    let bySignal: Bool
    let steps: [String]

    var testDescription: String { (bySignal ? "signal: " : "pidfd: ") + steps.joined(separator: ",") }

    static let all: [ChildSignalScript] = {
        var scripts: [ChildSignalScript] = []
        let bodies = [["spawn-a", "reap-a", "spawn-b", "reap-b"], ["spawn-a", "spawn-b", "reap-a"]]
        for bySignal in [false, true] {
            for prefix in [[], ["handler"], ["ignore"]] {
                for body in bodies {
                    for order in permutations(body) where Set(order).count == order.count && reapsFollowSpawns(order) {
                        for place in bySignal ? [1] : Array(0...order.count) {
                            var steps = order
                            steps.insert("probe", at: place)
                            scripts.append(ChildSignalScript(bySignal: bySignal, steps: prefix + steps))
                        }
                    }
                }
            }
        }
        return scripts
    }()

    /// Whether every `reap-X` comes after its `spawn-X`.
    private static func reapsFollowSpawns(_ order: [String]) -> Bool {
        order.indices.allSatisfy { index in
            guard order[index].hasPrefix("reap-") else { return true }
            return order[..<index].contains("spawn-" + order[index].dropFirst("reap-".count))
        }
    }

    /// The lines the helper prints, by the rules.
    var expectedLines: [String] {
        var before = "default"
        var open = 0
        var lines: [String] = []
        func action() -> String {
            guard open > 0 else { return before }
            if bySignal { return "libuv" }
            return before == "ignore" ? "default" : before
        }
        for step in steps {
            var extra = ""
            switch step {
            case "handler": before = "program"
            case "ignore": before = "ignore"
            case "spawn-a", "spawn-b": open += 1
            case "reap-a", "reap-b": open -= 1
            default: extra = " own=3 raw=\(before == "ignore" && open == 0 ? -1 : 5) core=refused loop=refused"
            }
            lines.append("\(step) action=\(action()) children=\(open)\(extra)")
        }
        open = 0  // shutting the loops down reaps and closes what still runs
        lines.append("end action=\(action()) children=0")
        return lines
    }
}
