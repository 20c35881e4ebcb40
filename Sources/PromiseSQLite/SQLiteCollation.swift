/// A text ordering written in Swift, for `COLLATE name` in SQL: ordering, comparisons,
/// `DISTINCT`, `GROUP BY`, indexes and `UNIQUE` constraints on text.
///
/// ```swift
/// let byLength = SQLiteCollation("by_length") { lhs, rhs in
///     lhs.utf8.count != rhs.utf8.count ? lhs.utf8.count < rhs.utf8.count : lhs < rhs
/// }
/// try await db.add(collation: byLength).get()
/// let words = try await db.query(String.self, "SELECT w FROM words ORDER BY w COLLATE by_length").get()
/// ```
///
/// Register it with ``SQLiteDatabase/add(collation:)`` or ``SQLiteDatabasePool/add(collation:)``:
/// every connection gets it. The closure runs on the connection thread, inside the statement,
/// many times per sort: keep it fast. It must be a strict total order (irreflexive,
/// transitive, consistent): SQLite does not crash on one that is not, but sorts come out in no
/// useful order, and an index built with it no longer finds its rows (`PRAGMA
/// integrity_check` reports it). Text that is not valid UTF-8 reaches it with each bad byte
/// replaced by U+FFFD; only the comparison sees the replacement, the stored bytes stay.
public struct SQLiteCollation: Sendable {
    /// The name `COLLATE` uses.
    public let name: String
    let areInIncreasingOrder: @Sendable (String, String) -> Bool

    /// Creates a collation from a "less than" test, as `sort(by:)` takes.
    ///
    /// - Parameters:
    ///   - name: The name `COLLATE` uses: 1 to 255 bytes of UTF-8, without NUL, matched
    ///     without regard to ASCII case. Registering a name that exists replaces it on the
    ///     connection; the built-in `BINARY`, `NOCASE` and `RTRIM` can be replaced too.
    ///   - areInIncreasingOrder: Whether its first argument sorts before its second; two
    ///     texts neither of which sorts before the other are equal under the collation.
    public init(_ name: String, _ areInIncreasingOrder: @escaping @Sendable (String, String) -> Bool) {
        self.name = name
        self.areInIncreasingOrder = areInIncreasingOrder
    }

    /// -1, 0 or 1, as SQLite's comparison callback returns.
    func compare(_ lhs: String, _ rhs: String) -> Int32 {
        if areInIncreasingOrder(lhs, rhs) { return -1 }
        return areInIncreasingOrder(rhs, lhs) ? 1 : 0
    }
}
