public import Synchronization

/// Whether a thread advisor (``ContextRegistry/registerThreadAdvisor(_:)``) was ever registered.
@usableFromInline
let threadAdvisorsRegistered = Atomic<Bool>(false)

/// Whether a ``WaitingThreadRunner`` was ever registered.
@usableFromInline
let waitingThreadRunnersRegistered = Atomic<Bool>(false)

/// Contexts that advise blocking waits, by ``ExecutionContext/executionContextID``.
@_spi(ContextContract)
public enum ContextRegistry {
    @usableFromInline
    struct Entry {
        @usableFromInline weak var advisor: (any BlockingWaitAdvisor)?

        @_alwaysEmitIntoClient
        init(advisor: any BlockingWaitAdvisor) { self.advisor = advisor }
    }
    @usableFromInline static let entries = Lock<[ObjectIdentifier: Entry]>([:])

    /// Registers `advisor` for the context identified by `id`, until ``unregister(_:)`` or
    /// the advisor's deallocation.
    ///
    /// - Parameters:
    ///   - advisor: What to ask.
    ///   - id: The context's ``ExecutionContext/executionContextID``.
    @_alwaysEmitIntoClient
    public static func register(_ advisor: any BlockingWaitAdvisor, for id: ObjectIdentifier) {
        if advisor is any WaitingThreadRunner { waitingThreadRunnersRegistered.store(true, ordering: .releasing) }
        entries.withLock { $0[id] = Entry(advisor: advisor) }
    }

    /// Removes the advisor registered for `id`.
    ///
    /// - Parameter id: The context's ``ExecutionContext/executionContextID``.
    @_alwaysEmitIntoClient
    public static func unregister(_ id: ObjectIdentifier) {
        entries.withLock { _ = $0.removeValue(forKey: id) }
    }

    /// The advisors asked before every blocking wait, whatever the awaited chain needs.
    @usableFromInline static let threadAdvisors = Lock<[any BlockingWaitAdvisor]>([])

    /// Registers `advisor` to be asked before every blocking wait, for the rest of the
    /// process, whatever contexts the awaited chain needs: for threads that must never block,
    /// such as another library's event loops, where a wait could stall work the chain does not
    /// show (a future of that loop behind a resolver). Its ``BlockingWaitAdvisor/adviseBlockingWait()``
    /// runs on the waiting thread and answers ``BlockingWaitAdvice/deadlock(reason:)`` for such
    /// a thread, ``BlockingWaitAdvice/block`` otherwise; `drive` is treated as `block`.
    /// Registering the same advisor object again does nothing.
    ///
    /// - Parameter advisor: What to ask; held until the process exits.
    @_alwaysEmitIntoClient
    public static func registerThreadAdvisor(_ advisor: any BlockingWaitAdvisor) {
        threadAdvisors.withLock { advisors in
            guard !advisors.contains(where: { $0 === advisor }) else { return }
            advisors.append(advisor)
        }
        threadAdvisorsRegistered.store(true, ordering: .releasing)
    }

    /// The reason the calling thread must not block, from the first thread advisor that
    /// names one, with that advisor's context name.
    static func threadRefusesBlocking() -> (context: String, reason: String)? {
        guard threadAdvisorsRegistered.load(ordering: .acquiring) else { return nil }
        for advisor in threadAdvisors.withLock({ $0 }) {
            if case .deadlock(let reason) = advisor.adviseBlockingWait() { return (advisor.contextName, reason) }
        }
        return nil
    }

    /// Whether a ``WaitingThreadRunner`` was ever registered: until then a wait asks nothing,
    /// so a program that has none pays one atomic load per wait.
    static var hasWaitingThreadRunners: Bool { waitingThreadRunnersRegistered.load(ordering: .acquiring) }

    /// The runner registered for `id`, if one is and it is still alive.
    static func waitingThreadRunner(for id: ObjectIdentifier) -> (any WaitingThreadRunner)? {
        advisor(for: id) as? any WaitingThreadRunner
    }

    /// The advisor registered for `id`, if it is still alive.
    static func advisor(for id: ObjectIdentifier) -> (any BlockingWaitAdvisor)? {
        entries.withLock { $0[id]?.advisor }
    }
}
