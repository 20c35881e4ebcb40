internal import CSQLite
import Glibc
public import PromiseSystem

/// Watches the running job's cancellation flag from inside SQLite, on the connection thread:
///
/// - As the busy handler, it waits for another connection's lock the way
///   `sqlite3_busy_timeout` does (short sleeps up to the timeout), but gives up as soon as the
///   job is cancelled. SQLite's own busy handler never looks at `sqlite3_interrupt`, so a
///   cancelled statement would keep the connection blocked for the whole timeout.
/// - As the progress handler, it stops a statement whose job was cancelled. `sqlite3_interrupt`
///   alone can miss: an interrupt that lands after the job checked its flag but before its
///   first `sqlite3_step` is cleared by that step (no statement was running yet), and the
///   statement would run to its end.
@usableFromInline
final class BusyWaiter {
    /// The busy timeout, in milliseconds.
    var timeout = 5000
    /// The cancellation flag of the job running now.
    @usableFromInline var cancel: CancelFlag?
    private var started = ContinuousClock.now

    /// Sleeps in growing steps (1 ms up to 25 ms) between attempts.
    private static let steps = [1, 2, 5, 10, 15, 20, 25]

    /// Whether SQLite should try again, after a short sleep; `false` gives up with SQLITE_BUSY.
    func shouldRetry(attempt: Int) -> Bool {
        if attempt == 0 { started = .now }
        if cancel?.isSet == true { return false }
        let waited = ContinuousClock.now - started
        let remaining = Duration.milliseconds(timeout) - waited
        guard remaining > .zero else { return false }
        let step = Duration.milliseconds(Self.steps[min(attempt, Self.steps.count - 1)])
        let sleep = min(step, remaining)
        SystemCall.sleep(nanoseconds: sleep.nanosecondsRoundedUp(cappedAt: Int64.max))
        return true
    }
}

/// Registers `waiter` as the connection's busy handler and progress handler (the module's C
/// callbacks), retained while registered.
///
/// - Returns: SQLite's status, and the retained context to hand to ``uninstallBusyHandler(_:_:)``.
func installBusyHandler(_ db: OpaquePointer, _ waiter: BusyWaiter) -> (status: Int32, context: UnsafeMutableRawPointer?) {
    let context = Unmanaged.passRetained(waiter).toOpaque()
    let status = sqlite3_busy_handler(
        db,
        { context, attempt in
            let waiter = Unmanaged<BusyWaiter>.fromOpaque(context!).takeUnretainedValue()
            return waiter.shouldRetry(attempt: Int(attempt)) ? 1 : 0
        }, context)
    guard status == SQLITE_OK else {
        Unmanaged<BusyWaiter>.fromOpaque(context).release()
        return (status, nil)
    }
    // Every 1 000 virtual-machine instructions: microseconds apart, a load and a branch each.
    sqlite3_progress_handler(
        db, 1000,
        { context in
            let waiter = Unmanaged<BusyWaiter>.fromOpaque(context!).takeUnretainedValue()
            return waiter.cancel?.isSet == true ? 1 : 0
        }, context)
    return (status, context)
}

/// Removes both handlers and releases their context, exactly once.
func uninstallBusyHandler(_ db: OpaquePointer, _ context: UnsafeMutableRawPointer?) {
    sqlite3_progress_handler(db, 0, nil, nil)
    sqlite3_busy_handler(db, nil, nil)
    if let context { Unmanaged<BusyWaiter>.fromOpaque(context).release() }
}
