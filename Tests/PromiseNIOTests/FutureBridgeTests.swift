#if NIO
    import Dispatch
    import NIOCore
    import NIOPosix
    import PromiseNIO
    import PromiseTestSupport
    import Synchronization
    import Testing

    struct Refused: Error, Equatable {
        let reason: String
    }

    /// `Promise(future)`, `Promise(future, onCancel:)`, `Promise(scheduled)` and
    /// `eventLoopFuture(on:)`: values, errors and cancellation, each way.
    @Suite struct FutureBridgeTests {
        @Test func aFuturesValueAndErrorReachThePromise() async throws {
            try await withLoop { (loop: any EventLoop) async throws in
                #expect(try await Promise(loop.makeSucceededFuture("value")).get() == "value")
                let failed: EventLoopFuture<Int> = loop.makeFailedFuture(Refused(reason: "no"))
                await #expect(throws: Refused(reason: "no")) { try await Promise(failed).get() }
            }
        }

        @Test func aFutureCompletedFromAnotherThreadSettlesThePromiseOnItsLoop() async throws {
            try await withLoop { (loop: any EventLoop) async throws in
                let source = loop.makePromise(of: Int.self)
                let seen = Promise(source.futureResult).then(on: .inline) { value in (value, loop.inEventLoop) }
                DispatchQueue.global().async { source.succeed(9) }
                let (value, onLoop) = try await seen.get()
                #expect(value == 9)
                #expect(onLoop, "a future's callbacks, and so the promise's settling, run on its loop")
            }
        }

        @Test func aPromisesValueErrorAndCancellationReachTheFuture() async throws {
            try await withLoop { (loop: any EventLoop) async throws in
                #expect(try await Promise(3).eventLoopFuture(on: loop).get() == 3)
                let rejected = Promise<Int>(Refused(reason: "x")).eventLoopFuture(on: loop)
                await #expect(throws: Refused(reason: "x")) { try await rejected.get() }

                let pending = Promise<Int>.pending()
                let future = pending.promise.eventLoopFuture(on: loop)
                pending.promise.cancel()
                await #expect(throws: CancellationError.self) { try await future.get() }
            }
        }

        @Test func theFuturesCallbacksRunOnItsLoopWhereverThePromiseSettles() async throws {
            try await withLoop { (loop: any EventLoop) async throws in
                let pending = Promise<Int>.pending()
                let onLoop = pending.promise.eventLoopFuture(on: loop).map { _ in loop.inEventLoop }
                DispatchQueue.global().async { pending.resolver.fulfill(1) }
                #expect(try await onLoop.get())
            }
        }

        @Test func aBrokenPromiseFailsTheFuture() async throws {
            try await withLoop { (loop: any EventLoop) async throws in
                var pending: (promise: Promise<Int>, resolver: PromiseResolver<Int>)? = Promise<Int>.pending()
                let future = pending!.promise.eventLoopFuture(on: loop)
                pending = nil
                await #expect { try await future.get() } throws: { ($0 as? PromiseError)?.code == .brokenPromise }
            }
        }

        @Test func aPromiseBridgedThereAndBackKeepsItsValue() async throws {
            try await withLoop { (loop: any EventLoop) async throws in
                let back = Promise(Promise("round trip").eventLoopFuture(on: loop))
                #expect(try await back.get() == "round trip")
            }
        }

        @Test func cancellingAFuturesPromiseSettlesItAtOnceAndIgnoresTheLateResult() async throws {
            try await withLoop { (loop: any EventLoop) async throws in
                let source = loop.makePromise(of: Int.self)
                let promise = Promise(source.futureResult)
                promise.cancel()
                await #expect(throws: CancellationError.self) { try await promise.get() }
                source.succeed(1)
                try await loop.submit {}.get()
                await #expect(throws: CancellationError.self) { try await promise.get() }
            }
        }

        @Test func cancellingAScheduledTasksPromiseCancelsTheTask() async throws {
            try await withLoop { (loop: any EventLoop) async throws in
                let ran = Atomic<Int>(0)
                let promise = Promise(
                    loop.scheduleTask(in: .milliseconds(50)) { () -> Int in
                        ran.add(1, ordering: .relaxed)
                        return 1
                    }
                )
                promise.cancel()
                await #expect(throws: CancellationError.self) { try await promise.get() }
                try await Task.sleep(for: .milliseconds(100))
                #expect(ran.load(ordering: .relaxed) == 0, "the task was cancelled, not only the promise")
            }
        }

        @Test func aScheduledTaskThatRanKeepsItsValueWhenCancelledLate() async throws {
            try await withLoop { (loop: any EventLoop) async throws in
                let promise = Promise(loop.scheduleTask(in: .zero) { 42 })
                #expect(try await promise.get() == 42)
                promise.cancel()
                #expect(try await promise.get() == 42)
            }
        }

        @Test func aStepWaitingOnAScheduledTaskCancelsItUpward() async throws {
            try await withLoop { (loop: any EventLoop) async throws in
                let ran = Atomic<Int>(0)
                let task = Promise(
                    loop.scheduleTask(in: .seconds(30)) { () -> Int in
                        ran.add(1, ordering: .relaxed)
                        return 1
                    }
                )
                let step = task.then(on: .eventLoop(loop)) { $0 + 1 }
                step.cancel()
                await #expect(throws: CancellationError.self) { try await task.get() }
                #expect(ran.load(ordering: .relaxed) == 0)
            }
        }

        @Test func onCancelStopsTheWorkOnceAndAFailureThenReadsAsCancellation() async throws {
            try await withLoop { (loop: any EventLoop) async throws in
                let source = loop.makePromise(of: Int.self)
                let stops = Atomic<Int>(0)
                let promise = Promise(source.futureResult) {
                    stops.add(1, ordering: .relaxed)
                    source.fail(Refused(reason: "stopped"))
                }
                promise.cancel()
                promise.cancel()
                await #expect(throws: CancellationError.self) { try await promise.get() }
                #expect(stops.load(ordering: .relaxed) == 1)
            }
        }

        @Test func workThatFinishedBeforeItsStopKeepsItsValue() async throws {
            try await withLoop { (loop: any EventLoop) async throws in
                let source = loop.makePromise(of: Int.self)
                // The stop comes too late: the work succeeds anyway, and the promise says so.
                let promise = Promise(source.futureResult) { source.succeed(5) }
                promise.cancel()
                #expect(try await promise.get() == 5)
            }
        }

        @Test func aTimeoutOfAPlainFutureSaysTheWorkGoesOn() async throws {
            try await withLoop { (loop: any EventLoop) async throws in
                let source = loop.makePromise(of: Int.self)
                let promise = Promise(source.futureResult)
                await #expect {
                    try await promise.timeout(on: .eventLoop(loop), .milliseconds(10)).get()
                } throws: { error in
                    (error as? PromiseError)?.code == .timedOut && "\(error)".contains("cannot be stopped and goes on")
                        && !"\(error)".contains("told to stop")
                }
                await #expect(throws: CancellationError.self) { try await promise.get() }
                source.succeed(1)
            }
        }

        @Test func aTimeoutOfAStoppableFutureSaysTheWorkWasToldToStop() async throws {
            try await withLoop { (loop: any EventLoop) async throws in
                let source = loop.makePromise(of: Int.self)
                let promise = Promise(source.futureResult) { source.fail(Refused(reason: "stopped")) }
                await #expect {
                    try await promise.timeout(on: .eventLoop(loop), .milliseconds(10)).get()
                } throws: { error in
                    (error as? PromiseError)?.code == .timedOut && "\(error)".contains("told to stop")
                }
                await #expect(throws: CancellationError.self) { try await promise.get() }
            }
        }
    }
#endif
