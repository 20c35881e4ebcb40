import Foundation
import PromiseCore
import PromiseTestSupport
import Synchronization
import Testing

@testable import PromiseUV

/// A `UVLoop` deallocated without `shutdown()`, whatever is chained on it: every promise it
/// owed settles, one report says what was lost, and the loop is freed. For a loop no thread
/// runs, the thread that drops it closes it; for a loop with a thread of its own, that thread
/// does.
@Suite struct DroppedLoopTests {
    /// What is in flight on the loop when it is dropped.
    enum Shape: String, CaseIterable, CustomTestStringConvertible, Sendable {
        /// A pending timer.
        case timer
        /// A callback bound to the loop itself, chained on a pending timer: the callback's
        /// context must not keep the loop alive.
        case callbackOnTheLoop
        /// A repeating timer (`every`) with a body.
        case every
        /// A file watch.
        case watch
        /// A recursive file watch of a directory with subdirectories, one handle each.
        case recursiveWatch
        /// A running child process.
        case child
        /// A running child whose standard input holds a write it does not read.
        case childWithInput
        /// Another thread blocked in `awaitPromise` on the loop's timer: for a loop no thread
        /// runs, that thread is the one running the loop when it is dropped.
        case blockingWaiter
        /// The same, with pool work running: the shutdown waits for the work after the waiting
        /// thread's own promise has settled, so that thread runs the loop on to the close.
        case blockingWaiterAndRunningPoolWork

        var testDescription: String { rawValue }

        /// What the report says was lost.
        var loss: String {
            switch self {
            case .timer, .callbackOnTheLoop, .every, .blockingWaiter, .blockingWaiterAndRunningPoolWork:
                "1 pending timer was rejected with loopClosed"
            case .watch, .recursiveWatch: "1 file watch was rejected with loopClosed"
            case .child, .childWithInput: "1 running child process (killed) was rejected with loopClosed"
            }
        }
    }

    /// A promise the loop owed, seen through what the test checks.
    struct Owed: Sendable {
        let what: String
        /// Whether it is fulfilled (pool work already running delivers its result); otherwise
        /// it is rejected with `loopClosed` or, for a callback the closed loop refused,
        /// `contextInvalidated`.
        let fulfils: Bool
        let isPending: @Sendable () -> Bool
        let error: @Sendable () -> (any Error)?

        init<T>(_ what: String, _ promise: Promise<T>, fulfils: Bool = false) {
            self.what = what
            self.fulfils = fulfils
            isPending = { promise.isPending }
            error = { promise.error }
        }
    }

    /// What the test does once the loop is gone (lets running pool work finish).
    typealias AfterDrop = @Sendable () -> Void

    /// Starts `shape`'s work on `loop` and returns what the loop owes for it.
    static func start(_ shape: Shape, on loop: UVLoop, directory: String) throws -> ([Owed], AfterDrop) {
        switch shape {
        case .blockingWaiterAndRunningPoolWork:
            let owed = try start(.blockingWaiter, on: loop, directory: directory).0
            let started = DispatchSemaphore(value: 0)
            let finish = DispatchSemaphore(value: 0)
            let work = loop.work { () -> Int in
                started.signal()
                finish.wait()
                return 7
            }
            guard started.wait(timeout: .now() + 60) == .success else { throw TestFailure("the pool work never started") }
            return (owed + [Owed("the running pool work", work, fulfils: true)], { finish.signal() })
        default:
            return (startOne(shape, on: loop, directory: directory), {})
        }
    }

    private static func startOne(_ shape: Shape, on loop: UVLoop, directory: String) -> [Owed] {
        switch shape {
        case .timer:
            return [Owed("the timer", loop.after(.seconds(3_600)))]
        case .callbackOnTheLoop:
            let timer = loop.after(.seconds(3_600))
            let chained = timer.then(on: loop) { () -> Int in 1 }
            return [Owed("the timer", timer), Owed("the callback's promise", chained)]
        case .every:
            loop.every(.seconds(3_600)) { _ in }
            return []
        case .watch:
            return [Owed("the watch", loop.nextChange(of: directory))]
        case .recursiveWatch:
            for below in ["a", "a/b", "c"] { mkdir(directory + "/" + below, 0o755) }
            return [Owed("the recursive watch", loop.nextChange(of: directory, recursive: true))]
        case .child:
            return [Owed("the child", loop.spawn(UVCommand("sleep", arguments: ["3600"])))]
        case .childWithInput:
            // The handles go with this function: only the promises are kept.
            let child = loop.start(UVCommand("sleep", arguments: ["3600"], standardInput: .writer))
            let write = child.standardInput!.write([UInt8](repeating: 0, count: 8 << 20))
            return [Owed("the child", child.result), Owed("the write to its standard input", write)]
        case .blockingWaiter:
            let timer = loop.after(.seconds(3_600))
            let (waited, waitedResolver) = Promise<Void>.pending()
            Thread.detachNewThread {
                do {
                    try awaitPromise(timer)
                    waitedResolver.fulfill(())
                } catch {
                    waitedResolver.reject(error)
                }
            }
            return [Owed("the timer", timer), Owed("the blocked thread's wait", waited)]
        case .blockingWaiterAndRunningPoolWork:
            preconditionFailure("started by start(_:on:directory:)")
        }
    }

