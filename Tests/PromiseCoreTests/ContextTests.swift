import Dispatch
import PromiseCore
import PromiseTesting
import Testing

@Suite(.serialized) struct ContextTests {
    @Test func callbacksRunOnTheirContextAndNeverInsideThen() throws {
        let tagged = TaggedQueue("tagged")
        let inside = Counter()
        let onQueue = Recorder<Bool>()
        let source = Promise(1)
        let step = source.then(on: tagged.queue) { value -> Int in
            onQueue.append(tagged.isCurrent)
            inside.increment()
            return value
        }
        #expect(inside.value == 0 || !Thread.isMainThreadShim)
        #expect(try awaitPromise(step) == 1)
        #expect(onQueue.events == [true])
    }

    @Test func theDefaultContextIsASerialQueueThatRunsWithoutTheMainThread() throws {
        let order = Recorder<Int>()
        let steps = (0..<50).map { index in Promise(index).then { order.append($0) } }
        _ = try awaitPromise(all(steps))
        #expect(order.events == Array(0..<50))
    }

    @Test func theDefaultContextCanBeSwitched() throws {
        let tagged = TaggedQueue("switched-default")
        let previous = Promises.defaultContext
        Promises.defaultContext = tagged.queue
        defer { Promises.defaultContext = previous }
        let ranThere = try awaitPromise(Promise(1).then { _ in tagged.isCurrent })
        #expect(ranThere)
    }

    /// A default context that is a struct is boxed once, when it is set, and every callback
    /// that names no context runs on it, chained ones in the turn that resolved them.
    @Test func aStructCanBeTheDefaultContext() throws {
        struct Wrapped: ExecutionContext {
            let tagged: TaggedQueue
            func execute(_ work: @escaping @Sendable () -> Void) { tagged.queue.async(execute: work) }
            func executeAfter(_ delay: Duration, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
                tagged.queue.executeAfter(delay, work)
            }
            var executionContextID: ObjectIdentifier? { ObjectIdentifier(tagged) }
        }
        let tagged = TaggedQueue("struct-default")
        let previous = Promises.defaultContext
        Promises.defaultContext = Wrapped(tagged: tagged)
        defer { Promises.defaultContext = previous }
        #expect(Promises.defaultContext is Wrapped)
        let places = try awaitPromise(Promise(1).then { _ in tagged.isCurrent }.then { [$0, tagged.isCurrent] })
        #expect(places == [true, true])
    }

    @Test func threeLinksOnOneSerialQueueShareOneTurn() throws {
        let context = ManualContext()
        let (head, headResolver) = Promise<Int>.pending()
        let tail = head.then(on: context) { $0 + 1 }.then(on: context) { $0 + 1 }.then(on: context) { $0 + 1 }
        headResolver.fulfill(0)
        #expect(context.pendingCount == 1)
        #expect(context.runNext())
        #expect(tail.value == 3)
        #expect(context.pendingCount == 0)
    }

    @Test func thenOnAResolvedPromiseStillTakesAHopOnTheCurrentContext() {
        let context = ManualContext()
        let order = Recorder<String>()
        let first = Promise(1).then(on: context) { _ -> Int in
            let inner = Promise(2).then(on: context) { value in order.append("inner") }
            order.append("outer returns")
            withExtendedLifetime(inner) {}
            return 1
        }
        context.runUntilIdle()
        #expect(first.value == 1)
        #expect(order.events == ["outer returns", "inner"])
    }

    @Test func invalidatableQueueDropsWorkAfterInvalidation() throws {
        let context = InvalidatableQueue(queue: DispatchQueue(label: "invalidatable"))
        let ran = Counter()
        let before = Promise(1).then(on: context) { _ in ran.increment() }
        _ = try awaitPromise(before)
        context.invalidate()
        #expect(!context.isValid)
        let (gate, gateResolver) = Promise<Int>.pending()
        let after = gate.then(on: context) { _ in ran.increment() }
        gateResolver.fulfill(1)
        let error = try #require(outcome(of: after.then(on: .inline) { $0 }).failureValue as? PromiseError)
        #expect(error.code == .contextInvalidated)
        #expect(ran.value == 1)
    }

    @Test func invalidatableQueueDropsPlainClosuresWithoutRunningThem() throws {
        let context = InvalidatableQueue(queue: DispatchQueue(label: "invalidatable-plain"))
        context.invalidate()
        let ran = Counter()
        context.execute { ran.increment() }
        _ = context.executeAfter(.milliseconds(1)) { ran.increment() }
        // A promise hop after both: once it is rejected, the queue has handled both items.
        let probe = Promise(1).then(on: context) { _ in ran.increment() }
        let error = try #require(outcome(of: probe.then(on: .inline) { $0 }).failureValue as? PromiseError)
        #expect(error.code == .contextInvalidated)
        _ = try awaitPromise(Promise(1).delay(on: DispatchQueue.global(), .milliseconds(30)))
        #expect(ran.value == 0)
    }

    @Test func inlineContextRunsOnTheResolvingThread() {
        let (source, sourceResolver) = Promise<Int>.pending()
        let tagged = TaggedQueue("resolver")
        let onResolver = Recorder<Bool>()
        let step = source.then(on: .inline) { _ in onResolver.append(tagged.isCurrent) }
        tagged.queue.sync { sourceResolver.fulfill(1) }
        #expect(step.value == 1)
        #expect(onResolver.events == [true])
    }
}

/// Swift Testing runs tests off the main thread; there is no `Thread` without Foundation.
enum Thread { static let isMainThreadShim = false }
