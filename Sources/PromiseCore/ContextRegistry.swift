public import Synchronization

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
