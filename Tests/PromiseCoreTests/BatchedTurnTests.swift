import Dispatch
import Synchronization
import Testing

@testable import PromiseCore

/// A context that counts the jobs it is handed and runs them on a serial queue, at once on the
/// submitting thread, or not at all (it refuses them). `Tag` makes distinct types of it: one
/// registered as serial, one not registered.
private final class JobCountingContext<Tag>: ExecutionContext {
    enum Mode { case queue, immediate, refusing }

    let mode: Mode
    let queue = DispatchQueue(label: "job-counting")
    let handed = Atomic<Int>(0)

    init(_ mode: Mode = .queue) {
        self.mode = mode
    }

    func submit(_ job: ContextJob) {
        handed.add(1, ordering: .relaxed)
        switch mode {
        case .queue: queue.async { job.run() }
        case .immediate: job.run()
        case .refusing: job.refuse()
        }
    }

    func execute(_ work: @escaping @Sendable () -> Void) {
        submit(ContextJob(contextID: executionContextID, owner: nil, work: work))
    }

    var executionContextID: ObjectIdentifier? { ObjectIdentifier(self) }
}

private enum SerialTag {}
private enum UnknownTag {}
private typealias SerialContext = JobCountingContext<SerialTag>
private typealias UnknownContext = JobCountingContext<UnknownTag>

/// Appends to a list from callbacks on any thread.
private final class Log: Sendable {
    private let entries = Lock<[Int]>([])
    func append(_ value: Int) { entries.withLock { $0.append(value) } }
    var all: [Int] { entries.withLock { $0 } }
}

/// An adapter's pass that settles many promises at once hands their callbacks to each serial
/// context in one job (`AdapterSupport.runBatchedTurn`), in order, when the pass ends or before
/// it blocks in a wait.
@Suite struct BatchedTurnTests {
    init() {
        registerClassContextType(SerialContext.self, serial: true)
    }

    /// Resolves `count` pending promises in one batched turn, each with a callback on
    /// `context` that logs its index; returns the derived promises.
    private func settleInOneBatchedTurn(
        _ count: Int, on context: any ExecutionContext, log: Log
    ) -> [Promise<Int>] {
        let pending = (0..<count).map { _ in Promise<Int>.pending() }
        let sources = pending.map(\.promise)
        let derived = sources.enumerated().map { index, source in
            source.then(on: context) { value in
                log.append(index)
                return value
            }
        }
        // A queue context waits until the turn is over, so that its first job cannot run dry
        // (and close its carrier) before the last callback joined it.
        let counting = context as? SerialContext
        counting?.queue.suspend()
        AdapterSupport.runBatchedTurn(nil) {
            for (index, source) in pending.enumerated() { source.resolver.fulfill(index) }
        }
        counting?.queue.resume()
        return derived
    }

    /// `count` pending promises, each with a callback on `context` that logs its value; returns
    /// them and the derived promises.
    private func loggedCallbacks(
        _ count: Int, on context: any ExecutionContext, log: Log
    ) -> (sources: [(promise: Promise<Int>, resolver: PromiseResolver<Int>)], derived: [Promise<Int>]) {
        let sources = (0..<count).map { _ in Promise<Int>.pending() }
        let derived = sources.map { source in
            source.promise.then(on: context) { value in
                log.append(value)
                return value
            }
        }
        return (sources, derived)
    }

    /// ``settleInOneBatchedTurn(_:on:log:)``, then expects every callback to have run, in the
    /// order its promise was settled.
    private func expectDeliveredInOrder(_ count: Int, on context: any ExecutionContext) async throws {
        let log = Log()
        let derived = settleInOneBatchedTurn(count, on: context, log: log)
        let values = try await all(derived).get()
        #expect(values == Array(0..<count))
        #expect(log.all == Array(0..<count))
    }

    @Test func callbacksForASerialContextShareOneJobInOrder() async throws {
        let context = SerialContext()
        try await expectDeliveredInOrder(50, on: context)
        #expect(context.handed.load(ordering: .relaxed) == 1)
    }

    @Test func anUnbatchedTurnHandsOverOneJobPerCallback() async throws {
        let context = SerialContext()
        let sources = (0..<20).map { _ in Promise<Int>.pending() }
        let derived = sources.map { $0.promise.then(on: context) { $0 } }
        AdapterSupport.runTurn(nil) {
            for (index, source) in sources.enumerated() { source.resolver.fulfill(index) }
        }
        _ = try await all(derived).get()
        #expect(context.handed.load(ordering: .relaxed) == 20)
    }

    @Test func aContextNotKnownToBeSerialGetsOneJobPerCallback() async throws {
        let context = UnknownContext()
        let log = Log()
        let derived = settleInOneBatchedTurn(20, on: context, log: log)
        let values = try await all(derived).get()
        #expect(values == Array(0..<20))
        #expect(context.handed.load(ordering: .relaxed) == 20)
    }

    @Test func theDefaultQueueIsKnownToBeSerial() async throws {
        try await expectDeliveredInOrder(30, on: Promises.defaultQueue)
    }

