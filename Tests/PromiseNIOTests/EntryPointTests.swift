#if NIO
    import Dispatch
    import Glibc
    import NIOCore
    import NIOPosix
    import PromiseNIO
    import Testing

    /// Every entry point of PromiseNIO goes through `LoopAdvisors.advise(for:)`, which makes
    /// blocking waits refuse SwiftNIO loop threads. The registration is process-wide and other
    /// suites make it first, so each entry point is checked in a process of its own (an exit
    /// test) that uses it alone, then waits on a loop's thread.
    @Suite struct EntryPointTests {
        /// Uses one entry point on `loop`, then checks that a wait on the loop's thread for a
        /// promise that names no context (nothing PromiseNIO registered for it) throws
        /// `deadlock`. Exits with 0 when it does.
        static func checkWaitRefused(after use: (any EventLoop) -> Void) {
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let loop = group.next()
            use(loop)
            let (plain, resolver) = Promise<Int>.pending()
            let refused = try? loop.submit { () -> Bool in
                do {
                    _ = try awaitPromise(plain, timeout: .seconds(5))
                    return false
                } catch let error as PromiseError {
                    return error.code == .deadlock
                } catch {
                    return false
                }
            }.wait()
            resolver.fulfill(0)
            try? group.syncShutdownGracefully()
            exit(refused == true ? 0 : 1)
        }

        @Test func anEventLoopContext() async {
            await #expect(processExitsWith: .success) {
                EntryPointTests.checkWaitRefused { loop in _ = EventLoopContext(loop) }
            }
        }

        @Test func aPromiseOfAFuture() async {
            await #expect(processExitsWith: .success) {
                EntryPointTests.checkWaitRefused { loop in _ = Promise(loop.makeSucceededFuture(1)) }
            }
        }

        @Test func aStoppablePromiseOfAFuture() async {
            await #expect(processExitsWith: .success) {
                EntryPointTests.checkWaitRefused { loop in _ = Promise(loop.makeSucceededFuture(1), onCancel: {}) }
            }
        }

        @Test func aPromiseOfAScheduledTask() async {
            await #expect(processExitsWith: .success) {
                EntryPointTests.checkWaitRefused { loop in _ = Promise(loop.scheduleTask(in: .zero) { 1 }) }
            }
        }

        @Test func aFutureOfAPromise() async {
            await #expect(processExitsWith: .success) {
                EntryPointTests.checkWaitRefused { loop in _ = Promise(1).eventLoopFuture(on: loop) }
            }
        }

        /// The check above would pass vacuously if a wait on a loop thread always threw: before
        /// any entry point, a process's wait there blocks until the promise settles.
        @Test func withoutAnEntryPointTheWaitBlocks() async {
            await #expect(processExitsWith: .success) {
                EntryPointTests.checkWaitBlocks()
            }
        }

        /// Waits on a loop's thread, with no entry point used, for a promise settled 20 ms
        /// later by another thread. Exits with 0 when the wait returned its value.
        static func checkWaitBlocks() {
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let value = try? group.next().submit { () -> Int? in
                let (pending, resolver) = Promise<Int>.pending()
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) { resolver.fulfill(3) }
                return try? awaitPromise(pending, timeout: .seconds(5))
            }.wait()
            try? group.syncShutdownGracefully()
            exit(value == 3 ? 0 : 1)
        }
    }
#endif
