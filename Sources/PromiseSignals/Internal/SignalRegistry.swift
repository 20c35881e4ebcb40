/// Who waits for which signal, and which action to put back when nobody does any more.
///
/// A value that decides and makes no system call: it says which signals need the owner's
/// handler installed (``unwatched(_:)``) and which actions to put back (what ``remove(_:)``
/// and ``sweep()`` return), and ``SignalOwner`` makes the `sigaction` calls under the same
/// lock. Generic over the saved action, so its tests need no `sigaction`.
struct SignalRegistry<SavedAction>: ~Copyable {
    /// A signal being watched: by how many watches, and its action before the first of them.
    struct Watched {
        var count: Int
        var previous: SavedAction
    }

    /// The watches, by id.
    private(set) var entries: [UInt64: any SignalWatchEntry] = [:]
    /// The watched signals.
    private(set) var watched: [Int32: Watched] = [:]
    private var nextID: UInt64 = 0

    init() {}

    /// The signals watched now, in order, for the channel to read from the pending queue.
    var watchedSignals: [Int32] { watched.keys.sorted() }

    /// Which of `signals` nobody watches yet: the owner's handler must be installed for each
    /// before ``start(_:installed:)``.
    func unwatched(_ signals: [Int32]) -> [Int32] {
        signals.filter { watched[$0] == nil }
    }

    /// Records `entry`, whose signals that nobody watched before have had the owner's handler
    /// installed over the actions in `installed`.
    ///
    /// - Returns: The watch's id.
    mutating func start(_ entry: any SignalWatchEntry, installed: [(Int32, SavedAction)]) -> UInt64 {
        for (signal, previous) in installed {
            guard watched[signal] == nil else { preconditionFailure("signal \(signal) was installed for a second first watch") }
            watched[signal] = Watched(count: 0, previous: previous)
        }
        for signal in entry.signals {
            guard watched[signal] != nil else { preconditionFailure("signal \(signal) of a new watch has no handler installed") }
            watched[signal]!.count += 1
        }
        nextID += 1
        entries[nextID] = entry
        return nextID
    }

    /// Ends watch `id`, if it is still on.
    ///
    /// - Returns: The watch, and the actions to put back for its signals that no other watch
    ///   waits for; `nil` for a watch already ended.
    mutating func remove(_ id: UInt64) -> (entry: any SignalWatchEntry, restore: [(Int32, SavedAction)])? {
        guard let entry = entries.removeValue(forKey: id) else { return nil }
        var restore: [(Int32, SavedAction)] = []
        for signal in entry.signals {
            guard var record = watched[signal] else { preconditionFailure("signal \(signal) of a watch is not watched") }
            record.count -= 1
            if record.count > 0 {
                watched[signal] = record
            } else {
                watched[signal] = nil
                restore.append((signal, record.previous))
            }
        }
        return (entry, restore)
    }

    /// Ends every watch that is no longer live.
    ///
    /// - Returns: The ended watches, to be released after the lock (releasing the last
    ///   reference to a promise runs its `deinit`), and the actions to put back.
    mutating func sweep() -> (ended: [any SignalWatchEntry], restore: [(Int32, SavedAction)]) {
        let dead = entries.filter { !$0.value.isLive() }.map(\.key).sorted()
        var ended: [any SignalWatchEntry] = []
        var restore: [(Int32, SavedAction)] = []
        for id in dead {
            guard let removed = remove(id) else { continue }
            ended.append(removed.entry)
            restore += removed.restore
        }
        return (ended, restore)
    }
}
