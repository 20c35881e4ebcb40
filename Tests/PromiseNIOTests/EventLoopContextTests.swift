// Compiled only with the NIO trait, as the module under test is (`make test` enables it).
#if NIO
    import Dispatch
    import NIOCore
    import NIOPosix
    import PromiseNIO
    import PromiseTestSupport
    import Synchronization
    import Testing

    /// `EventLoopContext`: callbacks, timers and turns on a real SwiftNIO loop, and what happens
    /// once that loop has shut down. Each test has a group of its own.
    @Suite struct EventLoopContextTests {
        @Test func callbacksRunOnTheLoopsThread() async throws {
            try await withLoop { (loop: any EventLoop) async throws in
                let onLoop = try await Promise(20)
                    .then(on: .eventLoop(loop)) { _ in loop.inEventLoop }
                    .get()
                #expect(onLoop)
            }
        }

        @Test func aChainOnOneLoopRunsInOneTurnOfIt() async throws {
            try await withLoop { (loop: any EventLoop) async throws in
                let order = Lock<[String]>([])
                // The chain is built before its source settles: chained onto a settled promise,
                // a step is a fresh hop (it never runs inside `then`).
                let (source, resolver) = Promise<Int>.pending()
                let last =
                    source
                    .then(on: .eventLoop(loop)) { value -> Int in
                        // Queued behind this turn: it runs after every step ready in the turn.
                        loop.execute { order.withLock { $0.append("next turn") } }
                        order.withLock { $0.append("step 1") }
                        return value + 1
                    }
                    .then(on: .eventLoop(loop)) { value -> Int in
                        order.withLock { $0.append("step 2") }
                        return value + 1
                    }
                    .then(on: .eventLoop(loop)) { value -> Int in
                        order.withLock { $0.append("step 3") }
                        return value + 1
                    }
                resolver.fulfill(1)
                #expect(try await last.get() == 4)
                try await loop.submit {}.get()
                #expect(order.withLock { $0 } == ["step 1", "step 2", "step 3", "next turn"])
            }
        }

        @Test func aFuturesPromiseRunsLoopStepsInTheFuturesTurn() async throws {
            try await withLoop { (loop: any EventLoop) async throws in
                let order = Lock<[String]>([])
                let source = loop.makePromise(of: Int.self)
                let step = Promise(source.futureResult).then(on: .eventLoop(loop)) { value -> Int in
                    order.withLock { $0.append("step \(value)") }
                    return value
                }
                try await loop.submit {
                    source.succeed(7)
                    order.withLock { $0.append("after succeed") }
                }.get()
                #expect(try await step.get() == 7)
                #expect(order.withLock { $0 } == ["step 7", "after succeed"], "the step is not a hop away")
            }
        }

        @Test func delayAndTimeoutUseTheLoopsTimers() async throws {
            try await withLoop { (loop: any EventLoop) async throws in
                let start = ContinuousClock.now
                let delayed = Promise(5).delay(on: .eventLoop(loop), .milliseconds(50))
                    .then(on: .inline) { value in (value, loop.inEventLoop) }
                let (value, onLoop) = try await delayed.get()
                #expect(value == 5)
                #expect(onLoop, "the loop's timer settles the delay")
                #expect(ContinuousClock.now - start >= .milliseconds(50))

                let never = Promise<Int>.pending()
                await #expect {
                    try await never.promise.timeout(on: .eventLoop(loop), .milliseconds(20), label: "never").get()
                } throws: { error in
                    (error as? PromiseError)?.code == .timedOut && "\(error)".contains("never")
                }
                never.resolver.fulfill(0)
            }
        }

        @Test(arguments: [Duration.seconds(Int64.min), .zero, .nanoseconds(-1), Duration(secondsComponent: 0, attosecondsComponent: 1)])
        func aDelayAtOrBelowZeroFiresAtOnce(_ delay: Duration) async throws {
            try await withLoop { (loop: any EventLoop) async throws in
                let start = ContinuousClock.now
                let delayed = Promise(1).delay(on: .eventLoop(loop), delay)
                let settled = SettleTime(of: delayed)
                #expect(try await delayed.get() == 1)
                expectTimeLimit(settled.since(start), under: .seconds(10), "a delay of \(delay) on an idle loop")
            }
        }

        @Test(arguments: [Duration.seconds(Int64.max), .seconds(Int64.max / 1_000_000_000 + 1), .seconds(86_400 * 365 * 1_000)])
        func aDelayBeyondWhatNIOCountsWaitsAndCanBeCancelled(_ delay: Duration) async throws {
            try await withLoop { (loop: any EventLoop) async throws in
                let delayed = Promise(1).delay(on: .eventLoop(loop), delay)
                try await Task.sleep(for: .milliseconds(20))
                #expect(delayed.isPending, "\(delay) is not over yet")
                delayed.cancel()
                await #expect(throws: CancellationError.self) { try await delayed.get() }
            }
        }

        @Test func aStepForALoopThatHasShutDownIsRejectedNotLeftPending() async throws {
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let loop = group.next()
            try await group.shutdownGracefully()
            let step = Promise(1).then(on: .eventLoop(loop)) { $0 + 1 }
            await #expect { try await step.get() } throws: { ($0 as? PromiseError)?.code == .contextInvalidated }
            let timer = Promise(1).delay(on: .eventLoop(loop), .milliseconds(1))
            await #expect { try await timer.get() } throws: { ($0 as? PromiseError)?.code == .contextInvalidated }
        }

        @Test func aTimerPendingWhenItsGroupShutsDownIsRejectedAtOnce() async throws {
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let loop = group.next()
            let timer = Promise(1).delay(on: .eventLoop(loop), .seconds(600))
            let timerSettled = SettleTime(of: timer)
            let waiting = Promise<Int>.pending()
            let step = waiting.promise.then(on: .eventLoop(loop)) { $0 }
            let start = ContinuousClock.now
            try await group.shutdownGracefully()
            await #expect { try await timer.get() } throws: { ($0 as? PromiseError)?.code == .contextInvalidated }
            expectTimeLimit(timerSettled.since(start), under: .seconds(60), "a 600 s timer rejected by its loop's shutdown")
            // The step waited for a promise settled only now, after the loop is gone.
            waiting.resolver.fulfill(3)
            await #expect { try await step.get() } throws: { ($0 as? PromiseError)?.code == .contextInvalidated }
        }

        @Test func cancellingAStepsTimerNeitherRunsNorRejectsIt() async throws {
            try await withLoop { (loop: any EventLoop) async throws in
                let ran = Atomic<Int>(0)
                let delayed = Promise(1).delay(on: .eventLoop(loop), .milliseconds(30))
                let step = delayed.then(on: .eventLoop(loop)) { value -> Int in
                    ran.add(1, ordering: .relaxed)
                    return value
                }
                step.cancel()
                await #expect(throws: CancellationError.self) { try await step.get() }
                await #expect(throws: CancellationError.self) { try await delayed.get() }
                try await Task.sleep(for: .milliseconds(60))
                #expect(ran.load(ordering: .relaxed) == 0)
            }
        }

        @Test func manyThreadsChainOntoOneLoopAndEveryStepRunsThere() async throws {
            try await withLoop { (loop: any EventLoop) async throws in
                let (sum, offLoop, failed) = try await offCooperativePool { () throws -> (Int, Int, Int) in
                    let sum = Atomic<Int>(0)
                    let offLoop = Atomic<Int>(0)
                    let failures = Atomic<Int>(0)
                    DispatchQueue.concurrentPerform(iterations: 200) { index in
                        let step = Promise(index).then(on: .eventLoop(loop)) { value -> Int in
                            if !loop.inEventLoop { offLoop.add(1, ordering: .relaxed) }
                            return value * 2
                        }
                        do {
                            sum.add(try awaitPromise(step, timeout: .seconds(60)), ordering: .relaxed)
                        } catch {
                            failures.add(1, ordering: .relaxed)
                        }
                    }
                    return (sum.load(ordering: .relaxed), offLoop.load(ordering: .relaxed), failures.load(ordering: .relaxed))
                }
                #expect(sum == (0..<200).reduce(0) { $0 + $1 * 2 })
                #expect(offLoop == 0)
                #expect(failed == 0)
            }
        }
    }

    /// Runs `body` with the loop of a one-thread group of its own, and shuts the group down.
    func withLoop(_ body: (any EventLoop) async throws -> Void) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            try await body(group.next())
        } catch {
            try await group.shutdownGracefully()
            throw error
        }
        try await group.shutdownGracefully()
    }
#endif
