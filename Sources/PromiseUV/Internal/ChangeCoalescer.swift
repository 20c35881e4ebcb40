/// The changes of one watch that are waiting to be delivered: one per name, in the order of
/// each name's first event, merged while they wait, and at most ``limit`` names (plus one
/// change standing for every name past that), so a watch holds bounded memory however fast
/// the kernel reports and however slowly the consumer reads.
///
/// Pure: no libuv, no threads. The owner decides when to add and when to take.
struct ChangeCoalescer {
    /// How many names a watch keeps apart while they wait: changes to more names before the
    /// consumer reads are merged into one change whose name is `nil` ("list the directory
    /// again"). A waiting change holds its path and name, so the bound is about 256 × (two
    /// paths of up to 4 KiB); a typical one holds a few hundred bytes.
    static let defaultLimit = 256

    /// The most distinct names kept apart.
    let limit: Int
    /// The directory a merged-overflow change is reported on.
    let overflowPath: String
    private var waiting: [UVFileChange] = []
    private var positions: [String: Int] = [:]
    private var overflowPosition: Int?

    /// An empty coalescer.
    ///
    /// - Parameters:
    ///   - limit: How many names to keep apart (at least 1).
    ///   - overflowPath: The path of the change that stands for the names past `limit`.
    init(limit: Int = Self.defaultLimit, overflowPath: String) {
        self.limit = max(1, limit)
        self.overflowPath = overflowPath
    }

    /// Whether nothing waits.
    var isEmpty: Bool { waiting.isEmpty }

    /// How many changes wait (at most ``limit`` + 1).
    var count: Int { waiting.count }

    /// Adds `change`, merging it into the waiting change of the same path, or into the
    /// overflow change when ``limit`` names already wait.
    mutating func add(_ change: UVFileChange) {
        if let position = positions[change.path] {
            waiting[position] = waiting[position].merging(change)
        } else if positions.count < limit {
            positions[change.path] = waiting.count
            waiting.append(change)
        } else if let overflowPosition {
            waiting[overflowPosition] = waiting[overflowPosition].merging(overflow(change))
        } else {
            overflowPosition = waiting.count
            waiting.append(overflow(change))
        }
    }

    /// Takes every waiting change, in order.
    mutating func takeAll() -> [UVFileChange] {
        defer { reset() }
        return waiting
    }

    /// Takes the change that has waited longest, if any.
    ///
    /// - Complexity: O(*n*) in the number of waiting changes (at most ``limit`` + 1).
    mutating func takeFirst() -> UVFileChange? {
        guard !waiting.isEmpty else { return nil }
        let first = waiting.removeFirst()
        if first.name == nil, overflowPosition == 0 {
            overflowPosition = nil
        } else {
            positions[first.path] = nil
        }
        for key in positions.keys { positions[key]! -= 1 }
        if let position = overflowPosition { overflowPosition = position - 1 }
        return first
    }

    private mutating func reset() {
        waiting = []
        positions = [:]
        overflowPosition = nil
    }

    /// `change` as part of the change that stands for many names: the directory still exists.
    private func overflow(_ change: UVFileChange) -> UVFileChange {
        UVFileChange(path: overflowPath, name: nil, events: change.events, count: change.count, exists: true)
    }
}
