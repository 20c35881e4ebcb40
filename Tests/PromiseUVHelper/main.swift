// swift-format-ignore-file
// (the DocC region below is quoted by documentation line for line, layout included)
// A command-line program whose main thread is the loop and whose default context is the loop,
// spawned by PromiseUVTests (the process-wide default context stays out of the test process).
//
//   promiseuv-helper chain    all + retry + timeout + pool work, then exits when done
//   promiseuv-helper idle     nothing to do: run() must return at once
//   promiseuv-helper late-job a task on the loop resumes after shutdown: its job still runs
//                             with a message on standard error, and the program goes on
//   promiseuv-helper main-queue DIR
//                             main-queue work, a top-level Task and @MainActor calls run on
//                             the loop, in order, while run() drives it on the main thread
//   promiseuv-helper docc-main-actor DIR
//                             the article's main-queue example, run as written
//   promiseuv-helper main-queue-many-then-shutdown
//                             100 000 main-queue jobs run in order; one shuts the loop down
//   promiseuv-helper main-queue-dropped-loop
//                             a loop dropped after a main-thread run closes without a report
//   promiseuv-helper pid-reuse
//                             in a pid namespace of its own: a signal through the handle of
//                             a reaped child never reaches the process given its pid next
//   promiseuv-helper thread-loop-leaves-main-queue
//                             a loop on its own thread never runs main-queue work, even after
//                             it ran on the main thread; dispatchMain() still does afterwards
//
// Prints one line of results; exits 0 when every callback ran on the main thread.
import Dispatch
import Glibc
import PromiseUV
import Synchronization

struct Flaky: Error {}

/// Counts callbacks that ran anywhere but the main thread, which runs the loop.
final class ThreadCheck: Sendable {
    let mainThread = pthread_self()
    let wrong = Atomic<Int>(0)
    let checked = Atomic<Int>(0)
    let loop: UVLoop
    init(loop: UVLoop) { self.loop = loop }
    func check() {
        checked.add(1, ordering: .relaxed)
        if pthread_self() != mainThread || !loop.isOnLoopThread { wrong.add(1, ordering: .relaxed) }
    }
}

func milliseconds() -> Int {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return now.tv_sec * 1000 + now.tv_nsec / 1_000_000
}

func chain() throws -> Int32 {
    let loop = try UVLoop()
    Promises.defaultContext = loop
    let threads = ThreadCheck(loop: loop)
    let attempts = Atomic<Int>(0)
    let start = milliseconds()

    let timer = loop.after(.milliseconds(5)).then {
        threads.check(); return 1
    }
    let flaky = retry(attempts: 3, delay: .milliseconds(2)) { () -> Promise<Int> in
        threads.check()
        return attempts.add(1, ordering: .relaxed).newValue < 3 ? Promise<Int>(Flaky()) : Promise(2)
    }
    let pooled = loop.work { 3 }.then { value in
        threads.check(); return value
    }
    let immediate = Promise<Int> {
        threads.check(); return 4
    }
    let everything = all([timer, flaky, pooled, immediate])
        .timeout(.seconds(5))
        .then { values in
            threads.check(); return values
        }
    let slow = loop.after(.seconds(30))
        .timeout(.milliseconds(20))
        .then { "finished" }
        .recover(policy: .allErrors) { error in
            threads.check(); return "\(error)"
        }

    loop.run()
    let elapsed = milliseconds() - start
    let values = everything.value ?? []
    let slowText = slow.value ?? "pending"
    try awaitPromise(loop.shutdown())
    print(
        "values=\(values) attempts=\(attempts.load(ordering: .relaxed)) slow=\(slowText) checked=\(threads.checked.load(ordering: .relaxed)) wrong=\(threads.wrong.load(ordering: .relaxed)) elapsed=\(elapsed)"
    )
    let ok = values == [1, 2, 3, 4] && threads.wrong.load(ordering: .relaxed) == 0 && elapsed < 5_000
    return ok ? 0 : 1
}

func idle() throws -> Int32 {
    let loop = try UVLoop()
    Promises.defaultContext = loop
    let start = milliseconds()
    loop.run()
    let elapsed = milliseconds() - start
    try awaitPromise(loop.shutdown())
    print("elapsed=\(elapsed)")
    return elapsed < 1_000 ? 0 : 1
}

func lateJob() throws -> Int32 {
    let loop = try UVLoop()
    try loop.startThread(named: "late-job")
    let (gate, gateResolver) = Promise<Int>.pending()
    let (started, startedResolver) = Promise<Void>.pending()
    let finished = Atomic<Bool>(false)
    Task(executorPreference: loop) {
        startedResolver.fulfill(())
        _ = try? await gate.get()  // resumes after the loop has closed
        finished.store(true, ordering: .relaxed)
    }
    try awaitPromise(started)
    try awaitPromise(loop.shutdown())
    gateResolver.fulfill(1)
    usleep(100_000)
    print("finished=\(finished.load(ordering: .relaxed))")
    return finished.load(ordering: .relaxed) ? 0 : 1
}

let mode = CommandLine.arguments.dropFirst().first ?? "chain"

// Main-queue and main-actor work while run() drives the loop on the main thread, queued the
// way a program's own main.swift does: the top-level Task inherits the main actor.
if mode == "main-queue", CommandLine.arguments.count == 3 {
    let log = MainLog(loop: try UVLoop())
    let (finished, done) = Promise<Void>.pending()
    DispatchQueue.main.async { MainActor.assumeIsolated { log.add("main queue 1") } }
    Task { await watchThenHop(log, directory: CommandLine.arguments[2], done: done) }
    DispatchQueue.main.async { MainActor.assumeIsolated { log.add("main queue 2") } }
    exit(
        try runMainQueueScenario(
            log, finished: finished,
            expected: [
                "main queue 1", "task", "main queue 2", "change created", "main actor from a detached task",
                "main queue from another thread",
            ]))
}
// The main-queue block of the "Running promises on a libuv loop" article, as top-level code.
if mode == "docc-main-actor", CommandLine.arguments.count == 3 {
    let logDirectory = CommandLine.arguments[2]
    // Files keep appearing until the program exits: the first change comes whenever the watch
    // has started.
    DispatchQueue.global().async {
        for index in 0... {
            let fd = open("\(logDirectory)/entry-\(index)", O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
            if fd >= 0 { close(fd) }
            usleep(20_000)
        }
    }
    // DocC: begin
    let loop = try UVLoop()
    DispatchQueue.main.async { print("main queue: on the loop") }
    Task {                                                // top-level code: the main actor
        for try await change in loop.changes(of: logDirectory) {
            print("first change:", change.name ?? "many entries")
            break                                         // ends the watch
        }
    }
    loop.run()                                            // returns once the watch has ended
    // DocC: end
    try awaitPromise(loop.shutdown())
    exit(0)
}
if mode == "pid-reuse" { pidReuseInANewNamespace() }
if mode == "pid-reuse-inside" {
    do { try pidReuseInside() } catch {
        print("error: \(error)")
        exit(2)
    }
}
if mode == "main-queue-many-then-shutdown" { exit(try manyJobsThenShutdownInside()) }
if mode == "main-queue-dropped-loop" { exit(try droppedAfterAMainThreadRun()) }
if mode == "thread-loop-leaves-main-queue" {
    try threadLoopLeavesTheMainQueue()
}

do {
    switch mode {
    case "idle": exit(try idle())
    case "late-job": exit(try lateJob())
    default: exit(try chain())
    }
} catch {
    print("error: \(error)")
    exit(2)
}
