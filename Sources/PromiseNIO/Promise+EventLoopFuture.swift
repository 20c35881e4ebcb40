#if NIO
    public import NIOCore
    public import PromiseCore
    internal import Synchronization

    // The bridge is `@inlinable`: compiled once in this module, for any `Value`, it ran
    // unspecialized, and PromiseCore's generic paths it calls (resolving, delivering) then looked
    // up `Promise<Value>`'s metadata on every call. Measured with `Benchmarks/counts.sh`
    // (`bridge-round-trip`): 37 873 instructions per round trip compiled here, against 4 077 for
    // a future alone; inlined into the caller, it is specialized there (the figures are in
    // Benchmarks/README.md).
    extension Promise {
        /// A promise settled with `future`'s result.
        ///
        /// ```swift
        /// let greeting = Promise(eventLoop.makeSucceededFuture("hello"))   // Promise<String>
        /// ```
        ///
        /// The promise settles on the future's loop, when the future's own callbacks run.
        /// Steps chained with `then(on: .eventLoop(future.eventLoop))` then run at once, in
        /// the same turn of the loop; steps on other contexts hop there as usual.
        ///
        /// An `EventLoopFuture` cannot be cancelled: cancelling this promise settles it with
        /// `CancellationError` at once, and the work behind the future goes on, its result
        /// unused (a `timeout` that gives up on the promise says so). When that work can be stopped, say how with
        /// ``PromiseCore/Promise/init(_:onCancel:)``; a scheduled task's cancellation is mapped by ``PromiseCore/Promise/init(_:)-(Scheduled<Value>)``.
        ///
        /// A future whose promise is dropped unfulfilled (SwiftNIO reports it as leaked in a
        /// debug build) releases this promise's callback: the promise is broken, and its
        /// dependents are rejected with `PromiseError.Code.brokenPromise`.
        ///
        /// - Parameter future: The future.
        @inlinable
        public convenience init(_ future: EventLoopFuture<Value>) {
            let id = ObjectIdentifier(future.eventLoop)
            LoopAdvisors.advise(for: future.eventLoop)
            self.init(pendingResolvedOn: id)
            markWorkUnstoppableFromLibrary()
            future.whenComplete { [self] result in
                AdapterSupport.runTurn(id) { self.resolveFromLibrary(result) }
            }
        }

        /// A promise settled with `future`'s result, whose cancellation calls `stop`.
        ///
        /// ```swift
        /// // Settled when the channel closes; cancelling it closes the channel.
        /// let closed = Promise(channel.closeFuture, onCancel: { channel.close(promise: nil) })
        /// ```
        ///
        /// Cancelling the promise (`cancel()`, a `timeout`, or every
        /// consumer withdrawing) calls `stop` once, on the cancelling thread, and the promise
        /// then settles when the future does: with `CancellationError` if the future fails (the
        /// work was stopped), with the value if it succeeds (the work had finished, and what it
        /// did is not hidden). So `stop` must make the future complete soon.
        ///
        /// - Parameters:
        ///   - future: The future.
        ///   - stop: Stops the work behind `future`; called at most once, never after the
        ///     promise has settled.
        @inlinable
        public convenience init(_ future: EventLoopFuture<Value>, onCancel stop: @escaping @Sendable () -> Void) {
            let id = ObjectIdentifier(future.eventLoop)
            LoopAdvisors.advise(for: future.eventLoop)
            self.init(pendingResolvedOn: id)
            let request = StopRequest()
            onCancelRequestFromLibrary {
                if request.make() { stop() }
            }
            future.whenComplete { [self] result in
                let outcome = request.wasMade ? result.mapError { _ in CancellationError() } : result
                AdapterSupport.runTurn(id) { self.resolveFromLibrary(outcome) }
            }
        }

        /// A promise of a task scheduled on an event loop; cancelling the promise cancels the
        /// task.
        ///
        /// ```swift
        /// let tick = Promise(eventLoop.scheduleTask(in: .seconds(1)) { "tick" })
        /// ```
        ///
        /// A task cancelled before it ran rejects the promise with `CancellationError`; a task
        /// that had already run fulfils it with its value. See ``PromiseCore/Promise/init(_:onCancel:)``.
        ///
        /// - Parameter scheduled: The scheduled task.
        @inlinable
        public convenience init(_ scheduled: Scheduled<Value>) {
            self.init(scheduled.futureResult, onCancel: { scheduled.cancel() })
        }

        /// This promise's result as a future of `eventLoop`.
        ///
        /// ```swift
        /// let answer: EventLoopFuture<Int> = Promise { 6 * 7 }.eventLoopFuture(on: channel.eventLoop)
        /// ```
        ///
        /// The future completes when the promise settles: at once, on the loop, when the
        /// promise settles on the loop's thread, and otherwise with one `execute` on the loop
        /// (SwiftNIO's own rule for a promise completed from another thread). A rejection,
        /// `CancellationError` included, fails the future with the same error; a promise that
        /// is broken fails it with `PromiseError.Code.brokenPromise`.
        ///
        /// The future is one more consumer of this promise: a future cannot be cancelled, so
        /// while its result is awaited the promise is not cancelled upward when its other
        /// consumers withdraw. Call `cancel()` to stop the work.
        ///
        /// - Parameter eventLoop: The loop the future belongs to.
        /// - Returns: A future completed with this promise's result.
        @inlinable
        public func eventLoopFuture(on eventLoop: any EventLoop) -> EventLoopFuture<Value> {
            LoopAdvisors.adviseThreads()
            let future = eventLoop.makePromise(of: Value.self)
            whenResolvedFromLibrary { future.completeWith($0) }
            return future.futureResult
        }
    }

    /// Whether a bridged future's work was asked to stop: once asked, a failure of the future is
    /// that stop taking effect.
    @usableFromInline
    final class StopRequest: Sendable {
        private let made = Atomic<Int>(0)

        @usableFromInline
        init() {}

        /// Records the request; `true` the first time only.
        @usableFromInline
        func make() -> Bool {
            made.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing).exchanged
        }

        /// Whether the request was made.
        @usableFromInline
        var wasMade: Bool { made.load(ordering: .acquiring) == 1 }
    }
#endif
