/// The wait of one teardown step; when it ends with the child still running, the next step
/// goes. A shutdown that abandons it sends `SIGKILL` at once.
///
/// `@unchecked Sendable`: as for ``TimerEntry``; `child` is read and cleared on the loop thread.
final class TeardownTimer: TimerEntry, @unchecked Sendable {
    var child: ChildProcess?

    init(child: ChildProcess) {
        self.child = child
    }

    override func fire() {
        let child = self.child
        self.child = nil
        child?.teardownStepElapsed()
    }

    override func abandon() {
        let child = self.child
        self.child = nil
        child?.teardownAbandoned()
    }
}
