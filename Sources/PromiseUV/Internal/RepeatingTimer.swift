internal import CUV
import PromiseCore

/// The timer behind `UVLoop.every`: fires every `interval` milliseconds, counted from when it
/// started (so its ticks do not drift), and puts itself back in the loop's timer queue after
/// each tick until it is cancelled.
///
/// `@unchecked Sendable`: as for the other timers, other threads only set `cancelled`; the
/// rest is read and written on the loop thread (or by the starting thread before the loop
/// ever saw the timer).
final class RepeatingTimer: TimerEntry, @unchecked Sendable {
    private let interval: UInt64
    private var onTick: (@Sendable (Int) -> Void)?
    private var onEnd: (@Sendable () -> Void)?
    private var anchor: UInt64 = 0
    private var nextTick = 1
    // Strong: the handle returned to the caller may outlive the loop object. The cycle through
    // the timer queue lasts only while the timer is pending.
    private let core: LoopCore

    init(
        core: LoopCore,
        interval: Duration,
        keepsLoopAlive: Bool,
        onTick: @escaping @Sendable (Int) -> Void,
        onEnd: @escaping @Sendable () -> Void
    ) {
        self.core = core
        // libuv counts milliseconds: a shorter interval would fire on every loop iteration.
        self.interval = max(1, interval.uvMilliseconds)
        self.onTick = onTick
        self.onEnd = onEnd
        super.init()
        self.keepsLoopAlive = keepsLoopAlive
    }

    /// Puts the timer in the queue for its first tick (loop thread). False when the loop is
    /// shutting down.
    func start() -> Bool {
        guard !core.isShuttingDown else { return false }
        uv_update_time(core.loop)
        anchor = uv_now(core.loop)
        schedule(now: anchor, first: true)
        return true
    }

    /// Starts the timer from the loop thread after another thread asked for it, unless it was
    /// cancelled meanwhile.
    func startIfNotCancelled() {
        guard !isCancelled else { return }
        if !start() { abandon() }
    }

    override func fire() {
        guard let onTick else { return }
        let tick = nextTick
        AdapterSupport.runTurn(core.contextID) { onTick(tick) }
        guard !isCancelled, !core.isShuttingDown else { return }
        uv_update_time(core.loop)
        schedule(now: uv_now(core.loop), first: false)
    }

    /// Queues the next tick: the first multiple of `interval` after `anchor` that is still
    /// ahead, so a loop that was busy for several intervals skips those ticks instead of firing
    /// them in a burst (the tick number says how many intervals have passed).
    private func schedule(now: UInt64, first: Bool) {
        let elapsed = (now &- anchor) / interval
        nextTick = max(first ? 1 : nextTick + 1, Int(clamping: elapsed + 1))
        let due = anchor &+ UInt64(nextTick) &* interval
        // One more millisecond, as for every timer: uv_now truncates, so a timer due "now + d"
        // could otherwise fire up to a millisecond early.
        core.timers.insert(self, duration: (due > now ? due - now : 0) + 1, now: now)
        core.armTimer()
    }

    override func abandon() {
        onTick = nil
        guard let onEnd else { return }
        self.onEnd = nil
        onEnd()
    }

    /// Stops the timer (any thread) and ends it: `onEnd` runs once, on the loop thread.
    func stop() {
        core.cancelTimer(self)
        if core.isOnLoopThread {
            abandon()
        } else if !core.submit(.late, { [self] in abandon() }) {
            // The loop is closed: abandon() already ran when it shut down, or runs now.
            abandon()
        }
    }
}
