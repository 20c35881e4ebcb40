#if NIO
    public import NIOCore
    internal import NIOPosix
    @_spi(ContextContract) internal import PromiseCore

    /// What `awaitPromise` asks before it blocks on a chain with a step on `loop`: the loop's
    /// own thread cannot block for it, any other thread can.
    final class LoopAdvisor: BlockingWaitAdvisor {
        /// Weak: the advisor must not keep a loop of a group that was shut down alive.
        private weak let loop: (any EventLoop)?
        let contextName: String

        init(_ loop: any EventLoop) {
            self.loop = loop
            contextName = "the event loop \(type(of: loop)) \(ObjectIdentifier(loop))"
        }

        /// Whether this advisor still stands for a live loop.
        var isAlive: Bool { loop != nil }

        func adviseBlockingWait() -> BlockingWaitAdvice {
            guard let loop, loop.inEventLoop else { return .block }
            return .deadlock(
                reason: "the calling thread is that loop's own thread, which has to run a step of the awaited "
                    + "promise's chain, so it would wait forever; chain with then(on: .eventLoop(loop)) or hand the "
                    + "result to the loop's future (eventLoopFuture(on:)), or call awaitPromise from a thread that is no "
                    + "event loop's"
            )
        }
    }

    /// What `awaitPromise` asks before every blocking wait, whatever the awaited chain needs: a
    /// thread that runs a SwiftNIO event loop must never block. A wait there stalls every channel
    /// of the loop, and it would never end if the awaited work needs the loop in a way the chain
    /// does not show (a future of the loop settling a promise through its resolver). SwiftNIO's
    /// own `wait()` stops the program there; `awaitPromise` throws `deadlock` instead.
    final class EventLoopThreadAdvisor: BlockingWaitAdvisor {
        static let shared = EventLoopThreadAdvisor()

        var contextName: String { "a SwiftNIO event loop's thread" }

        func adviseBlockingWait() -> BlockingWaitAdvice {
            guard let loop = MultiThreadedEventLoopGroup.currentEventLoop else { return .block }
            return .deadlock(
                reason: "blocking it stalls every channel of \(type(of: loop)) \(ObjectIdentifier(loop)), and a step "
                    + "that needs the loop would never run; chain with then(on: .eventLoop(loop)), hand the result on "
                    + "with eventLoopFuture(on:), or use try await promise.get() in a Task"
            )
        }
    }

    /// The one owner of the blocking-wait advisors of SwiftNIO loops: one per loop a promise
    /// names, registered with PromiseCore's `ContextRegistry` (which holds it weakly) under the
    /// loop's identity, and held here until its loop is gone.
    @usableFromInline
    enum LoopAdvisors {
        private static let advisors = Lock<[ObjectIdentifier: LoopAdvisor]>([:])

        /// Registers ``EventLoopThreadAdvisor`` with PromiseCore, once per process.
        private static let threadAdvisor: Void = ContextRegistry.registerThreadAdvisor(EventLoopThreadAdvisor.shared)

        /// Makes sure a blocking wait on a chain with a step on `loop` asks the loop's advisor,
        /// and that every blocking wait asks whether its thread is a loop's. Called by
        /// everything of PromiseNIO that makes a loop a promise's context: an
        /// ``EventLoopContext`` and a promise made from one of the loop's futures.
        @usableFromInline
        static func advise(for loop: any EventLoop) {
            threadAdvisor
            let id = ObjectIdentifier(loop)
            let added: LoopAdvisor? = advisors.withLock { advisors in
                if let known = advisors[id], known.isAlive { return nil }
                // A new loop, or a new one at a dead loop's address: forget the dead ones.
                advisors = advisors.filter { $0.value.isAlive }
                let advisor = LoopAdvisor(loop)
                advisors[id] = advisor
                return advisor
            }
            if let added { ContextRegistry.register(added, for: id) }
        }

        /// Makes sure that every blocking wait asks whether its thread is a loop's: for an
        /// entry point that names a loop without making it a promise's context (a future made
        /// from a promise), where ``advise(for:)``'s lock and table would be wasted.
        @usableFromInline
        static func adviseThreads() {
            threadAdvisor
        }

        /// How many loops have an advisor now (for tests).
        static var count: Int { advisors.withLock { $0.count } }
    }
#endif
