// The helper's second mode: child processes on two loops, in the order a script gives, beside
// the program's own SIGCHLD action and SIGCHLD watches, to check who owns SIGCHLD when.
//
//   promise-signal-owner-helper sigchld pidfd|signal STEP,STEP,...
//
// `pidfd` reaps children as this kernel lets the loops (through pidfds); `signal` as on a
// kernel without pidfds, through each loop's SIGCHLD watch.
//
// Steps:
//   handler   installs a SIGCHLD handler of the program's own (before any child)
//   ignore    sets SIGCHLD's action to SIG_IGN (before any child)
//   spawn-a   spawns `sleep 30` on loop A and waits until the spawn has run (spawn-b: loop B)
//   reap-a    cancels loop A's oldest running child and waits until it is reaped and closed
//   probe     a child on loop A that exits by itself (its status must be 3, seen by a callback
//             chained on loop A), a raw `posix_spawn` child reaped with `waitpid` (its status
//             must be 5, or -1 when SIGCHLD is ignored and the kernel reaped it), and a SIGCHLD
//             watch through `Promises.nextSignal` and `UVLoop.nextSignal` (both refused)
//
// SIGCHLD starts blocked in every thread (a parent's Dispatch worker thread passes that mask
// on), so exits are seen only because the loop thread unblocks it.
//
// After each step it prints "STEP action=ACTION children=N", where ACTION is "program" (the
// program's handler), "default", "ignore" or "libuv" (any other handler), and N is how many spawned
// children are not closed; "probe" adds "own=STATUS raw=STATUS core=refused|started
// loop=refused|started".
import Glibc
import PromiseSignals
import PromiseUV

/// The stand-in for a program's own SIGCHLD handler (a no-op: children wait to be reaped).
let programHandler: @convention(c) (Int32) -> Void = { _ in }

/// SIGCHLD's action in the script's words.
func childSignalAction() -> String {
    var action = sigaction()
    sigaction(SIGCHLD, nil, &action)
    let handler = action.__sigaction_handler.sa_handler.map { unsafeBitCast($0, to: Int.self) } ?? 0
    if handler == 0 { return "default" }
    if handler == 1 { return "ignore" }
    if handler == unsafeBitCast(programHandler, to: Int.self) { return "program" }
    return "libuv"
}

/// Waits (5 s at most) until `condition` holds.
func waitUntil(_ condition: () -> Bool) {
    for _ in 0..<5_000 where !condition() { usleep(1_000) }
}

/// The exit status of `/bin/sh -c "exit STATUS"` started with `posix_spawn` and reaped with
/// `waitpid` on its pid, or -1.
func rawChildStatus(_ status: Int32) -> Int32 {
    var pid: pid_t = 0
    let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sh"), strdup("-c"), strdup("exit \(status)"), nil]
    defer { for pointer in argv { free(pointer) } }
    guard posix_spawn(&pid, "/bin/sh", nil, nil, argv, environ) == 0 else { return -1 }
    var raw: Int32 = 0
    guard waitpid(pid, &raw, 0) == pid, raw & 0x7f == 0 else { return -1 }
    return (raw >> 8) & 0xff
}

func runChildSignalScript(reapingBySignal: Bool, _ steps: [String]) throws -> Never {
    if reapingBySignal { ChildReaping.use(.childSignal) }
    // As in a program started from a Dispatch worker thread: SIGCHLD has its default action
    // and is blocked, here and in the loop threads, which inherit the mask.
    signal(SIGCHLD, SIG_DFL)
    var mask = sigset_t()
    sigemptyset(&mask)
    sigaddset(&mask, SIGCHLD)
    pthread_sigmask(SIG_BLOCK, &mask, nil)
    let loops = ["a": try UVLoop(), "b": try UVLoop()]
    for (name, loop) in loops { try loop.startThread(named: "sigchld-\(name)") }
    var running: [String: [Promise<UVProcessResult>]] = ["a": [], "b": []]
    for step in steps {
        var extra = ""
        switch step {
        case "handler":
            var action = sigaction()
            action.__sigaction_handler.sa_handler = programHandler
            action.sa_flags = SA_RESTART
            sigaction(SIGCHLD, &action, nil)
        case "ignore":
            signal(SIGCHLD, SIG_IGN)
        case "spawn-a", "spawn-b":
            let name = String(step.suffix(1))
            let loop = loops[name]!
            running[name]!.append(loop.spawn(UVCommand("sleep", arguments: ["30"], terminationGrace: .zero)))
            // Work from one thread runs on the loop in order: once this timer fired, the spawn ran.
            try awaitPromise(loop.after(.zero), timeout: .seconds(10))
        case "reap-a", "reap-b":
            let name = String(step.suffix(1))
            let child = running[name]!.removeFirst()
            let expected = SignalOwner.childProcessCount - 1
            child.cancel()
            _ = try? awaitPromise(child, timeout: .seconds(10))
            extra = child.isCancelled ? "" : " child=\(child.isPending ? "pending" : "not-cancelled")"
            waitUntil { SignalOwner.childProcessCount == expected }
        case "probe":
            let before = SignalOwner.childProcessCount
            // Chained on the loop: the callback that reaps settles the spawn's promise, and its
            // callbacks run before the loop next waits (LoopCallbackTests' rule).
            let loop = loops["a"]!
            let own = try awaitPromise(loop.spawn(UVCommand("/bin/sh", arguments: ["-c", "exit 3"])).then(on: loop) { $0 }, timeout: .seconds(10))
            let ownStatus = own.exit == .exited(3) ? "3" : "\(own.exit)"
            waitUntil { SignalOwner.childProcessCount == before }
            let raw = rawChildStatus(5)
            let coreWatch = Promises.nextSignal([SIGCHLD])
            let loopWatch = loops["b"]!.nextSignal(UVSignal(rawValue: SIGCHLD))
            waitUntil { !coreWatch.isPending && !loopWatch.isPending }
            let core = (coreWatch.error as? PromiseError)?.code == .invalidArgument ? "refused" : "started"
            let onLoop = (loopWatch.error as? UVError)?.code == .invalidArgument ? "refused" : "started"
            coreWatch.cancel()
            loopWatch.cancel()
            extra = " own=\(ownStatus) raw=\(raw) core=\(core) loop=\(onLoop)"
        default:
            say("unknown step", step)
            exit(2)
        }
        say("\(step) action=\(childSignalAction()) children=\(SignalOwner.childProcessCount)\(extra)")
    }
    for (_, loop) in loops { _ = try? awaitPromise(loop.shutdown(), timeout: .seconds(10)) }
    say("end action=\(childSignalAction()) children=\(SignalOwner.childProcessCount)")
    exit(0)
}
