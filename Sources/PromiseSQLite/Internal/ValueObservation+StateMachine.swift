/// The lifecycle of one running value observation, as a value whose transitions return what
/// to do: tested alone, driven by ``ValueObserver`` under its lock.
///
/// An observation reads only when its consumer asks for a value (an iterator's `next()`, or a
/// callback that returned) and the last value may be out of date. Commits that arrive
/// meanwhile only mark it stale, so a burst of commits costs one read per consumer turn,
/// however long the burst.
///
/// - `registering`: the commit observation is being installed on the writer; reading before
///   it is in place could miss a commit made in between.
/// - `idle`: no read runs; the consumer may be waiting.
/// - `reading`: a read runs. Commits that arrive are kept, and decide after it whether the
///   value it read is already stale (the read learns which tables it used only as it runs).
/// - `finished`: cancelled, closed or failed; nothing more happens.
struct ValueObservationStateMachine {
    enum Phase: Equatable {
        case registering
        case idle
        case reading
        case finished
    }

    /// What the observation does next.
    enum Action: Equatable {
        case none
        /// Run the read.
        case read
        /// Hand the value just read to the waiting consumer.
        case deliver
        /// End: resume a waiting consumer with the end (or the failure), and remove the
        /// commit observation.
        case finish
    }

    private(set) var phase = Phase.registering
    /// The tables the last read used, lower-cased; `nil` before the first read.
    private var region: Set<String>?
    /// Whether the last value read may be out of date (or there is none yet).
    private(set) var stale = true
    /// Whether the consumer waits for a value.
    private(set) var consumerWaits = false
    /// Tables committed while a read ran.
    private var changedDuringRead: Set<String> = []
    /// Whether something while a read ran may have changed any table.
    private var everythingChangedDuringRead = false

    /// The commit observation is in place.
    mutating func registered() -> Action {
        guard phase == .registering else { return .none }
        phase = .idle
        return readIfWanted()
    }

    /// The consumer asks for the next value.
    mutating func consumerAsks() -> Action {
        guard phase != .finished else { return .finish }
        consumerWaits = true
        return readIfWanted()
    }

    /// A commit changed `tables` (lower-cased); `everything` when the tables are unknown (a
    /// schema change, or another connection's commit).
    mutating func changed(tables: Set<String>, everything: Bool) -> Action {
        switch phase {
        case .registering, .finished:
            return .none
        case .reading:
            changedDuringRead.formUnion(tables)
            everythingChangedDuringRead = everythingChangedDuringRead || everything
            return .none
        case .idle:
            if everything || concerns(tables) { stale = true }
            return readIfWanted()
        }
    }

    /// The read finished with a value that used `tables`; `duplicate` when it equals the last
    /// value delivered and duplicates are removed.
    mutating func readSucceeded(tables: Set<String>, duplicate: Bool) -> Action {
        guard phase == .reading else { return .none }
        phase = .idle
        region = tables
        stale = everythingChangedDuringRead || concerns(changedDuringRead)
        changedDuringRead = []
        everythingChangedDuringRead = false
        if duplicate { return readIfWanted() }
        consumerWaits = false
        return .deliver
    }

    /// The read failed, or the observation was cancelled or its database closed.
    mutating func finish() -> Action {
        guard phase != .finished else { return .none }
        phase = .finished
        return .finish
    }

    private func concerns(_ tables: Set<String>) -> Bool {
        guard let region else { return true }
        return !region.isDisjoint(with: tables)
    }

    private mutating func readIfWanted() -> Action {
        guard phase == .idle, consumerWaits, stale else { return .none }
        phase = .reading
        stale = false
        return .read
    }
}
