public import Dispatch
internal import PromiseBasics

/// Somewhere promise callbacks can run: a dispatch queue, an event loop, the calling thread.
///
/// Every chaining method (`then`, `catch`, `recover`, …) takes an optional context. `nil` means
/// ``Promises/defaultContext``, read when the method is called.
///
/// ## Conforming
///
/// Only ``execute(_:)`` is required. Override ``executeAfter(_:_:)`` when the context has a
/// clock of its own (an event loop's timers), so `delay`, `timeout` and `retry` use it; the
/// default implementation waits on an internal dispatch timer and then calls ``execute(_:)``.
/// Return an ``executionContextID`` when callbacks that become ready while one of your work
/// items runs may run right after it, in the same turn, instead of being submitted again;
/// `nil` (the default) means every callback is a fresh ``execute(_:)``.
///
/// A context that stops taking work implements ``submit(_:)`` to refuse the library's jobs (so
/// their promises reject instead of waiting forever), and one that must stay alive while
/// callbacks wait for it answers ``keepsAliveWhileCallbacksWait`` with `true`; see
/// <doc:ThreadingAndContexts>.
public protocol ExecutionContext: Sendable {
    /// Runs `work` once, later, somewhere this context stands for.
    ///
    /// Implementations must not run `work` before returning unless the context is documented
    /// as inline (``InlineContext``).
    ///
    /// - Parameter work: The work to run.
    func execute(_ work: @escaping @Sendable () -> Void)

    /// Runs `work` on this context once `delay` has passed, unless the returned handle is
    /// cancelled first.
    ///
    /// - Parameters:
    ///   - delay: How long to wait; zero or negative means as soon as possible.
    ///   - work: The work to run.
    /// - Returns: A handle that cancels the work if it has not started.
    func executeAfter(_ delay: Duration, _ work: @escaping @Sendable () -> Void) -> ScheduledWork

    /// An identity shared by all work this context runs, or `nil`.
    ///
    /// When a callback running on this context resolves a promise whose dependents also use
    /// this context, those dependents run right after the callback returns, in the same turn.
    /// A three-link chain on one serial queue then costs one queue hop, not three.
    var executionContextID: ObjectIdentifier? { get }

    /// Runs library work (a promise callback, a timer): ``ContextJob/run()`` it, or
    /// ``ContextJob/refuse()`` it when the context will not run work any more. The default
    /// runs it with ``execute(_:)``. The contract is described in `ExecutionContext+Contract.swift`.
    ///
    /// - Parameter job: The work.
    func submit(_ job: ContextJob)

    /// Runs library work after `delay`, or refuses it. The default uses ``executeAfter(_:_:)``.
    ///
    /// - Parameters:
    ///   - job: The work.
    ///   - delay: How long to wait first.
    /// - Returns: A handle that cancels the job if it has not started.
    func submit(_ job: ContextJob, after delay: Duration) -> ScheduledWork

    /// Whether the context wants to hear when callbacks start and stop waiting for it
    /// (``callbackBeganWaiting()``, ``callbackStoppedWaiting()``). The default is `false`.
    var keepsAliveWhileCallbacksWait: Bool { get }

    /// A callback bound to this context now waits on a pending promise.
    func callbackBeganWaiting()

    /// A callback announced with ``callbackBeganWaiting()`` was handed to the context, or
    /// can never be (its promise was dropped and its rejection delivered).
    func callbackStoppedWaiting()
}

extension ExecutionContext {
    /// Waits on an internal dispatch timer, then calls ``execute(_:)``.
    @_alwaysEmitIntoClient
    public func executeAfter(_ delay: Duration, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        CancellableWork.schedule(on: timerQueue, after: delay) { self.execute(work) }
    }

    /// `nil`: every callback is submitted with ``execute(_:)``.
    @_alwaysEmitIntoClient
    public var executionContextID: ObjectIdentifier? { nil }
}

/// The queue whose timers back ``ExecutionContext/executeAfter(_:_:)`` for contexts without a clock.
@usableFromInline
let timerQueue = DispatchQueue(label: "swift-promise.timers")
