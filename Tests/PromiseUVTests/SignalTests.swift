import Glibc
@testable import PromiseUV
import PromiseSignals
import PromiseTestSupport
import Testing

/// `UVLoop.nextSignal(_:)` with real signals sent to this process with `kill(2)`.
///
/// Serialized, and only SIGUSR1/SIGUSR2: a signal that arrives when no watch is installed
/// takes its default action, which for these two ends the test process.
@Suite(.serialized) struct SignalTests {
    /// Whether `signal`'s action is the default one (no handler installed).
    private func hasDefaultAction(_ signal: UVSignal) -> Bool {
        var action = sigaction()
        sigaction(signal.rawValue, nil, &action)
        return action.__sigaction_handler.sa_handler == nil  // SIG_DFL is 0
    }

    @Test func aSignalFulfilsThePromiseOnTheLoopThreadOnceThenTheDefaultActionIsBack() async throws {
        let loop = try startedLoop()
        #expect(hasDefaultAction(.user1))
        let watch = loop.nextSignal(.user1)
        let onLoop = watch.then(on: loop) { signal in (signal, loop.isOnLoopThread) }
        // Work from one thread runs in order: once this timer fired, the watch has started.
        try await loop.after(.zero).get()
        #expect(!hasDefaultAction(.user1))
        #expect(watch.isPending)
        kill(getpid(), SIGUSR1)
        let (signal, wasOnLoop) = try await onLoop.get()
        #expect(signal == .user1)
        #expect(wasOnLoop)
        // One-shot: the default action is restored as the signal is delivered.
        #expect(hasDefaultAction(.user1))
        try await loop.shutdown().get()
    }

    @Test func cancellingAWatchRestoresTheDefaultActionAndRejectsItsCallbacks() async throws {
        let loop = try startedLoop()
        let watch = loop.nextSignal(.user2)
        let chained = watch.then(on: loop) { _ in "ran" }
        try await loop.after(.zero).get()
        #expect(!hasDefaultAction(.user2))
        watch.cancel()
        await #expect(throws: CancellationError.self) { try await chained.get() }
        #expect(try await eventually { hasDefaultAction(.user2) })
        #expect(!SignalOwner.isWatched(SIGUSR2))
        try await loop.shutdown().get()
    }

    @Test func twoWatchesOfOneSignalBothFireFromOneDelivery() async throws {
        let loop = try startedLoop()
        let first = loop.nextSignal(.user1)
        let second = loop.nextSignal(.user1)
        try await loop.after(.zero).get()
        kill(getpid(), SIGUSR1)
        #expect(try await first.get() == .user1)
        #expect(try await second.get() == .user1)
        try await loop.shutdown().get()
    }

    @Test func aPendingWatchDoesNotKeepRunGoingAndShutdownRejectsIt() throws {
        let loop = try UVLoop()
        let watch = loop.nextSignal(.user2)
        let timer = loop.after(.milliseconds(5))
        // Returns once the timer fired, although the watch is still pending.
        loop.run()
        #expect(timer.isFulfilled)
        #expect(watch.isPending)
        #expect(!hasDefaultAction(.user2))
        loop.shutdown()
        #expect(watch.error.map { UVError.Code.loopClosed ~= $0 } == true)
        #expect(hasDefaultAction(.user2))
        // A closed loop refuses new watches at once.
        #expect(loop.nextSignal(.user1).error.map { UVError.Code.loopClosed ~= $0 } == true)
    }

    @Test func signalsThatCannotBeWatchedRejectWithLibuvsError() async throws {
        let loop = try startedLoop()
        for number in [SIGKILL, SIGSTOP, 0] {
            let watch = loop.nextSignal(UVSignal(rawValue: number))
            await #expect(throws: UVError.self) { try await watch.get() }
            #expect(watch.error.map { UVError.Code.invalidArgument ~= $0 } == true, "signal \(number): \(String(describing: watch.error))")
        }
        // The failed watches closed their handles: shutdown completes.
        try await loop.shutdown().get()
    }

    @Test func signalNamesAreTheConventionalOnes() {
        #expect(UVSignal.interrupt.rawValue == SIGINT)
        #expect(UVSignal.terminate.rawValue == SIGTERM)
        #expect(UVSignal.hangup.rawValue == SIGHUP)
        #expect(UVSignal.user1.rawValue == SIGUSR1)
        #expect(UVSignal.user2.rawValue == SIGUSR2)
        #expect(UVSignal.quit.rawValue == SIGQUIT)
        #expect(UVSignal.windowChanged.rawValue == SIGWINCH)
        #expect("\(UVSignal.interrupt)" == "SIGINT")
        #expect("\(UVSignal(rawValue: 40))" == "signal 40")
    }
}
