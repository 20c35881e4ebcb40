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
    /// The upstream link, taken out under the lock: withdrawn from when the promise settled
    /// from outside, and released, in either case, after the lock.
    @usableFromInline var upstream: (any PromiseNode)?

    @_alwaysEmitIntoClient
    init() {
        handlers = []
        runHandlers = false
        deliver = false
        upstream = nil
    }
}

/// How a consumer links to a promise for upward cancellation: what it may hold. The rule and
/// why are in `Internal/UpstreamLink.swift`.
@usableFromInline
enum Linkage: Sendable {
    /// Something always settles the promise (its resolver, the callback of the promise it
    /// derives from, an operator's job or timer), so a consumer holds it.
    case held
    /// An adapter's promise, broken when the adapter drops it unsettled, so a consumer reaches
    /// it through a ``WatchedSource``, which does not keep it alive.
    case watched
}

/// Who settles a promise, which decides what settling does besides recording the result.
@usableFromInline
enum Settler {
    /// Code outside the chain: a resolver, ``Promise/cancel()``, a timer, an adapter. The
    /// promise withdraws from the promise it waits for, if any (cancelling that one when no
    /// other consumer is left), and its callbacks run after the current drain.
    case outside
    /// The library, once the callback or work it ran for this promise returned: forwarding
    /// what the promise this one waits for delivered, what a callback made of it, or what the
    /// work of ``Promise/init(on:work:)-(_,()->Value)`` returned. Any link to the promise it
    /// waited for is spent (that one has settled), so there is nothing to withdraw from, and
    /// the callbacks may run at once, nested in the current drain up to a small depth.
    case chain
}
