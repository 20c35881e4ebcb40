public import Synchronization

/// Set when the promise of an adapter's job is cancelled; the job checks it between steps
/// (PromiseFS between chunks, PromiseSQLite before each statement and row).
// Inlinable: adapters check it once per statement or chunk, across the module boundary.
@usableFromInline
package final class CancelFlag: Sendable {
    @usableFromInline let flag = Atomic<Bool>(false)

    /// A flag that is not set.
    package init() {}

    /// Sets the flag; it stays set.
    @inlinable
    package func set() { flag.store(true, ordering: .releasing) }

    /// Whether the flag is set.
    @inlinable
    package var isSet: Bool { flag.load(ordering: .acquiring) }

    /// Throws `CancellationError` if the flag is set.
    @inlinable
    package func check() throws(CancellationError) {
        if isSet { throw CancellationError() }
    }
}
