// LoopCore's part in the deinit policy of owners (`DroppedOwner`): a `UVLoop` deallocated
// without `shutdown()`. Split from LoopCore.swift by concern.
internal import PromiseSystem

extension LoopCore {
    /// The `UVLoop` was deallocated without `shutdown()` (any thread): shuts the loop down as
    /// `shutdown()` does (`DroppedOwner`'s policy). A thread running the loop does it
    /// there; when none does, nobody can any more (the `UVLoop` is gone, and with it ``UVLoop/run()``
    /// and ``UVLoop/startThread(named:)``), so the calling thread claims the loop as
    /// `shutdown()` would and runs it to its close before returning.
    func dropOwner() {
        let (promise, drive) = requestShutdown(dropped: true)
        // Its failure is reported by `reportDrop`, not as an unhandled rejection.
        promise.catch(on: .inline) { _ in }
        if drive { self.drive() }
    }

    /// Loop thread, at the close of a loop dropped without `shutdown()`: reports what the
    /// shutdown rejected and a failed close, if anything, as `DroppedOwner` words it.
    func reportDrop(_ name: String, _ result: Result<Void, UVError>) {
        let dropped = DroppedOwner("UVLoop", named: name, call: "shutdown()")
        let lostAtShutdown = machine.lost ?? LoopStateMachine.Lost()
        let rejected = DroppedOwner.rejected(
            [
                (lostAtShutdown.timers, "pending timer", "pending timers"),
                (lostAtShutdown.work, "pool job not started", "pool jobs not started"),
                (lostAtShutdown.signals, "signal watch", "signal watches"),
                (lostAtShutdown.fileWatches, "file watch", "file watches"),
                (lostAtShutdown.processes, "running child process (killed)", "running child processes (killed)"),
            ], code: "loopClosed (core delay and timeout timers with contextInvalidated)")
        var lost = rejected.map { [$0] } ?? []
        if case .failure(let error) = result { lost.append("closing it failed, and its libuv memory is leaked: \(error)") }
        guard !lost.isEmpty else { return }
        dropped.report(UVError(.loopClosed, operation: "deinit", detail: dropped.message(lost.joined(separator: "; "))))
    }

    /// How a report names a loop that no named thread runs: `loop 0x55d0c3a4e2b0`, the hex
    /// of its ``UVLoop/executionContextID``.
    var identity: String { "loop 0x" + String(UInt(bitPattern: contextID), radix: 16) }
}
