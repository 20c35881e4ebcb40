// Watches of SIGUSR2 made through `Promises.nextSignal` and `UVLoop.nextSignal` in one process,
// in the order a script gives, to check that the two share one owner of the signal's action.
// Spawned by PromiseIntegrationTests' SignalOwnerTests, since signal actions belong to the
// whole process.
//
//   promise-signal-owner-helper STEP,STEP,...
//
// Steps:
//   core         `Promises.nextSignal([SIGUSR2])`, kept in a variable
//   loop         `loop.nextSignal(.user2)`, kept in a variable (the loop runs on its own thread)
//   chain-core   `Promises.nextSignal([SIGUSR2]).done { … }`, the result discarded
//   chain-loop   `loop.nextSignal(.user2).done(on: loop) { … }`, the result discarded
//   drop-core    `_ = Promises.nextSignal([SIGUSR2])`: nothing holds it, nothing is chained
//   drop-loop    `_ = loop.nextSignal(.user2)`
//   cancel-core  cancels the kept core watch
//   cancel-loop  cancels the kept loop watch
//   deliver      `kill(getpid(), SIGUSR2)`, then waits (10 s at most) until every watch that
//                was pending has settled, and prints "delivered" with what each one became;
//                with no pending watch, waits 10 s to be ended by the signal
//
// Then prints "end core=… loop=… chain-core=… chain-loop=… action=default|handler" and exits 0.
// A watch is "none" (never made), "pending", "fulfilled" or "cancelled". A process ended by
// SIGUSR2 exits with status 140 (128 + 12) and prints nothing more.
//
// `promise-signal-owner-helper sigchld pidfd|signal STEP,...` runs child processes instead
// (ChildSignals.swift).
import Dispatch
import Glibc
import PromiseSignals
import PromiseUV
import Synchronization

/// Writes one line to standard output at once (nothing is lost when a signal ends the process).
func say(_ items: Any...) {
    let line = items.map { "\($0)" }.joined(separator: " ") + "\n"
    _ = line.utf8CString.withUnsafeBytes { write(1, $0.baseAddress, $0.count - 1) }
}

/// A promise's state in the script's words.
func describe<Value>(_ promise: Promise<Value>?) -> String {
    guard let promise else { return "none" }
    if promise.isPending { return "pending" }
    if promise.isCancelled { return "cancelled" }
    if promise.isFulfilled { return "fulfilled" }
    return "rejected: \(promise.error.map { "\($0)" } ?? "")"
}

/// Whether SIGUSR2's action is the default one.
func hasDefaultAction() -> Bool {
    var action = sigaction()
    sigaction(SIGUSR2, nil, &action)
    return action.__sigaction_handler.sa_handler == nil
}

if CommandLine.arguments.dropFirst().first == "sigchld" {
    let arguments = Array(CommandLine.arguments.dropFirst(2))
    guard arguments.count == 2, ["pidfd", "signal"].contains(arguments[0]) else {
        say("usage: promise-signal-owner-helper sigchld pidfd|signal STEP,...")
        exit(2)
    }
    try runChildSignalScript(reapingBySignal: arguments[0] == "signal", arguments[1].split(separator: ",").map(String.init))
}

// As in a program started from a shell: SIGUSR2 has its default action and is not blocked here.
signal(SIGUSR2, SIG_DFL)
var mask = sigset_t()
sigemptyset(&mask)
sigaddset(&mask, SIGUSR2)
pthread_sigmask(SIG_UNBLOCK, &mask, nil)

let loop = try UVLoop()
try loop.startThread(named: "signal-owner-loop")
var core: Promise<Int32>?
var onLoop: Promise<UVSignal>?
/// The chained watches' callbacks report here.
let chained = Mutex<[String: Bool]>([:])
let chainRan = DispatchSemaphore(value: 0)

func chainState(_ name: String) -> String {
    switch chained.withLock({ $0[name] }) {
    case nil: return "none"
    case false?: return "pending"
    case true?: return "fulfilled"
    }
}

let steps = CommandLine.arguments.dropFirst().first.map { $0.split(separator: ",").map(String.init) } ?? []
for step in steps {
    switch step {
    case "core":
        core = Promises.nextSignal([SIGUSR2])
    case "loop":
        onLoop = loop.nextSignal(.user2)
    case "chain-core":
        chained.withLock { $0["chain-core"] = false }
        Promises.nextSignal([SIGUSR2]).done { _ in
            chained.withLock { $0["chain-core"] = true }
            chainRan.signal()
        }
    case "chain-loop":
        chained.withLock { $0["chain-loop"] = false }
        loop.nextSignal(.user2).done(on: loop) { _ in
            chained.withLock { $0["chain-loop"] = true }
            chainRan.signal()
        }
    case "drop-core":
        _ = Promises.nextSignal([SIGUSR2])
    case "drop-loop":
        _ = loop.nextSignal(.user2)
    case "cancel-core":
        core?.cancel()
    case "cancel-loop":
        onLoop?.cancel()
    case "deliver":
        let waiting = [core?.isPending, onLoop?.isPending].filter { $0 == true }.count
        let chains = chained.withLock { $0.values.filter { !$0 }.count }
        kill(getpid(), SIGUSR2)
        if waiting + chains == 0 {
            // Nothing is meant to catch it: the signal ends the process before this is over.
            for _ in 0..<1000 { usleep(10_000) }
            say("survived")
            exit(0)
        }
        if let core, core.isPending { _ = try? awaitPromise(core, timeout: .seconds(10)) }
        if let onLoop, onLoop.isPending { _ = try? awaitPromise(onLoop, timeout: .seconds(10)) }
        for _ in 0..<chains { _ = chainRan.wait(timeout: .now() + .seconds(10)) }
        say(
            "delivered core=\(describe(core)) loop=\(describe(onLoop))",
            "chain-core=\(chainState("chain-core")) chain-loop=\(chainState("chain-loop"))"
        )
    default:
        say("unknown step", step)
        exit(2)
    }
}
say(
    "end core=\(describe(core)) loop=\(describe(onLoop))",
    "chain-core=\(chainState("chain-core")) chain-loop=\(chainState("chain-loop"))",
    "action=\(hasDefaultAction() ? "default" : "handler")"
)
exit(0)
