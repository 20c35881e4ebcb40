internal import CUV
internal import Glibc
import PromiseCore

/// How a loop learns that one of its children exited, so that it reaps it with `waitpid` on
/// that child's own pid (never `waitpid(-1)`: children this program starts otherwise stay
/// its own to reap).
package enum ChildReaping: Sendable, Equatable {
    /// A pidfd per child (Linux 5.3), which the loop polls: it becomes readable at the exit,
    /// and no signal is involved, so SIGCHLD's action stays the program's.
    case processDescriptor
    /// SIGCHLD, through a libuv signal watch on each loop that has such children, then
    /// `waitpid` of each of them: for kernels without pidfds, and for a child whose pidfd
    /// could not be opened (no descriptor left).
    case childSignal

    /// What a spawn uses: ``processDescriptor`` when the kernel has pidfds.
    static var current: ChildReaping { chosen.withLock { $0 } ?? detected }

    /// Whether this kernel opens pidfds, tried once on this process's own pid.
    private static let detected: ChildReaping = {
        let descriptor = cuv_pidfd_open(getpid())
        guard descriptor >= 0 else { return .childSignal }
        _ = close(descriptor)
        return .processDescriptor
    }()

    private static let chosen = Lock<ChildReaping?>(nil)

    /// Makes every later spawn of this process use `reaping`, as on a kernel without pidfds
    /// (for a test process of its own; children already running keep theirs).
    ///
    /// - Parameter reaping: The way to use, or `nil` for the detected one.
    package static func use(_ reaping: ChildReaping?) {
        chosen.withLock { $0 = reaping }
    }
}

/// A loop's SIGCHLD watch (``ChildReaping/childSignal``): open while at least one of the
/// loop's children relies on it; each SIGCHLD has every such child try `waitpid` on its pid.
///
/// Not `Sendable`: loop thread only, owned by its ``LoopCore``. The handle's `data` holds a
/// reference to it from `uv_signal_init` to its close callback.
final class ChildSignalWatch {
    let handle: UnsafeMutablePointer<uv_signal_t>
    let core: LoopCore
    /// How many of the loop's children are reaped through this watch and not yet reaped.
    private(set) var waiting = 0

    /// Opens and starts the watch; `nil` when libuv refuses it (its status in `status`).
    init?(core: LoopCore, status: inout Int32) {
        self.core = core
        handle = .allocate(capacity: 1)
        handle.initialize(to: uv_signal_t())
        status = uv_signal_init(core.loop, handle)
        guard status == 0 else {
            handle.deallocate()
            return nil
        }
        handle.pointee.data = Unmanaged.passRetained(self).toOpaque()
        core.handleOpened()
        status = uv_signal_start(handle, ProcessTrampolines.childSignal, SIGCHLD)
        guard status == 0 else {
            uv_close(cuv_signal_as_handle(handle), ProcessTrampolines.childSignalClosed)
            return nil
        }
    }

    /// A child now waits on this watch.
    func add() {
        waiting += 1
    }

    /// A child waiting on this watch was reaped. Returns `true` when it was the last: the
    /// watch is closed (its SIGCHLD handler stopped at once, by libuv).
    func remove() -> Bool {
        precondition(waiting > 0, "a child left a SIGCHLD watch it never joined")
        waiting -= 1
        guard waiting == 0 else { return false }
        uv_close(cuv_signal_as_handle(handle), ProcessTrampolines.childSignalClosed)
        return true
    }
}

extension LoopCore {
    /// Has `child` reaped through the loop's SIGCHLD watch, opening it for the first
    /// (loop thread). Returns libuv's error when the watch cannot be opened.
    func watchChildSignal() -> Int32 {
        if childSignalWatch == nil {
            var status: Int32 = 0
            guard let watch = ChildSignalWatch(core: self, status: &status) else { return status }
            childSignalWatch = watch
        }
        childSignalWatch!.add()
        return 0
    }

    /// A child reaped through the SIGCHLD watch no longer needs it (loop thread).
    func unwatchChildSignal() {
        guard let watch = childSignalWatch else { preconditionFailure("a child left a SIGCHLD watch the loop does not have") }
        if watch.remove() { childSignalWatch = nil }
    }

    /// SIGCHLD arrived: every child of this loop that has exited is reaped (loop thread).
    func childSignalArrived() {
        for child in Array(children.values) { child.reapIfExited() }
    }
}