    @Test func callbacksAreHandedOverWhenTheTurnEnds() async throws {
        // The context runs each job at once, on the submitting thread: a carrier handed over
        // at the first hop would run that one callback inside the turn.
        let context = SerialContext(.immediate)
        let log = Log()
        let (sources, derived) = loggedCallbacks(5, on: context, log: log)
        let insideTheTurn = Lock<(handed: Int, ran: [Int])?>(nil)
        AdapterSupport.runBatchedTurn(nil) {
            for (index, source) in sources.enumerated() { source.promise.resolveFromLibrary(.success(index)) }
            insideTheTurn.withLock { $0 = (context.handed.load(ordering: .relaxed), log.all) }
        }
        let seen = try #require(insideTheTurn.withLock { $0 })
        #expect(seen.handed == 0)
        #expect(seen.ran.isEmpty)
        #expect(context.handed.load(ordering: .relaxed) == 1)
        #expect(try await all(derived).get() == Array(0..<5))
        #expect(log.all == Array(0..<5))
        withExtendedLifetime(sources) {}
    }

    @Test func aCarrierThatRanDryIsReplacedByANewOne() async throws {
        // A wait inside the turn hands the carrier over; the context runs it at once, it runs
        // dry and closes, and the turn's later callbacks go in a carrier of their own.
        let context = SerialContext(.immediate)
        let log = Log()
        let (sources, derived) = loggedCallbacks(5, on: context, log: log)
        let waited = Lock<Result<Int, any Error>?>(nil)
        AdapterSupport.runBatchedTurn(nil) {
            sources[0].promise.resolveFromLibrary(.success(0))
            let result = Result { try awaitPromise(derived[0], timeout: .seconds(10)) }
            waited.withLock { $0 = result }
            for index in 1..<5 { sources[index].promise.resolveFromLibrary(.success(index)) }
        }
        #expect(try waited.withLock { $0 }?.get() == 0)
        #expect(context.handed.load(ordering: .relaxed) == 2)
        #expect(try await all(derived).get() == Array(0..<5))
        #expect(log.all == Array(0..<5))
        withExtendedLifetime(sources) {}
    }

    @Test func aRefusedCarrierRejectsEveryCallbackItCarried() async throws {
        let context = SerialContext(.refusing)
        let log = Log()
        let derived = settleInOneBatchedTurn(10, on: context, log: log)
        for promise in derived {
            let error = await #expect(throws: PromiseError.self) { try await promise.get() }
            #expect(error?.code == .contextInvalidated)
        }
        #expect(log.all.isEmpty)
    }

    @Test func workSubmittedInTheTurnKeepsItsPlaceAmongTheCallbacks() async throws {
        let context = SerialContext()
        let log = Log()
        let (first, firstResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(firstResolver) {} }
        let (second, secondResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(secondResolver) {} }
        let a = first.then(on: context) { value in
            log.append(1); return value
        }
        let b = second.then(on: context) { value in
            log.append(3); return value
        }
        context.queue.suspend()
        AdapterSupport.runBatchedTurn(nil) {
            // As an adapter settles its promises: delivered at once, not at the turn's end.
            first.resolveFromLibrary(.success(1))
            AdapterSupport.submit(context) { log.append(2) }
            second.resolveFromLibrary(.success(3))
        }
        context.queue.resume()
        _ = try await all([a, b]).get()
        #expect(log.all == [1, 2, 3])
        #expect(context.handed.load(ordering: .relaxed) == 1)
    }

    @Test func aWaitInsideTheTurnForACarriedCallbackDoesNotHang() async throws {
        // The wait hands the held carrier over: the callback that joined it runs while the turn
        // still blocks.
        let context = SerialContext()
        let (source, sourceResolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(sourceResolver) {} }
        let derived = source.then(on: context) { $0 * 2 }
        let waited = Lock<Result<Int, any Error>?>(nil)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                AdapterSupport.runBatchedTurn(nil) {
                    source.resolveFromLibrary(.success(21))
                    let result = Result { try awaitPromise(derived, timeout: .seconds(10)) }
                    waited.withLock { $0 = result }
                }
                done.resume()
            }
        }
        let result = try #require(waited.withLock { $0 })
        #expect(try result.get() == 42)
    }

    @Test func nestedBatchedTurnsShareTheOuterOnesCarriers() async throws {
        let context = SerialContext()
        let sources = (0..<6).map { _ in Promise<Int>.pending() }
        let derived = sources.map { $0.promise.then(on: context) { $0 } }
        context.queue.suspend()
        AdapterSupport.runBatchedTurn(nil) {
            sources[0].resolver.fulfill(0)
            AdapterSupport.runBatchedTurn(nil) {
                for index in 1..<5 { sources[index].resolver.fulfill(index) }
            }
            sources[5].resolver.fulfill(5)
        }
        context.queue.resume()
        let values = try await all(derived).get()
        #expect(values == Array(0..<6))
        #expect(context.handed.load(ordering: .relaxed) == 1)
    }
}
