import Dispatch
@_spi(ContextContract) import PromiseCore
import Synchronization
import PromiseTestSupport
import Testing

/// A context that records what `get()` asks of it. `pollLimit` is what it answers to
/// `pollLimitBeforeSuspending`; `fulfilWhenAsked` is settled from another thread when the
/// task first asks anything (work finishing on the context's own thread), and `runHere` is
/// settled on the waiting task when it asks the context to run the work.
private final class RecordingRunner: WaitingThreadRunner {
    struct Asked {
        var pollLimit = 0
        var runOnWaitingThread = 0
    }

    let pollLimit: Duration?
    let fulfilWhenAsked: Promise<Int>?
    let runHere: Promise<Int>?
    let asked = Lock(Asked())

    init(pollLimit: Duration?, fulfilWhenAsked: Promise<Int>? = nil, runHere: Promise<Int>? = nil) {
        self.pollLimit = pollLimit
        self.fulfilWhenAsked = fulfilWhenAsked
        self.runHere = runHere
    }

    var contextName: String { "a recording runner" }

    func adviseBlockingWait() -> BlockingWaitAdvice { .block }

    func pollLimitBeforeSuspending(settling promise: ObjectIdentifier) -> Duration? {
        asked.withLock { $0.pollLimit += 1 }
        fulfilOnOtherThread()
        return pollLimit
    }

    private func fulfilOnOtherThread() {
        guard let fulfilWhenAsked, fulfilWhenAsked.isPending else { return }
        // A queue of its own gets a thread even while a busy test run occupies the pool's.
        DispatchQueue(label: "recording-runner").async { fulfilWhenAsked.fulfilFromLibrary(7) }
    }

    func runOnWaitingThread(settling promise: ObjectIdentifier, blocking: Bool) -> WaitingThreadHelp {
        asked.withLock { $0.runOnWaitingThread += 1 }
        guard let runHere else {
            fulfilOnOtherThread()
            return .declined
        }
        runHere.fulfilFromLibrary(8)
        return .ran
    }
}

extension Promise where Value == Int {
    fileprivate func fulfilFromLibrary(_ value: Int) { resolveFromLibrary(.success(value)) }
}

/// Registers `runner` as the context of a new pending promise for the duration of `body`.
private func withPromise<R>(
    of runner: (Promise<Int>) -> RecordingRunner, _ body: (Promise<Int>, RecordingRunner) async throws -> R
) async throws -> R {
    let token = ContextToken()
    let promise = Promise<Int>.pending(resolvedOn: ObjectIdentifier(token))
    let made = runner(promise)
    ContextRegistry.register(made, for: ObjectIdentifier(token))
    defer { ContextRegistry.unregister(ObjectIdentifier(token)) }
    return try await body(promise, made)
}

/// An identity for a context that exists only as a registry entry.
private final class ContextToken: Sendable {}

@Suite struct WaitingThreadRunnerTests {
    @Test func aResultThatArrivesWhileTheTaskPollsNeedsNoOtherHelp() async throws {
        try await withPromise(of: { RecordingRunner(pollLimit: .seconds(30), fulfilWhenAsked: $0) }) { promise, runner in
            let value = try await promise.get()
            #expect(value == 7)
            let asked = runner.asked.withLock { $0 }
            #expect(asked.pollLimit == 1)
            // Polled before the cancellation handler was installed, and the result came:
            // the context was not asked to run anything.
            #expect(asked.runOnWaitingThread == 0)
        }
    }

    @Test func aContextThatMayRunTheWorkHereIsAskedAfterThePollIsDeclined() async throws {
        try await withPromise(of: { RecordingRunner(pollLimit: nil, runHere: $0) }) { promise, runner in
            let value = try await promise.get()
            #expect(value == 8)
            let asked = runner.asked.withLock { $0 }
            #expect(asked.pollLimit == 1)
            #expect(asked.runOnWaitingThread == 1)
        }
    }

    @Test func aCancelledTaskDoesNotPollAndThrowsAtOnce() async throws {
        try await withPromise(of: { _ in RecordingRunner(pollLimit: .seconds(20)) }) { promise, runner in
            // The task times its own get(): how soon a busy test run schedules it is not
            // what is measured.
            let task = Task { () -> (Result<Int, any Error>, Duration) in
                while !Task.isCancelled { await Task.yield() }
                let clock = ContinuousClock()
                let started = clock.now
                let result: Result<Int, any Error>
                do {
                    result = .success(try await promise.get())
                } catch {
                    result = .failure(error)
                }
                return (result, clock.now - started)
            }
            task.cancel()
            let (result, elapsed) = await task.value
            #expect(throws: CancellationError.self) { try result.get() }
            // A poll of 20 s would have held the task that long.
            expectTimeLimit(elapsed, under: .seconds(10), "the cancelled task's wait (a poll of 20 s would have held it that long)")
            let asked = runner.asked.withLock { $0 }
            #expect(asked.pollLimit == 0)
        }
    }
}
