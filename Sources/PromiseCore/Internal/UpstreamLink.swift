internal import CPromiseRuntime

// A derived promise's link to the promise it waits for (`Promise.upstream`) is what upward
// cancellation walks. It must not keep the source alive: a pending source that nobody else
// holds has to be deallocated, so that its dependents are rejected as broken. A `weak`
// reference does that, but every weak reference to a native object allocates a side table
// (an aligned allocation, about 300 instructions a link, a third of a pending chain's cost).
//
// The link is an `unowned(unsafe)` reference instead, kept valid by one rule:
//
//   While `child.upstream` points at a source, the source's deinitializer has not returned.
//
// It holds because every link is cleared, under the child's lock, before its source can go:
// - A link made by a subscription (`subscribe(_:linking:)`: `then`, `timeout`, `delay`,
//   `get()`) is set inside the source's lock, together with the callback whose owner is the
//   child. The source clears it (`unlinkUpstream(from:)`) when it takes that callback to
//   deliver it, or in its deinitializer when it breaks it; either way before the source can
//   be released.
// - `adopt(_:)` links to a promise returned from a callback through an inline callback that
//   resolves the adopting promise (which clears the link) before the inner promise's
//   delivery or deinitializer returns.
// - A combinator links to its `Combination`, which the combined promise's own `onCancel`
//   handler holds until the combined promise settles, and settling clears the link.
// - Settling the child clears the link.
//
// So reading a link under the child's lock always finds valid memory, but the source's
// deinitializer may have begun (its strong count reached zero and it is about to clear the
// link). `retainedIfAlive(_:)` takes a strong reference only if it has not: the runtime's
// `swift_tryRetain`, the same check a weak reference makes when it is loaded.

/// `node` retained, or `nil` when its deinitializer has begun. Call it only for a link read
/// under its owner's lock (see the rule above), where the node's memory is valid.
@usableFromInline
func retainedIfAlive(_ node: (any PromiseNode)?) -> (any PromiseNode)? {
    guard let node else { return nil }
    // Reading the link into `node` retained it, which is harmless even during the node's
    // deinitializer (its memory stays valid and the count is balanced again below). What
    // decides is whether the runtime grants a new strong reference.
    let object = Unmanaged.passUnretained(node as AnyObject)
    guard promise_retain_if_alive(object.toOpaque()) else { return nil }
    object.release()
    return node
}
