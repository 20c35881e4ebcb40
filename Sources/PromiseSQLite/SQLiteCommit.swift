/// A committed transaction that changed tables, as ``SQLiteDatabase/nextCommit(touching:)`` and
/// ``SQLiteDatabase/commits(touching:)`` report it.
///
/// It names tables, not rows, and it is a reason to read again, not a record of what changed.
/// Where SQLite has no pre-update hook, the update hook it falls back on reports changes to
/// rowid tables only. See <doc:ChangeNotifications> for what is and is not seen.
public struct SQLiteCommit: Sendable, Hashable {
    /// The tables the transaction changed, spelled as in their `CREATE TABLE`.
    public let tables: Set<String>
    /// How many committed transactions this reports: 1, or more when commits reached a
    /// ``SQLiteCommits`` sequence faster than its consumer took them and were merged.
    public let transactions: Int

    /// Creates a commit report.
    ///
    /// - Parameters:
    ///   - tables: The tables changed.
    ///   - transactions: How many transactions it reports.
    public init(tables: Set<String>, transactions: Int = 1) {
        self.tables = tables
        self.transactions = transactions
    }

    /// Whether the transaction changed `table`, compared without regard to ASCII case, as SQL
    /// names are.
    ///
    /// - Parameter table: A table name.
    /// - Returns: `true` when ``tables`` holds it.
    public func touched(_ table: String) -> Bool {
        let wanted = asciiLowercased(table)
        return tables.contains { asciiLowercased($0) == wanted }
    }

    /// This report and `later` as one.
    func merged(with later: SQLiteCommit) -> SQLiteCommit {
        SQLiteCommit(tables: tables.union(later.tables), transactions: transactions + later.transactions)
    }
}

/// `name` with ASCII letters lower-cased, as SQLite compares identifiers.
func asciiLowercased(_ name: String) -> String {
    guard name.utf8.contains(where: { (65...90).contains($0) }) else { return name }
    return String(decoding: name.utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
}
