/// What happened when a promise's resolution was applied under its lock, for the work that
/// follows outside it. Not nested in `Promise`, so it is one type for every value type.
@usableFromInline
struct Settlement {
    /// The cancel handlers, taken out of the state in every case so that they are
    /// released outside the lock.
    @usableFromInline var handlers: [CancelHandler]
    /// Whether the handlers run: the promise was cancelled.
    @usableFromInline var runHandlers: Bool
    /// Whether callbacks wait to be delivered.
    @usableFromInline var deliver: Bool
    /// The source to withdraw from, taken from the upstream link.
    @usableFromInline var upstream: (any PromiseNode)?

    @_alwaysEmitIntoClient
    init() {
        handlers = []
        runHandlers = false
        deliver = false
        upstream = nil
    }
}
