/// While installed on a connection, refuses every statement that would begin, commit or roll
/// back a transaction (`BEGIN`, `COMMIT`, `END`, `ROLLBACK`), through the connection's
/// ``ConnectionAuthorizer``: the
/// statement fails to prepare with `SQLITE_AUTH`, so it never runs. Savepoints stay allowed.
/// ``SQLiteMigrator`` installs one around each migration, whose transaction it owns.
final class TransactionControlRefusal {
    /// The first refused operation (`COMMIT`, `ROLLBACK`, `BEGIN`), once one was refused.
    private(set) var refused: String?

    /// Runs `body` with the refusal installed on `connection`'s authorizer, and removes it
    /// afterwards. Either change expires the connection's prepared statements, so a cached
    /// `COMMIT` is prepared (and refused) again.
    func whileInstalled<T>(on connection: Connection, _ body: () throws -> T) rethrows -> T {
        let previous = connection.authorizer.refusal
        connection.authorizer.refusal = self
        defer { connection.authorizer.refusal = previous }
        return try body()
    }

    /// Records `operation` (`COMMIT`, `ROLLBACK`, `BEGIN`) as refused, if it is the first.
    func refuse(operation: UnsafePointer<CChar>?) {
        if refused == nil { refused = operation.map { String(cString: $0) } ?? "a transaction statement" }
    }
}
