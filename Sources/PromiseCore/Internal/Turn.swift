internal import Glibc

/// Per-thread bookkeeping for the callback drain loop.
///
/// A `Turn` is owned by exactly one thread (it is reached only through a thread-specific key),
/// so its fields need no lock, and no run-time exclusivity checks either: those cost about 60
/// instructions on each drain.
@usableFromInline
final class Turn {
    /// The context whose work this thread is running right now, if the library started that work.
    @usableFromInline @exclusivity(unchecked) var currentContextID: ObjectIdentifier?
    /// True while this thread is inside a drain loop; promises resolved meanwhile queue up in `queue`.
    @exclusivity(unchecked) var draining = false
    /// How many deliveries are nested inside the current drain (see `Scheduler.beginDelivery`).
    @exclusivity(unchecked) var nesting = 0
    /// How many callbacks for settled promises are running nested (see
    /// `Scheduler.inlineDepthLimit`).
    @usableFromInline @exclusivity(unchecked) var inlineDepth = 0
    /// Promises resolved during the current drain whose callbacks still have to be delivered.
    @exclusivity(unchecked) var queue: [any PromiseNode] = []
    @exclusivity(unchecked) var head = 0

    /// The calling thread's turn, created on first use and released when the thread exits.
    @usableFromInline
    static var current: Turn {
        if let raw = pthread_getspecific(turnKey) {
            return Unmanaged<Turn>.fromOpaque(raw).takeUnretainedValue()
        }
        let turn = Turn()
        pthread_setspecific(turnKey, Unmanaged.passRetained(turn).toOpaque())
        return turn
    }
}

/// The thread-specific key behind `Turn.current`; its destructor releases the thread's turn.
private let turnKey: pthread_key_t = {
    var key = pthread_key_t()
    let status = pthread_key_create(&key) { raw in
        guard let raw else { return }
        Unmanaged<Turn>.fromOpaque(raw).release()
    }
    precondition(status == 0, "swift-promise: pthread_key_create failed (\(status)); the process is out of thread-specific keys")
    return key
}()
