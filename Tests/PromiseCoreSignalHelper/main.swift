// `Promises.nextSignal` in a program that depends on PromiseSignals alone, written as top-level
// code in the Swift 6 language mode (where top-level code is isolated to the main actor, and a
// closure it hands to a Dispatch source without `@Sendable` traps when run off the main thread).
// Spawned by PromiseIntegrationTests' SignalTests, since signals belong to the whole process.
//
//   promise-core-signal-helper self [--blocked]   watches SIGINT and SIGTERM, sends itself
//                                                 SIGTERM: prints "signal 15"
//   promise-core-signal-helper wait PIDFILE [--blocked]
//                                                 watches, writes its pid to PIDFILE, prints
//                                                 "ready" and waits in dispatchMain() (with
//                                                 --blocked: in awaitPromise) for a signal from
//                                                 another process: prints "signal N"
//   promise-core-signal-helper cancel             starts a watch, cancels it, sends itself
//                                                 SIGTERM: dies of it
//   promise-core-signal-helper twice              the watch's inline `then` callback sends
//                                                 SIGTERM again: prints "signal 15", then dies
//                                                 of it
//   promise-core-signal-helper again              watches SIGTERM twice in a row, sending it
//                                                 each time: prints "signal 15" twice
//   promise-core-signal-helper overlap            two watches of SIGTERM and one of SIGINT;
//                                                 cancels one of SIGTERM and sends SIGTERM: the
//                                                 other is fulfilled; then cancels the SIGINT
//                                                 watch and sends SIGTERM again: dies of it
//   promise-core-signal-helper invalid            prints each rejected signal list, then sends
//                                                 itself SIGTERM: dies of it
//   promise-core-signal-helper example PIDFILE    CommonPatterns.md's "Stopping on Ctrl-C",
//                                                 as written there, around a backup that runs
//                                                 until cancelled
//
// Every mode exits 0 when it got to its end, and prints "survived" before that if it was meant
// to die of a signal.
//
// First of all, SIGINT and SIGTERM get their default actions and are unblocked on the main
// thread, as in a program started from a shell: a child inherits the ignored signals and the
// blocked mask of the thread that spawned it (in the tests, one of Swift's pool threads, which
// block them all). With --blocked, the main thread blocks them instead, and so every thread
// does (Dispatch's threads block them anyway): the signal waits in the kernel's pending queue.
import Dispatch
import Glibc
import PromiseSignals

/// Writes one line to standard output at once (no buffering, so nothing is lost when the
/// process dies of a signal).
func say(_ items: Any...) {
    let line = items.map { "\($0)" }.joined(separator: " ") + "\n"
    _ = line.utf8CString.withUnsafeBytes { write(1, $0.baseAddress, $0.count - 1) }
}

/// Writes this process's pid to `path`, whole: written aside, then renamed.
func announce(pidFile path: String) {
    let partial = path + ".partial"
    let fd = open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard fd >= 0 else {
        say("cannot write", partial, "errno", errno)
        exit(3)
    }
    let text = "\(getpid())\n"
    _ = text.utf8CString.withUnsafeBytes { write(fd, $0.baseAddress, $0.count - 1) }
    close(fd)
    rename(partial, path)
}

/// The example's long job: runs until cancelled, and tells the test it is running.
func startBackup() -> Promise<Void> {
    let (backup, backupResolver) = Promise<Void>.pending()
    // The job keeps its resolver until it is cancelled.
    backup.onCancel { withExtendedLifetime(backupResolver) { print("backup stopped") } }
    announce(pidFile: CommandLine.arguments[2])
    return backup
}

let arguments = Array(CommandLine.arguments.dropFirst())
let blocked = arguments.contains("--blocked")
for signal in [SIGINT, SIGTERM] { Glibc.signal(signal, SIG_DFL) }
var mask = sigset_t()
sigemptyset(&mask)
sigaddset(&mask, SIGINT)
sigaddset(&mask, SIGTERM)
pthread_sigmask(blocked ? SIG_BLOCK : SIG_UNBLOCK, &mask, nil)

switch arguments.first {
case "self":
    let watch = Promises.nextSignal()
    kill(getpid(), SIGTERM)
    say("signal", try awaitPromise(watch, timeout: .seconds(10)))
case "wait":
    let watch = Promises.nextSignal()
    announce(pidFile: arguments[1])
    say("ready")
    if blocked {
        say("signal", try awaitPromise(watch, timeout: .seconds(20)))
    } else {
        watch.then { signal in
            say("signal", signal)
            exit(0)
        }
        dispatchMain()
    }
case "cancel":
    let watch = Promises.nextSignal()
    watch.cancel()
    kill(getpid(), SIGTERM)
    usleep(500_000)
    say("survived")
case "twice":
    // Inline: the callback runs inside `fulfill`, as early as any callback can. Its thread
    // unblocks SIGTERM, so the kernel delivers the signal there before `kill` returns.
    let watch = Promises.nextSignal().then(on: .inline) { signal in
        say("signal", signal)
        var term = sigset_t()
        sigemptyset(&term)
        sigaddset(&term, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &term, nil)
        kill(getpid(), SIGTERM)  // the watch is over: this one kills
    }
    kill(getpid(), SIGTERM)
    try awaitPromise(watch, timeout: .seconds(10))
    usleep(500_000)
    say("survived")
case "again":
    for _ in 1...2 {
        let watch = Promises.nextSignal([SIGTERM])
        kill(getpid(), SIGTERM)
        say("signal", try awaitPromise(watch, timeout: .seconds(10)))
    }
case "overlap":
    let first = Promises.nextSignal([SIGTERM])
    let second = Promises.nextSignal([SIGTERM])
    let interrupt = Promises.nextSignal([SIGINT])
    first.cancel()
    kill(getpid(), SIGTERM)  // `second` still watches it: caught
    say("second", try awaitPromise(second, timeout: .seconds(10)))
    say("interrupt watch", interrupt.isPending ? "pending" : "settled")
    interrupt.cancel()
    kill(getpid(), SIGTERM)  // nobody watches it any more: kills
    usleep(500_000)
    say("survived")
case "invalid":
    let lists: [[Int32]] = [[], [SIGKILL], [SIGSTOP], [0], [65], [SIGSEGV], [SIGTERM, 32]]
    for signals in lists {
        do {
            say("fulfilled", signals, try awaitPromise(Promises.nextSignal(signals), timeout: .seconds(1)))
        } catch let error as PromiseError {
            say("rejected \(signals): \(error.code): \(error.message)")
        }
    }
    kill(getpid(), SIGTERM)  // [SIGTERM, 32] was undone: kills
    usleep(500_000)
    say("survived")
case "example":
    let stop = Promises.nextSignal()  // from here on, Ctrl-C and SIGTERM only fulfil it
    let backup = startBackup()  // runs until it is done or cancelled
    stop.then { signal in
        print("signal \(signal): stopping the backup")
        backup.cancel()
    }
    _ = try? awaitPromise(backup)  // returns once the backup is done or stopped
    stop.cancel()  // ended without a signal: Ctrl-C kills again
default:
    say("unknown mode \(arguments)")
    exit(2)
}
