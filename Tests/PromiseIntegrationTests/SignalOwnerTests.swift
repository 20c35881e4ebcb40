import Glibc
import PromiseTestSupport
import Testing

/// `Promises.nextSignal` and `UVLoop.nextSignal` share one owner of the process's signal
/// actions: every order of a core watch, a loop watch, a cancellation and a delivery, with
/// watches kept, chained or discarded, runs in a process of its own
/// (`promise-signal-owner-helper`), and its output is checked against a model of the rules:
///
/// - a delivery fulfils every live watch of the signal, core and loop alike;
/// - a watch is live while it is pending and something holds it or is chained to it;
/// - a delivery that finds no live watch acts as the action from before the first watch did
///   (here the default one, which ends the process);
/// - the handler stays installed exactly while a live watch is pending, or a discarded watch
///   has not been looked at since (the owner ends dead watches when a watch starts or ends or
///   a signal arrives).
@Suite struct SignalOwnerTests {
    @Test(arguments: SignalScript.all)
    func everyOrderOfCoreAndLoopWatchesCancellationAndDelivery(_ script: SignalScript) async throws {
        let result = try await runHelperProgram("promise-signal-owner-helper", [script.steps.joined(separator: ",")])
        let expected = script.expectedOutcome
        #expect(result.status == expected.status, "\(script): \(result.output)")
        #expect(lines(result.output) == expected.lines, "\(script)")
    }

    @Test func theScriptsCoverEveryOrderOfTheFourKindsOfStep() {
        // Held core and loop watches with one cancellation: 4!/2 orders for each cancelled one,
        // 3! without.
        let held = SignalScript.all.filter { Set($0.steps).isSubset(of: ["core", "loop", "cancel-core", "cancel-loop", "deliver"]) }
        #expect(held.filter { $0.steps.count == 4 && $0.steps.contains("core") && $0.steps.contains("loop") }.count == 24)
        #expect(held.filter { $0.steps == ["core", "loop", "cancel-core", "deliver"] }.count == 1)
        #expect(SignalScript.all.contains { $0.steps == ["drop-core", "deliver"] })
        #expect(SignalScript.all.contains { $0.steps == ["drop-loop", "core", "deliver"] })
        #expect(Set(SignalScript.all.map(\.steps)).count == SignalScript.all.count)
    }
}

/// One order of steps for the helper, and what the rules say it prints.
struct SignalScript: Sendable, CustomTestStringConvertible {
    let steps: [String]

    var testDescription: String { steps.joined(separator: ",") }

    /// Every script: each kind of core watch (kept, chained, discarded or none) beside each
    /// kind of loop watch, at most one cancellation of a kept watch after it started, and one
    /// delivery, in every order.
    static let all: [SignalScript] = {
        let coreKinds: [String?] = ["core", "chain-core", "drop-core", nil]
        let loopKinds: [String?] = ["loop", "chain-loop", "drop-loop", nil]
        var scripts: [SignalScript] = []
        for coreKind in coreKinds {
            for loopKind in loopKinds {
                let watches = [coreKind, loopKind].compactMap { $0 }
                var cancellations: [String?] = [nil]
                if coreKind == "core" { cancellations.append("cancel-core") }
                if loopKind == "loop" { cancellations.append("cancel-loop") }
                for cancellation in cancellations {
                    let events = watches + [cancellation].compactMap { $0 } + ["deliver"]
                    for order in permutations(events) {
                        if let cancellation, let started = order.firstIndex(of: String(cancellation.dropFirst("cancel-".count))),
                            order.firstIndex(of: cancellation)! < started
                        {
                            continue
                        }
                        scripts.append(SignalScript(steps: order))
                    }
                }
            }
        }
        return scripts
    }()

    /// What the helper prints and its exit status, by the rules.
    var expectedOutcome: (status: Int32, lines: [String]) {
        var state = ["core": "none", "loop": "none", "chain-core": "none", "chain-loop": "none"]
        var lines: [String] = []
        // A discarded watch that the owner has not looked at since: it keeps the handler.
        var unseenDiscarded = false
        for step in steps {
            switch step {
            case "core", "loop", "chain-core", "chain-loop":
                state[step] = "pending"
                unseenDiscarded = false
            case "cancel-core", "cancel-loop":
                // Cancelling a settled promise does nothing, so the owner does not look.
                let watch = String(step.dropFirst("cancel-".count))
                if state[watch] == "pending" {
                    state[watch] = "cancelled"
                    unseenDiscarded = false
                }
            case "deliver":
                let live = state.filter { $0.value == "pending" }.map(\.key)
                if live.isEmpty { return (128 + SIGUSR2, lines) }
                for watch in live { state[watch] = "fulfilled" }
                lines.append("delivered " + describe(state))
                unseenDiscarded = false
            default:
                unseenDiscarded = true  // "drop-…": dead at once, ended when the owner next looks
            }
        }
        let handler = state.values.contains("pending") || unseenDiscarded
        lines.append("end " + describe(state) + " action=\(handler ? "handler" : "default")")
        return (0, lines)
    }

    private func describe(_ state: [String: String]) -> String {
        "core=\(state["core"]!) loop=\(state["loop"]!) chain-core=\(state["chain-core"]!) chain-loop=\(state["chain-loop"]!)"
    }
}

/// Every order of `items` (for the script tables of the signal-owner tests).
func permutations(_ items: [String]) -> [[String]] {
    guard items.count > 1 else { return [items] }
    return items.indices.flatMap { index in
        var rest = items
        let first = rest.remove(at: index)
        return permutations(rest).map { [first] + $0 }
    }
}

/// The output's non-empty lines.
private func lines(_ text: String) -> [String] {
    text.split(separator: "\n").map(String.init)
}
