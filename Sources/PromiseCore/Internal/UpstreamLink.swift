// A derived promise's link to the promise it waits for (`Promise.upstream`) is what upward
// cancellation and `awaitPromise`'s deadlock check walk. What it may hold depends on who
// settles the source, which the source says in its `linkage`:
//
// - `.held`: something always settles the source. Its resolver (released unsettled, it
//   breaks the promise), the callback of the promise it derives from (delivered, broken with
//   its source, or rejected when its context refuses the job), or the job or timer of an
//   operator (run, or refused). The link is a strong reference: holding the source cannot keep
//   it pending, because nothing waits for the source to be deallocated.
// - `.watched`: an adapter's promise (`Promise.pending(resolvedOn:)`), which the adapter
//   holds and settles, and which is broken when the adapter drops it unsettled, by its
//   deinitializer. A strong link would keep such a promise alive, and its dependents pending
//   forever. The link is a `WatchedSource`, a weak reference to it: the promise's
//   deinitializer runs, and the link finds nothing from then on.
//
// A strong link and the source's callback, which holds the child, make a cycle while both are
// pending. It ends when either settles:
// - The source hands its callbacks over, or breaks them in its deinitializer, and clears each
//   owner's link first (`CallbackList.dispatchAll`, `PromiseNode.unlinkUpstream(from:)`).
// - The child settles (a resolver, `cancel()`, a timeout): it takes its link, withdraws from
//   the source when it settled from outside, and releases the link outside its lock.
// - A combinator's promise links to its `Combination`, which holds its inputs weakly.
//
// Every link is read and written under the child's lock, and a link taken out of it is
// released after the lock: releasing the last reference to a source runs its deinitializer,
// which may take the locks of its dependents.

/// A consumer's weak link to an adapter's promise (``Linkage/watched``): what upward
/// cancellation and the deadlock check reach through it, while the promise lives.
///
/// One is made per linked consumer of such a promise, so promises that the library settles
/// (``Linkage/held``, every operator's) pay nothing for it. Its methods forward to the
/// promise, and do nothing once it is gone.
@usableFromInline
final class WatchedSource: PromiseNode {
    /// The adapter's promise; `nil` once its deinitializer has begun.
    @usableFromInline weak let source: (any PromiseNode)?
    /// The promise's identity, kept for ``links(to:)``: its deinitializer clears the links
    /// to it after `source` already reads `nil`.
    @usableFromInline let sourceID: ObjectIdentifier

    @usableFromInline
    init(_ source: any PromiseNode) {
        self.source = source
        sourceID = ObjectIdentifier(source)
    }

    @usableFromInline func deliverCallbacks(in turn: Turn) {}
    @usableFromInline func withdrawConsumer() -> (any PromiseNode)? { source?.withdrawConsumer() }
    @usableFromInline func abandon() {}
    @usableFromInline var resolverInfo: ResolverInfo { source?.resolverInfo ?? .settled }
    @usableFromInline var linkTarget: (any PromiseNode)? { source }
    @usableFromInline func links(to source: ObjectIdentifier) -> Bool { sourceID == source }
}
