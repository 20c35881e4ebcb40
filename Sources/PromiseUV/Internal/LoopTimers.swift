/// A timer that fulfils the promise of `UVLoop.after(_:)`.
final class PromiseTimer: TimerEntry, @unchecked Sendable {
    private let promise: Promise<Void>
    private let contextID: ObjectIdentifier

    init(promise: Promise<Void>, contextID: ObjectIdentifier) {
        self.promise = promise
        self.contextID = contextID
    }

    override func fire() {
        // A turn of the loop: callbacks chained on the loop run right after, without a hop.
        AdapterSupport.runTurn(contextID) { promise.fulfill(()) }
    }

    override func abandon() {
        promise.reject(UVError(.loopClosed, operation: "after", detail: "the UVLoop was shut down before the timer fired"))
    }
}

/// A timer that runs work given to `UVLoop.executeAfter(_:_:)` (the core's `delay`,
/// `timeout` and `retry` timers).
final class WorkTimer: TimerEntry, @unchecked Sendable {
    private let work: @Sendable () -> Void

    init(_ work: @escaping @Sendable () -> Void) {
        self.work = work
    }

    override func fire() {
        work()
    }

    override func abandon() {
        AdapterSupport.abandon(work)
    }
}
