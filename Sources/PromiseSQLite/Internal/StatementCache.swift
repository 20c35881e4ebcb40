/// The prepared statements of one connection, keyed by SQL text, least recently used evicted
/// first. Owned by the connection's thread.
///
/// A hit is one dictionary lookup (none when the same statement runs again, as in a loop of
/// inserts); eviction scans for the oldest use, so it costs O(capacity) and happens only when a
/// new statement is added to a full cache.
struct StatementCache {
    let capacity: Int
    private var entries: [String: Statement] = [:]
    private var clock: UInt64 = 0
    /// The statement handed out last: a loop running one statement finds it without hashing.
    private var last: Statement?

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    var count: Int { entries.count }

    /// The cached statement for `sql`, marked as just used; `nil` when there is none or it is
    /// in use (a query over the same SQL nested in another's row loop prepares its own).
    mutating func statement(for sql: String) -> Statement? {
        clock &+= 1
        if let last, !last.inUse, last.sql == sql {
            last.lastUse = clock
            return last
        }
        guard let statement = entries[sql], !statement.inUse else { return nil }
        statement.lastUse = clock
        last = statement
        return statement
    }

    /// Adds `statement`, evicting (and finalizing) the least recently used statement that is
    /// not in use when full. Does nothing if its SQL is already cached.
    mutating func insert(_ statement: Statement) {
        guard capacity > 0, entries[statement.sql] == nil else { return }
        if entries.count >= capacity {
            var oldest: Statement?
            for candidate in entries.values where !candidate.inUse {
                if oldest == nil || candidate.lastUse < oldest!.lastUse { oldest = candidate }
            }
            guard let oldest else { return }
            entries.removeValue(forKey: oldest.sql)
            oldest.finalize()
            if last === oldest { last = nil }
        }
        clock &+= 1
        statement.lastUse = clock
        entries[statement.sql] = statement
        last = statement
    }

    /// Finalizes every statement and empties the cache.
    mutating func removeAll() {
        for statement in entries.values { statement.finalize() }
        entries.removeAll()
        last = nil
    }
}
