import PromiseTestSupport
import Testing

/// Child processes leave SIGCHLD as they found it and never fight the signal watches: every
/// order of spawning and reaping children on two loops, with and without a SIGCHLD handler of
/// the program's own, and a probe at every point between, runs in a process of its own
/// (`promise-signal-owner-helper sigchld`), checked against the rules:
///
/// - while any spawned child is open (on any loop), SIGCHLD's action is libuv's handler;
/// - once the last one is closed, the action from before the first is back (the program's
///   handler, or the default);
/// - a child a loop spawned reports its own exit status, and a child the program started
///   itself and reaps with `waitpid` keeps its status, whatever runs beside it;
/// - a SIGCHLD watch is refused, through `Promises.nextSignal` and `UVLoop.nextSignal` alike,
///   with or without children.
@Suite struct ChildSignalOwnerTests {
    @Test(arguments: ChildSignalScript.all)
    func everyOrderOfSpawnsReapsAndProbesOnTwoLoops(_ script: ChildSignalScript) async throws {
        let result = try await runHelperProgram("promise-signal-owner-helper", ["sigchld", script.steps.joined(separator: ",")])
        #expect(result.status == 0, "\(script): \(result.output)")
        #expect(result.output.split(separator: "\n").map(String.init) == script.expectedLines, "\(script)")
    }

    @Test func theScriptsCoverEveryOrder() {
        let scripts = ChildSignalScript.all
        #expect(Set(scripts.map(\.steps)).count == scripts.count)
        // Two children reaped: 6 orders of the four steps, a probe at 5 places, with and without
        // a handler; two spawned and one reaped: 3 orders, 4 places.
        #expect(scripts.count == 2 * (6 * 5 + 3 * 4))
        #expect(scripts.contains { $0.steps == ["handler", "spawn-a", "spawn-b", "reap-a", "probe", "reap-b"] })
        #expect(scripts.contains { $0.steps == ["spawn-b", "probe", "spawn-a", "reap-a"] })
    }
}

/// One order of steps for the helper's `sigchld` mode, and what the rules say it prints.
struct ChildSignalScript: Sendable, CustomTestStringConvertible {
    let steps: [String]

    var testDescription: String { steps.joined(separator: ",") }

    static let all: [ChildSignalScript] = {
        var scripts: [ChildSignalScript] = []
        let bodies = [["spawn-a", "reap-a", "spawn-b", "reap-b"], ["spawn-a", "spawn-b", "reap-a"]]
        for prefix in [[], ["handler"]] {
            for body in bodies {
                for order in permutations(body) where Set(order).count == order.count && reapsFollowSpawns(order) {
                    for place in 0...order.count {
                        var steps = order
                        steps.insert("probe", at: place)
                        scripts.append(ChildSignalScript(steps: prefix + steps))
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
        func action() -> String { open > 0 ? "libuv" : before }
        for step in steps {
            var extra = ""
            switch step {
            case "handler": before = "program"
            case "spawn-a", "spawn-b": open += 1
            case "reap-a", "reap-b": open -= 1
            default: extra = " own=3 raw=5 core=refused loop=refused"
            }
            lines.append("\(step) action=\(action()) children=\(open)\(extra)")
        }
        open = 0  // shutting the loops down reaps and closes what still runs
        lines.append("end action=\(action()) children=0")
        return lines
    }
}
