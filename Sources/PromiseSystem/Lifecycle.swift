/// The life of an owner of a thread or a resource (PromiseCurl's driver, a SQLite connection's
/// thread, PromiseFS's pool): `open`, then `draining` once a shutdown was asked for (queued
/// work still runs, new work is refused), then `closed` with how the shutdown went.
///
/// A pure value, kept under the owner's lock: each transition returns what the owner must do
/// next, and the owner does it after the lock is released (wake its thread, settle waiters).
/// `Waiter` is what a shutdown caller waits on, a promise in the adapters.
package struct Lifecycle<Waiter, Failure: Error> {
    /// Where the owner is in its life.
    package enum Phase {
        /// Accepting work.
        case open
        /// Refusing new work; what was accepted still runs.
        case draining
        /// Done; the shutdown ended with this result.
        case closed(Result<Void, Failure>)
    }

    /// What a shutdown call must do.
    package enum ShutdownStep {
        /// The first call: start draining (queue the close, wake the threads). The waiter is kept.
        case begin
        /// Draining already began; the waiter is kept and settled by ``finish(_:)``.
        case wait
        /// Already closed: settle the waiter at once with this result; it was not kept.
        case settled(Result<Void, Failure>)
    }

    /// Where the owner is now.
    package private(set) var phase: Phase = .open {
        didSet {
            isAccepting = if case .open = phase { true } else { false }
            isClosed = if case .closed = phase { true } else { false }
        }
    }

    /// Whether new work is accepted. A stored copy of what ``phase`` says, not a computed
    /// property: an owner in another module reads it directly, where a call to a getter of
    /// this generic type looks up its metadata on every request (about 900 instructions; an
    /// `@inlinable package` getter is not inlined into the adapters' modules).
    package private(set) var isAccepting = true

    /// Whether the owner is closed, stored for the same reason as ``isAccepting``.
    package private(set) var isClosed = false

    /// The error for work offered once the owner no longer accepts it.
    package private(set) var refusal: Failure
    private var waiters: [Waiter] = []

    /// An open owner.
    ///
    /// - Parameter refusal: The error work gets once a shutdown began (for example "the
    ///   database was closed; open a new SQLiteDatabase").
    package init(refusal: Failure) {
        self.refusal = refusal
    }

    /// How many shutdown callers wait.
    package var waiterCount: Int { waiters.count }

    /// Admits one piece of work: succeeds while open, fails with ``refusal`` afterwards. A
    /// call from another module runs unspecialized; an owner's per-request check reads
    /// ``isAccepting`` instead.
    ///
    /// - Returns: Success, or the refusal.
    package func admit() -> Result<Void, Failure> {
        isAccepting ? .success(()) : .failure(refusal)
    }

    /// The owner never started (its thread could not be created): closed at once, successfully
    /// (there is nothing to shut down), and work is refused with `refusal`. Does nothing
    /// unless the owner is still open.
    ///
    /// - Parameter refusal: Why work cannot run.
    package mutating func failedToStart(_ refusal: Failure) {
        guard isAccepting else { return }
        self.refusal = refusal
        phase = .closed(.success(()))
    }

    /// Asks for a shutdown on behalf of `waiter`.
    ///
    /// - Parameter waiter: What the caller waits on.
    /// - Returns: What to do: see ``ShutdownStep``.
    package mutating func shutdown(_ waiter: Waiter) -> ShutdownStep {
        switch phase {
        case .open:
            phase = .draining
            waiters.append(waiter)
            return .begin
        case .draining:
            waiters.append(waiter)
            return .wait
        case .closed(let result):
            return .settled(result)
        }
    }

    /// The owner has drained and released its resources: closed with `result`.
    ///
    /// - Parameter result: How the shutdown went.
    /// - Returns: The waiters to settle with `result`, once the lock is released. Empty when
    ///   the owner was closed already (the first result stands).
    package mutating func finish(_ result: Result<Void, Failure>) -> [Waiter] {
        if case .closed = phase { return [] }
        phase = .closed(result)
        defer { waiters = [] }
        return waiters
    }
}
