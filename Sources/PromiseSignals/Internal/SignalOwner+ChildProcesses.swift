// SIGCHLD, the one signal the owner never watches. A loop learns of its children's exits
// through their pidfds, which need no signal, but only while SIGCHLD is not ignored (an
// ignored SIGCHLD has the kernel reap children itself, and their status is lost); on a kernel
// without pidfds a loop watches SIGCHLD through libuv, which installs its own handler and
// resets the action to the default when its last watch stops. This part of the owner keeps
// the action that was there before the first child, replaces an ignoring one with the default
// while children run, and puts the first back after the last, so child processes leave
// SIGCHLD as they found it.
import Glibc
import PromiseCore

extension SignalOwner {
    /// Children that PromiseUV has spawned (on any loop) and not yet closed, and the SIGCHLD
    /// action from before the first of them.
    private static let children = Lock(ChildSignalLease<sigaction>())

    /// Call before each spawn, on the thread that runs the loop: the first child of the
    /// process records SIGCHLD's action, and replaces it with the default if it ignores
    /// SIGCHLD (`SIG_IGN`, or `SA_NOCLDWAIT`). The calling thread unblocks SIGCHLD: a loop that
    /// watches it learns of every exit through it, and a program started with it blocked
    /// (`posix_spawn` from a Dispatch worker thread passes on a mask with every signal
    /// blocked) would otherwise never see its children exit. One thread that accepts it is
    /// enough: libuv's handler only tells the loops, which reap.
    package static func beginChildProcess() {
        children.withLock { lease in
            guard lease.childStarted() else { return }
            var current = sigaction()
            sigaction(SIGCHLD, nil, &current)
            let handler = current.__sigaction_handler.sa_handler.map { unsafeBitCast($0, to: Int.self) } ?? 0
            let ignores = handler == unsafeBitCast(SIG_IGN, to: Int.self) || current.sa_flags & SA_NOCLDWAIT != 0
            if lease.record(current, ignoresChildren: ignores) == .installDefault {
                var standard = sigaction()
                sigaction(SIGCHLD, &standard, nil)
            }
        }
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGCHLD)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// Call once a spawned child is reaped and nothing watches for its exit any more (a loop
    /// whose SIGCHLD watch served it has closed that watch if this was its last child): the
    /// last child of the process puts back the recorded action.
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

    /// What to do with SIGCHLD's action while children run.
    enum RecordAction: Equatable {
        /// Leave it.
        case keep
        /// Replace it with the default: it ignores SIGCHLD, so the kernel would reap the
        /// children itself and their statuses would be lost.
        case installDefault
    }

    /// Keeps the action from before the first child, which `ignoresChildren` says of
    /// (`SIG_IGN` or `SA_NOCLDWAIT`), and says what to do with it meanwhile.
    mutating func record(_ action: SavedAction, ignoresChildren: Bool) -> RecordAction {
        previous = action
        return ignoresChildren ? .installDefault : .keep
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
