/// The prepared statements of one connection, keyed by SQL text, least recently used evicted
/// first. Owned by the connection's thread.
///
/// Lookups are a dictionary hit plus a stamp; eviction scans for the oldest stamp, so it costs
/// O(capacity) and happens only when a new statement is added to a full cache.
struct StatementCache {
    private struct Entry {
        let statement: Statement
        var lastUse: UInt64
    }

    let capacity: Int
    private var entries: [String: Entry] = [:]
    private var clock: UInt64 = 0

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    var count: Int { entries.count }

    /// The cached statement for `sql`, marked as just used; `nil` when there is none or it is
    /// in use (a query over the same SQL nested in another's row loop prepares its own).
    mutating func statement(for sql: String) -> Statement? {
        clock &+= 1
        let clock = self.clock
        return entries[sql].flatMap { entry -> Statement? in
            guard !entry.statement.inUse else { return nil }
            entries[sql]!.lastUse = clock
            return entry.statement
        }
    }

    /// Adds `statement`, evicting (and finalizing) the least recently used statement that is
    /// not in use when full. Does nothing if `sql` is already cached.
    mutating func insert(_ statement: Statement) {
        guard capacity > 0, entries[statement.sql] == nil else { return }
        if entries.count >= capacity {
            let idle = entries.filter { !$0.value.statement.inUse }
            guard let oldest = idle.min(by: { $0.value.lastUse < $1.value.lastUse }) else { return }
            entries.removeValue(forKey: oldest.key)?.statement.finalize()
        }
        clock &+= 1
        entries[statement.sql] = Entry(statement: statement, lastUse: clock)
    }

    /// Finalizes every statement and empties the cache.
    mutating func removeAll() {
        for entry in entries.values { entry.statement.finalize() }
        entries.removeAll()
    }
}
