import Dispatch
import Glibc
import PromiseUV
import Synchronization

/// What ran on the main queue or the main actor, in order, while `UVLoop.run()` drove the loop
/// on the main thread; each entry checks that it ran on the loop's thread, the main thread.
@MainActor final class MainLog {
    let loop: UVLoop
    let mainThread = pthread_self()
    private(set) var entries: [String] = []
    private(set) var wrongThread = 0

    init(loop: UVLoop) { self.loop = loop }

    func add(_ entry: String) {
        if pthread_self() != mainThread || !loop.isOnLoopThread { wrongThread += 1 }
        entries.append(entry)
    }
}

/// A `@MainActor` function, called from a task that runs elsewhere.
@MainActor func addFromMainActor(_ log: MainLog, _ entry: String) {
    log.add(entry)
}

/// The body of the top-level `Task {}` of the `main-queue` mode: a file watch iterated with
/// `for try await`, then the main actor reached from a detached task and the main queue from
/// another thread. Ends by settling `done`, which keeps the loop running until then.
@MainActor func watchThenHop(_ log: MainLog, directory: String, done: PromiseResolver<Void>) async {
    log.add("task")
    do {
        var changes = log.loop.changes(of: directory).makeAsyncIterator()
        // Made after the watch: the file appears once the watch has started.
        _ = log.loop.after(.milliseconds(20)).then(on: log.loop) {
            let fd = open(directory + "/created", O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
            if fd >= 0 { close(fd) }
        }
        if let change = try await changes.next() { log.add("change \(change.name ?? "?")") }
    } catch {
        log.add("watch failed: \(error)")
    }
    await Task.detached { await addFromMainActor(log, "main actor from a detached task") }.value
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        DispatchQueue.global().async {
            DispatchQueue.main.async {
                MainActor.assumeIsolated { log.add("main queue from another thread") }
                continuation.resume()
            }
        }
    }
    done.fulfill(())
}

/// Runs the loop on the main thread until the scenario is done, then prints what ran and
/// returns the exit status: 0 when everything ran, in order, on the main thread.
@MainActor func runMainQueueScenario(_ log: MainLog, finished: Promise<Void>, expected: [String]) throws -> Int32 {
    log.loop.keepAlive(until: finished)
    log.loop.run()
    try awaitPromise(log.loop.shutdown())
    print("entries=\(log.entries) wrong=\(log.wrongThread)")
    return log.entries == expected && log.wrongThread == 0 ? 0 : 1
}

/// A loop on a thread of its own never runs the main queue: main-queue work waits for whoever
/// runs the main queue (here `dispatchMain()`, after the loop was shut down).
func threadLoopLeavesTheMainQueue() throws -> Never {
    try queueWhileALoopRunsOnItsOwnThread()
    // Everything the loop held is released by now: `dispatchMain()` ends the main thread, and
    // with it the stack that LeakSanitizer would find the rest through.
    dispatchMain()
}

/// Runs a loop on the main thread (so it has its main-queue handle), then on a thread of its
/// own while a main-queue job waits, then shuts it down.
func queueWhileALoopRunsOnItsOwnThread() throws {
    let loop = try UVLoop()
    let ranOnMain = loop.after(.milliseconds(1))
    loop.run()
    try awaitPromise(ranOnMain)
    try loop.startThread(named: "not-main")
    let queued = DispatchTime.now()
    DispatchQueue.main.async {
        // Reached only through dispatchMain(): the loop thread never ran it.
        let waited = (DispatchTime.now().uptimeNanoseconds - queued.uptimeNanoseconds) / 1_000_000
        print("ran through dispatchMain after \(waited) ms")
        exit(waited >= 200 ? 0 : 1)
    }
    // The loop runs timers on its own thread meanwhile.
    for _ in 0..<10 { try awaitPromise(loop.after(.milliseconds(20))) }
    try awaitPromise(loop.shutdown())
}

/// The indices main-queue jobs saw, in the order they ran.
@MainActor final class Seen {
    var indices: [Int] = []
}

/// 100 000 main-queue jobs queued before `run()` and one that shuts the loop down while the
/// main queue is being run: every job runs once, in order, and `run()` returns although a
/// promise it was asked to wait for is still pending.
@MainActor func manyJobsThenShutdownInside() throws -> Int32 {
    let loop = try UVLoop()
    let count = 100_000
    let seen = Seen()
    seen.indices.reserveCapacity(count)
    for index in 0..<count {
        DispatchQueue.main.async { MainActor.assumeIsolated { seen.indices.append(index) } }
    }
    let (held, heldResolver) = Promise<Void>.pending()
    loop.keepAlive(until: held)
    let shutdown = Mutex<Promise<Void>?>(nil)
    DispatchQueue.main.async { shutdown.withLock { $0 = loop.shutdown() } }
    loop.run()
    let closed = shutdown.withLock { $0 }
    let result = closed.map { (try? awaitPromise($0)) != nil } ?? false
    heldResolver.fulfill(())  // only now: run() returned while it was pending
    let inOrder = seen.indices == Array(0..<count)
    print("ran=\(seen.indices.count) inOrder=\(inOrder) shutDown=\(result)")
    return inOrder && result ? 0 : 1
}

/// A loop that ran on the main thread (so it has its main-queue handle) and is then dropped
/// without `shutdown()`: the handle closes with the loop, which closes cleanly (no report).
func droppedAfterAMainThreadRun() throws -> Int32 {
    let reports = Mutex<[String]>([])
    Promises.diagnosticsHandler = { diagnostic in reports.withLock { $0.append("\(diagnostic)") } }
    do {
        let loop = try UVLoop()
        let timer = loop.after(.milliseconds(1))
        loop.run()
        try awaitPromise(timer)
    }
    let seen = reports.withLock { $0 }
    print("reports=\(seen)")
    return seen.isEmpty ? 0 : 1
}
