// Compiled only with the NIO trait (Package.swift): without it this module is empty and the
// package it needs is neither resolved nor built.
#if NIO
    public import NIOCore
    internal import PromiseBasics
    // Re-exported, like every product of this package, so `import PromiseNIO` is enough.
    @_exported public import PromiseCore

    /// A SwiftNIO `EventLoop` as the context promise callbacks run on.
    ///
    /// ```swift
    /// import PromiseNIO
    ///
    /// func greeting(on loop: any EventLoop) -> Promise<String> {
    ///     Promise("hello")
    ///         .then(on: .eventLoop(loop)) { $0 + ", world" }
    ///         .then(on: .eventLoop(loop)) { $0.uppercased() }
    /// }
    /// ```
    ///
    /// - Steps on the same loop run one after another in one turn of the loop: a chain of
    ///   `then(on: .eventLoop(loop))` costs one `execute` on the loop, not one per step, and a
    ///   promise made from one of the loop's futures (``PromiseCore/Promise/init(_:)-(EventLoopFuture<Value>)``) runs
    ///   such steps at once, on the loop, as the future's own callbacks would run.
    /// - `delay`, `timeout` and `retry` time their intervals with the loop's own timers
    ///   (`scheduleTask(in:)`).
    /// - A loop that has shut down runs nothing more: a step handed to it, or waiting for it
    ///   when its group shuts down, rejects its promise with
    ///   `PromiseError.Code.contextInvalidated`, so nothing waits
    ///   forever. (A closure given to ``execute(_:)`` has no promise behind it, and is dropped
    ///   as the loop drops it.)
    /// - `awaitPromise(_:timeout:)` never blocks a loop: on any SwiftNIO event loop's thread
    ///   (a channel handler, a future's callback, a callback of this context) it throws
    ///   `PromiseError.Code.deadlock` for a pending promise, whatever it waits for, as SwiftNIO's
    ///   own `wait()` refuses to. On another thread it blocks as usual, unless the loop a step
    ///   needs cannot run meanwhile (an `EmbeddedEventLoop` runs only when told to).
    public struct EventLoopContext: ExecutionContext {
        /// The loop the callbacks run on.
        public let eventLoop: any EventLoop

        /// A context running callbacks on `eventLoop`.
        ///
        /// - Parameter eventLoop: The loop; the context holds it.
        public init(_ eventLoop: any EventLoop) {
            self.eventLoop = eventLoop
            LoopAdvisors.advise(for: eventLoop)
        }

        /// Runs `work` on the loop with `execute(_:)`.
        ///
        /// - Parameter work: The work to run.
        public func execute(_ work: @escaping @Sendable () -> Void) {
            eventLoop.execute(work)
        }

        /// Runs `work` on the loop after `delay`, with the loop's own timer.
        ///
        /// - Parameters:
        ///   - delay: How long to wait; zero or negative means as soon as possible, and a
        ///     delay beyond what `TimeAmount` holds (about 292 years) waits that long.
        ///   - work: The work to run.
        /// - Returns: A handle that cancels the timer.
        public func executeAfter(_ delay: Duration, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
            guard let timer = try? eventLoop.scheduleCallback(in: TimeAmount(clamping: delay), handler: WorkTimer(work: work)) else {
                return ScheduledWork {}
            }
            return ScheduledWork { timer.cancel() }
        }

        /// Runs PromiseCore's `job` on the loop, or refuses it when the loop drops it (it has
        /// shut down).
        ///
        /// - Parameter job: The work.
        public func submit(_ job: ContextJob) {
            let held = LoopJob(job)
            eventLoop.execute { held.run() }
        }

        /// Runs PromiseCore's `job` on the loop after `delay`, or refuses it when the loop
        /// drops it (it has shut down, or shuts down first).
        ///
        /// - Parameters:
        ///   - job: The work.
        ///   - delay: How long to wait first.
        /// - Returns: A handle that cancels the timer; a cancelled job is neither run nor refused.
        public func submit(_ job: ContextJob, after delay: Duration) -> ScheduledWork {
            let held = LoopJob(job)
            // A loop that refuses the timer drops it, and with it the job, which is refused then.
            guard let timer = try? eventLoop.scheduleCallback(in: TimeAmount(clamping: delay), handler: JobTimer(held: held)) else {
                return ScheduledWork {}
            }
            // Weak: the handle lives as long as the promise the job settles (its cancel
            // handler), and only the loop's timer may keep the job, or a dropped timer would
            // never refuse it.
            return ScheduledWork { [weak held] in
                held?.withdraw()
                timer.cancel()
            }
        }

        /// The loop's identity: steps on the loop share turns, and blocking waits know the loop.
        public var executionContextID: ObjectIdentifier? { ObjectIdentifier(eventLoop) }
    }

    extension ExecutionContext where Self == EventLoopContext {
        /// Callbacks on `loop`: `then(on: .eventLoop(channel.eventLoop)) { … }`. See
        /// ``EventLoopContext``.
        ///
        /// - Parameter loop: The loop.
        /// - Returns: A context for `loop`.
        public static func eventLoop(_ loop: any EventLoop) -> EventLoopContext {
            EventLoopContext(loop)
        }
    }

    extension TimeAmount {
        /// `duration` in whole nanoseconds, rounded up: zero for a negative duration,
        /// `Int64.max` (about 292 years) for one longer than that. NIOCore's
        /// `TimeAmount(_: Duration)` clamps every overflow to `Int64.max`, so a hugely negative
        /// delay would wait 292 years there.
        init(clamping duration: Duration) {
            self = .nanoseconds(duration.nanosecondsRoundedUp(cappedAt: .max))
        }
    }
#endif
