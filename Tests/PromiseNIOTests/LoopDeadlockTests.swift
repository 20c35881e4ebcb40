#if NIO
    import NIOCore
    import NIOEmbedded
    import NIOPosix
    @testable import PromiseNIO
    import PromiseTestSupport
    import Testing

    /// The deadlock rule on SwiftNIO's loops: a blocking wait on a loop's own thread for a chain
    /// that needs that loop throws `deadlock`, however the thread got there; any other wait blocks.
    @Suite struct LoopDeadlockTests {
        /// What `awaitPromise(promise)` did on `loop`'s thread: the value, or the error's code and message.
        func waitOnLoop(_ loop: any EventLoop, for promise: Promise<Int>) async throws -> Result<Int, PromiseError> {
            try await loop.submit { () -> Result<Int, PromiseError> in
                do {
                    return .success(try awaitPromise(promise, timeout: .seconds(30)))
                } catch let error as PromiseError {
                    return .failure(error)
                }
            }.get()
        }

        @Test func aWaitOnTheLoopForAStepOnTheLoopThrows() async throws {
            try await withLoop { (loop: any EventLoop) async throws in
                let gate = Promise<Int>.pending()
                let step = gate.promise.then(on: .eventLoop(loop)) { $0 + 1 }
                let outcome = try await waitOnLoop(loop, for: step)
                guard case .failure(let error) = outcome else {
                    Issue.record("awaitPromise returned \(outcome) instead of throwing")
                    return
                }
                #expect(error.code == .deadlock)
                #expect(error.message.contains("event loop"), "\(error.message)")
                #expect(error.message.contains("then(on: .eventLoop(loop))"), "the message says what to do instead")
                gate.resolver.fulfill(1)
                #expect(try await step.get() == 2)
            }
        }

        @Test func aWaitOnTheLoopForItsOwnFutureThrows() async throws {
            try await withLoop { (loop: any EventLoop) async throws in
                let source = loop.makePromise(of: Int.self)
                let outcome = try await waitOnLoop(loop, for: Promise(source.futureResult))
                guard case .failure(let error) = outcome else {
                    Issue.record("awaitPromise returned \(outcome) instead of throwing")
                    return
                }
                #expect(error.code == .deadlock)
                source.succeed(0)
            }
        }

        @Test func aWaitInsideACallbackOfTheContextThrows() async throws {
            try await withLoop { (loop: any EventLoop) async throws in
                let gate = Promise<Int>.pending()
                let inner = gate.promise.then(on: .eventLoop(loop)) { $0 }
                let outer = Promise(1).then(on: .eventLoop(loop)) { _ -> String in
                    do {
                        _ = try awaitPromise(inner, timeout: .seconds(30))
                        return "returned"
                    } catch let error as PromiseError {
                        return "\(error.code)"
                    } catch {
                        return "\(error)"
                    }
                }
                let outcome = try await outer.get()
                #expect(outcome == "\(PromiseError.Code.deadlock)")
                gate.resolver.fulfill(0)
            }
        }

        @Test func aWaitOnALoopsThreadThrowsWhateverTheChainNeeds() async throws {
            try await withLoop { (first: any EventLoop) async throws in
                try await withLoop { (second: any EventLoop) async throws in
                    // A step on another loop, and a promise that names no context at all (its
                    // resolver could be waiting for this very loop): neither may block a loop.
                    // Both stay pending until the checks are done: a step settled by then (a
                    // short delay, on a busy machine) is read without waiting, which is right.
                    let (gate, opener) = Promise<Int>.pending()
                    let onAnotherLoop = gate.then(on: .eventLoop(second)) { $0 + 20 }
                    let (plain, resolver) = Promise<Int>.pending()
                    for promise in [onAnotherLoop, plain] {
                        let outcome = try await waitOnLoop(first, for: promise)
                        guard case .failure(let error) = outcome else {
                            Issue.record("awaitPromise returned \(outcome) on a loop's thread instead of throwing")
                            continue
                        }
                        #expect(error.code == .deadlock)
                        #expect(error.message.contains("must never block"), "\(error.message)")
                    }
                    resolver.fulfill(0)
                    opener.fulfill(0)
                    #expect(try await onAnotherLoop.get() == 20)
                }
            }
        }

        @Test func aSettledPromiseIsReadOnALoopsThreadWithoutWaiting() async throws {
            try await withLoop { (loop: any EventLoop) async throws in
                #expect(try await waitOnLoop(loop, for: Promise(7)) == .success(7))
            }
        }

        @Test func aWaitFromAnotherThreadBlocksUntilTheLoopSettles() async throws {
            try await withLoop { (loop: any EventLoop) async throws in
                let step = Promise(1).delay(on: .eventLoop(loop), .milliseconds(20)).then(on: .eventLoop(loop)) { $0 + 1 }
                let value = try await offCooperativePool { try awaitPromise(step, timeout: .seconds(30)) }
                #expect(value == 2)
            }
        }

        @Test func theAdvisorsOfLoopsThatAreGoneAreForgotten() {
            for _ in 0..<200 {
                let loop = EmbeddedEventLoop()
                _ = Promise(1).then(on: .eventLoop(loop)) { $0 }
                try? loop.syncShutdownGracefully()
            }
            // Each new loop forgets the dead ones: at most the last one, and loops other
            // suites running beside this one still hold, are left.
            #expect(LoopAdvisors.count < 50, "\(LoopAdvisors.count) advisors for 200 loops made and dropped")
        }
    }
#endif
