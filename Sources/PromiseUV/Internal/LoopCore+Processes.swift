// LoopCore's child processes (``UVLoop/spawn(_:)``), split from LoopCore.swift by concern:
// what a shutdown does to the children still running.
extension LoopCore {
    /// Shutdown (loop thread): kills every running child with `SIGKILL`; each promise settles
    /// with ``UVError/Code-swift.struct/loopClosed`` once its child is reaped, and the loop
    /// closes only after that (every process handle counts in `openHandles`).
    ///
    /// A child that has exited but whose output pipes a process it started still holds open
    /// is not waited for: its pipes are closed and its promise rejected the same way.
    ///
    /// - Returns: How many children had not been asked to stop before.
    func abandonProcesses() -> Int {
        var lost = 0
        for child in Array(children.values) {
            if !child.isStopping { lost += 1 }
            child.requestStop(.shutdown)
        }
        return lost
    }
}
