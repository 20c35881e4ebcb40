internal import CSQLite

/// While installed on a connection, refuses every statement that would begin, commit or roll
/// back a transaction (`BEGIN`, `COMMIT`, `END`, `ROLLBACK`), through SQLite's authorizer: the
/// statement fails to prepare with `SQLITE_AUTH`, so it never runs. Savepoints stay allowed.
/// ``SQLiteMigrator`` installs one around each migration, whose transaction it owns.
final class TransactionControlRefusal {
    /// The first refused operation (`COMMIT`, `ROLLBACK`, `BEGIN`), once one was refused.
    private(set) var refused: String?

    /// Runs `body` with the refusal installed on `connection`, and removes it afterwards.
    /// Setting or clearing an authorizer expires the connection's prepared statements, so a
    /// cached `COMMIT` is prepared (and refused) again.
    func whileInstalled<T>(on connection: Connection, _ body: () throws -> T) rethrows -> T {
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_set_authorizer(
            connection.db,
            { context, action, operation, _, _, _ in
                guard action == SQLITE_TRANSACTION, let context else { return SQLITE_OK }
                let refusal = Unmanaged<TransactionControlRefusal>.fromOpaque(context).takeUnretainedValue()
                if refusal.refused == nil { refusal.refused = operation.map { String(cString: $0) } ?? "a transaction statement" }
                return SQLITE_DENY
            },
            context
        )
        defer { sqlite3_set_authorizer(connection.db, nil, nil) }
        return try withExtendedLifetime(self) { try body() }
    }
}
