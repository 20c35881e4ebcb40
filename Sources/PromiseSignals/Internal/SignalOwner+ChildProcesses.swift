// SIGCHLD, the one signal the owner never watches: libuv's `uv_spawn` installs its own handler
// for it while a child runs, and resets it to the default when the last one is closed. This
// part of the owner keeps the action that was there before the first child and puts it back
// after the last, so child processes leave SIGCHLD as they found it.
import Glibc
import PromiseCore

extension SignalOwner {
    /// Children that PromiseUV has spawned (on any loop) and not yet closed, and the SIGCHLD
    /// action from before the first of them.
    private static let children = Lock(ChildSignalLease<sigaction>())

    /// Call before each `uv_spawn`, on the thread that runs the loop: the first child of the
    /// process records SIGCHLD's action, and the calling thread unblocks SIGCHLD. libuv learns
    /// of every exit through it; a program started with it blocked (`posix_spawn` from a
    /// Dispatch worker thread passes on a mask with every signal blocked) would otherwise
    /// never see its children exit. One thread that accepts it is enough: libuv's handler only
    /// tells the loop, which reaps.
    package static func beginChildProcess() {
        children.withLock { lease in
            guard lease.childStarted() else { return }
            var current = sigaction()
            sigaction(SIGCHLD, nil, &current)
            lease.record(current)
        }
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGCHLD)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// Call after `uv_close` of a process handle (libuv has stopped its SIGCHLD handler if
    /// this was its last child): the last child puts back the recorded action.
    package static func endChildProcess() {
        children.withLock { lease in
            guard var previous = lease.childClosed() else { return }
            sigaction(SIGCHLD, &previous, nil)
        }
    }

    /// How many spawned children are not yet closed (for tests).
    package static var childProcessCount: Int { children.withLock { $0.count } }
}

/// How many children are open, and SIGCHLD's action before the first of them. A value that
/// says when to record the action and when to put it back; ``SignalOwner`` makes the calls.
struct ChildSignalLease<SavedAction>: ~Copyable {
    private(set) var count = 0
    private var previous: SavedAction?

    init() {}

    /// A child starts. Returns `true` for the first: the action in place now must be kept
    /// with ``record(_:)``.
    mutating func childStarted() -> Bool {
        count += 1
        return count == 1
    }

    /// Keeps the action from before the first child.
    mutating func record(_ action: SavedAction) {
        previous = action
    }

    /// A child was closed. Returns the action to put back when it was the last.
    mutating func childClosed() -> SavedAction? {
        guard count > 0 else { preconditionFailure("a child process was closed that never started") }
        count -= 1
        guard count == 0 else { return nil }
        defer { previous = nil }
        return previous
    }
}
