internal import Glibc
internal import Synchronization

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
    @exclusivity(unchecked) var draining: Bool
    /// How many deliveries are nested inside the current drain (see `Scheduler.beginDelivery`).
    @exclusivity(unchecked) var nesting: Int
    /// How many callbacks for settled promises are running nested (see
    /// `Scheduler.inlineDepthLimit`).
    @exclusivity(unchecked) var inlineDepth: Int
    /// Promises resolved during the current drain whose callbacks still have to be delivered.
    @exclusivity(unchecked) var queue: [any PromiseNode]
    @exclusivity(unchecked) var head: Int
    /// The carriers of the batched turn this thread runs, if it runs one (see
    /// `Scheduler.runBatchedTurn`).
    @exclusivity(unchecked) var hops: HopBatch?

    // Set here rather than by initial values, each of which would be a function of the module
    // (the class is `@usableFromInline`) that every program carries.
    init() {
        currentContextID = nil
        draining = false
        nesting = 0
        inlineDepth = 0
        queue = []
        head = 0
        hops = nil
    }

    /// The calling thread's turn, created on first use and released when the thread exits.
    @usableFromInline
    static var current: Turn {
        let key = turnKey
        if let raw = pthread_getspecific(key) {
            return Unmanaged<Turn>.fromOpaque(raw).takeUnretainedValue()
        }
        let turn = Turn()
        pthread_setspecific(key, Unmanaged.passRetained(turn).toOpaque())
        return turn
    }
}

/// The thread-specific key behind `Turn.current`, plus one (0: not created yet). A
/// constant-initialized atomic rather than a lazily initialized global, whose every read goes
/// through `swift_once`: `Turn.current` is read several times per delivery.
private let turnKeyPlusOne = Atomic<UInt64>(0)

/// The thread-specific key behind `Turn.current`, created on first use; its destructor
/// releases a thread's turn.
private var turnKey: pthread_key_t {
    let known = turnKeyPlusOne.load(ordering: .acquiring)
    if known != 0 { return pthread_key_t(known - 1) }
    return createTurnKey()
}

@inline(never)
private func createTurnKey() -> pthread_key_t {
    var key = pthread_key_t()
    let status = pthread_key_create(&key) { raw in
        guard let raw else { return }
        Unmanaged<Turn>.fromOpaque(raw).release()
    }
    precondition(status == 0, "swift-promise: pthread_key_create failed (\(status)); the process is out of thread-specific keys")
    let (exchanged, original) = turnKeyPlusOne.compareExchange(
        expected: 0, desired: UInt64(key) + 1, ordering: .acquiringAndReleasing)
    if exchanged { return key }
    // Another thread created one first: use that one (no thread can have a value under ours).
    pthread_key_delete(key)
    return pthread_key_t(original - 1)
}
