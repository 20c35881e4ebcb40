/// What a write did: how many rows it changed and the row id of the last insert.
public struct SQLiteChanges: Hashable, Sendable, CustomStringConvertible {
    /// Rows inserted, updated or deleted by the statement (`sqlite3_changes64`); triggers and
    /// foreign-key actions not counted.
    public let changes: Int
    /// The connection's most recent successful `INSERT` row id (`sqlite3_last_insert_rowid`);
    /// unchanged by statements that insert nothing, 0 before the first insert.
    public let lastInsertRowID: Int64

    /// Creates a value.
    ///
    /// - Parameters:
    ///   - changes: Rows changed.
    ///   - lastInsertRowID: The last insert row id.
    public init(changes: Int, lastInsertRowID: Int64) {
        self.changes = changes
        self.lastInsertRowID = lastInsertRowID
    }

    /// `3 changes, last insert row id 42`.
    public var description: String {
        "\(changes) change\(changes == 1 ? "" : "s"), last insert row id \(lastInsertRowID)"
    }
}
