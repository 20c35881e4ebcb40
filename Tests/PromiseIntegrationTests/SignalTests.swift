import Dispatch
import Glibc
import PromiseTestSupport
import Testing

/// `Promises.nextSignal` in `promise-core-signal-helper`, a top-level Swift 6 program that
/// depends on PromiseSignals alone. Each case runs in a process of its own: signal actions belong
/// to the whole process, and this one is never signalled.
///
/// A process that dies of a signal has the status 128 + the signal's number.
@Suite struct SignalTests {
    @Test func aSignalTheProgramSendsItselfFulfilsTheWatch() async throws {
        let result = try await runHelperProgram(signalHelper, ["self"])
        #expect(result.status == 0, "\(result.output)")
        #expect(lines(result.output) == ["signal \(SIGTERM)"], "\(result.output)")
    }

    @Test func aSignalThatEveryThreadBlocksStillFulfilsTheWatch() async throws {
        let result = try await runHelperProgram(signalHelper, ["self", "--blocked"])
        #expect(result.status == 0, "\(result.output)")
        #expect(lines(result.output) == ["signal \(SIGTERM)"], "\(result.output)")
    }

    @Test func aSignalFromAnotherProcessFulfilsTheWatchWhileTheMainThreadIsInDispatchMain() async throws {
        let result = try await runHelperProgram(["wait"], signalledWith: SIGINT)
        #expect(result.status == 0, "\(result.output)")
        #expect(lines(result.output) == ["ready", "signal \(SIGINT)"], "\(result.output)")
    }

    @Test func aSignalFromAnotherProcessThatEveryThreadBlocksFulfilsTheWatch() async throws {
        let result = try await runHelperProgram(["wait", "--blocked"], signalledWith: SIGTERM)
        #expect(result.status == 0, "\(result.output)")
        #expect(lines(result.output) == ["ready", "signal \(SIGTERM)"], "\(result.output)")
    }

    @Test func aCancelledWatchGivesTheSignalItsDefaultActionBack() async throws {
        let result = try await runHelperProgram(signalHelper, ["cancel"])
        #expect(result.status == 128 + SIGTERM, "\(result.output)")
        #expect(lines(result.output) == [], "\(result.output)")
    }

    @Test func onceTheWatchIsFulfilledTheSameSignalKillsBeforeItsCallbacksRun() async throws {
        let result = try await runHelperProgram(signalHelper, ["twice"])
        #expect(result.status == 128 + SIGTERM, "\(result.output)")
        #expect(lines(result.output) == ["signal \(SIGTERM)"], "\(result.output)")
    }

    @Test func aNewWatchAfterOneFiredCatchesTheSignalAgain() async throws {
        let result = try await runHelperProgram(signalHelper, ["again"])
        #expect(result.status == 0, "\(result.output)")
        #expect(lines(result.output) == ["signal \(SIGTERM)", "signal \(SIGTERM)"], "\(result.output)")
    }

    @Test func theDefaultActionComesBackOnlyWhenTheLastWatchOfTheSignalEnds() async throws {
        let result = try await runHelperProgram(signalHelper, ["overlap"])
        #expect(result.status == 128 + SIGTERM, "\(result.output)")
        #expect(lines(result.output) == ["second \(SIGTERM)", "interrupt watch pending"], "\(result.output)")
    }

    @Test func signalsThatCannotBeWatchedAreRejectedAtOnceAndChangeNothing() async throws {
        let result = try await runHelperProgram(signalHelper, ["invalid"])
        // The last list, [SIGTERM, 32], failed on 32 after installing SIGTERM's handler: undone,
        // so the SIGTERM sent afterwards kills.
        #expect(result.status == 128 + SIGTERM, "\(result.output)")
        let printed = lines(result.output)
        let expected: [(list: String, says: String)] = [
            ("[]", "no signal to wait for"),
            ("[\(SIGKILL)]", "SIGKILL) cannot be caught"),
            ("[\(SIGSTOP)]", "SIGSTOP) cannot be caught"),
            ("[0]", "0 is not a signal number"),
            ("[65]", "65 is not a signal number"),
            ("[\(SIGSEGV)]", "SIGSEGV) reports a fault"),
            ("[\(SIGTERM), 32]", "signal 32 cannot be watched: sigaction failed"),
        ]
        #expect(printed.count == expected.count, "\(result.output)")
        for (line, (list, says)) in zip(printed, expected) {
            #expect(line.hasPrefix("rejected \(list): invalidArgument: "), "\(line)")
            #expect(line.contains(says), "\(line)")
        }
    }

    @Test func theCommonPatternsExampleStopsTheBackupOnCtrlC() async throws {
        let result = try await runHelperProgram(["example"], signalledWith: SIGINT)
        #expect(result.status == 0, "\(result.output)")
        #expect(lines(result.output) == ["signal \(SIGINT): stopping the backup", "backup stopped"], "\(result.output)")
    }
}

private let signalHelper = "promise-core-signal-helper"

/// Runs the signal helper in `mode`, with a pid file as its first argument, and sends it
/// `signal` once the file names its pid (the helper writes it once its watch is on).
private func runHelperProgram(
    _ mode: [String],
    signalledWith signal: Int32
) async throws -> (status: Int32, output: String) {
    try await runHelperProgram(signalHelper, mode, signalledWith: signal)
}

/// The output's non-empty lines.
private func lines(_ text: String) -> [String] {
    text.split(separator: "\n").map(String.init)
}
