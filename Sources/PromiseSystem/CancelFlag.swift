public import Synchronization

/// Set when the promise of an adapter's job is cancelled; the job checks it between steps
/// (PromiseFS between chunks, PromiseSQLite before each statement and row).
///
/// It also records whether the job has started, for an adapter that settles a cancelled
/// job's promise itself (`onCancelRequestFromLibrary`): a cancellation that comes first
/// settles the promise, one that comes later leaves that to the running job. One atomic byte
/// holds both, so a job costs one allocation for its flag.
// Inlinable: adapters check it once per statement or chunk, across the module boundary.
@usableFromInline
package final class CancelFlag: Sendable {
    @usableFromInline static let cancelled: UInt8 = 1
    @usableFromInline static let started: UInt8 = 2

    @usableFromInline let bits = Atomic<UInt8>(0)

    /// A flag that is not set.
    @inlinable
    package init() {}

    /// Sets the flag; it stays set.
    @inlinable
    package func set() { bits.bitwiseOr(Self.cancelled, ordering: .acquiringAndReleasing) }

    /// Whether the flag is set.
    @inlinable
    package var isSet: Bool { bits.load(ordering: .acquiring) & Self.cancelled != 0 }

    /// Throws `CancellationError` if the flag is set.
    @inlinable
    package func check() throws(CancellationError) {
        if isSet { throw CancellationError() }
    }

    /// Marks the job started; `false` when it was cancelled first and must not run.
    @inlinable
    package func markStarted() -> Bool {
        bits.compareExchange(expected: 0, desired: Self.started, ordering: .acquiringAndReleasing).exchanged
    }

    /// Sets the flag, and tells whether the job had not started yet: then the caller settles
    /// its promise, and the job will not run.
    @inlinable
    package func setBeforeStart() -> Bool {
        bits.bitwiseOr(Self.cancelled, ordering: .acquiringAndReleasing).oldValue & Self.started == 0
    }
}