    static func drivenByABlockingWait(_ loop: UVLoop) -> Bool {
        loop.core.remote.withLock { state in
            if case .blockingWait = state.driver.driver { return true }
            return false
        }
    }

    /// Whether libuv's process-wide pool runs, started from a thread of its own if no test had
    /// started it. libuv starts the pool at the first `uv_queue_work`, and its threads take the
    /// name of the thread that made that call: a case's loop thread must not be the one, or its
    /// name would outlive the loop in the pool's threads.
    static let poolRuns: Bool = {
        guard let loop = try? UVLoop(), (try? loop.startThread(named: "uv-pool-start")) != nil else { return false }
        defer { _ = try? awaitPromise(loop.shutdown()) }
        return (try? awaitPromise(loop.work { 1 })) == 1
    }()

    @Test(arguments: Shape.allCases, [false, true])
    func aDroppedLoopSettlesWhatItOwedReportsTheLossAndIsFreed(_ shape: Shape, ownThread: Bool) async throws {
        NotShutDownRecorder.install
        let directory = try WatchDirectory()
        defer { directory.cleanUp() }
        // Within Linux's 15 bytes, so the thread's name in /proc is all of it.
        let name = "drop" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        // Off the cooperative pool: for a loop no thread runs, the deallocating thread closes
        // it before the closure returns (killing and reaping a child, for one).
        let (owed, afterDrop, marker, weakCore) = try await offCooperativePool { () throws -> ([Owed], AfterDrop, String, WeakCore) in
            guard Self.poolRuns else { throw TestFailure("libuv's pool did not run a job") }
            let loop = try UVLoop()
            let weakCore = WeakCore(loop.core)
            let marker: String
            if ownThread {
                try loop.startThread(named: name)
                marker = "thread '\(name)'"
            } else {
                marker = loop.core.identity
            }
            let (owed, afterDrop) = try Self.start(shape, on: loop, directory: directory.path)
            if [.blockingWaiter, .blockingWaiterAndRunningPoolWork].contains(shape), !ownThread {
                // Drop the loop only once the blocked thread is the one running it.
                let deadline = ContinuousClock.now + .seconds(60)
                while !Self.drivenByABlockingWait(loop), ContinuousClock.now < deadline { usleep(1_000) }
            }
            return (owed, afterDrop, marker, weakCore)
        }
        afterDrop()
        for promise in owed {
            let settled = try await eventually(.seconds(60)) { !promise.isPending() }
            #expect(settled, "\(shape), own thread \(ownThread): \(promise.what) still pending")
            guard settled else { continue }
            let error = promise.error()
            if promise.fulfils {
                #expect(error == nil, "\(shape): \(promise.what) failed with \(String(describing: error))")
                continue
            }
            let code = (error as? UVError)?.code
            let invalidated = (error as? PromiseError)?.code == .contextInvalidated
            #expect(code == .loopClosed || invalidated, "\(shape): \(promise.what) settled with \(String(describing: error))")
        }
        #expect(try await eventually(.seconds(60)) { !NotShutDownRecorder.reports(mentioning: marker).isEmpty }, "\(shape): no report")
        let reports = NotShutDownRecorder.reports(mentioning: marker)
        if ownThread {
            // Exactly one report: the thread's name is this case's own.
            #expect(reports.count == 1, "\(shape): \(reports)")
            #expect(reports.allSatisfy { $0.contains(shape.loss) }, "\(shape): \(reports)")
        } else {
            // A loop is named by its address, which a loop freed by another case may have had.
            #expect(reports.contains { $0.contains(shape.loss) }, "\(shape): \(reports)")
        }
        #expect(try await eventually(.seconds(60)) { weakCore.isGone }, "\(shape), own thread \(ownThread): the loop was never freed")
        if ownThread {
            #expect(try await eventually(.seconds(60)) { !threadNames().contains(name) }, "\(shape): thread \(name) still runs")
        }
    }
}

/// A weak reference to a loop's core, to see it freed.
final class WeakCore: Sendable {
    private let reference: Lock<Weak>
    private struct Weak { weak var core: LoopCore? }

    init(_ core: LoopCore) { reference = Lock(Weak(core: core)) }

    var isGone: Bool { reference.withLock { $0.core == nil } }
}
