internal import CSQLite

/// The one SQLite authorizer of a connection. SQLite keeps a single authorizer callback per
/// connection, so every rule that needs one is a participant here, never a callback of its
/// own (`FunctionTests` checks that nothing else calls `sqlite3_set_authorizer`):
/// - ``refusal``: while a migration runs, statements that begin, commit or roll back a
///   transaction are denied (``TransactionControlRefusal``).
/// - ``observation``: while anyone observes changes, a `DELETE` from a user's table is
///   answered `SQLITE_IGNORE`, so that SQLite deletes row by row where the update hook sees
///   it (``ObservationHub/authorize(_:_:)``).
/// - ``reads``: while a value observation runs its read, the tables its statements read are
///   recorded (``ReadRegion``).
///
/// Each change of participants sets the callback again (or clears it when none is left),
/// which expires the connection's prepared statements: a cached statement is prepared, and
/// authorized, again under the new rules before it next runs.
final class ConnectionAuthorizer {
    private let db: OpaquePointer

    /// Denies transaction control while set.
    var refusal: TransactionControlRefusal? {
        didSet { if refusal !== oldValue { install() } }
    }

    /// Keeps deletes visible to the update hook while set.
    var observation: ObservationHub? {
        didSet { if observation !== oldValue { install() } }
    }

    /// Records the tables read while set.
    var reads: ReadRegion? {
        didSet { if reads !== oldValue { install() } }
    }

    init(db: OpaquePointer) { self.db = db }

    private func install() {
        guard refusal != nil || observation != nil || reads != nil else {
            sqlite3_set_authorizer(db, nil, nil)
            return
        }
        // The connection owns this authorizer and outlives every statement it prepares.
        sqlite3_set_authorizer(db, connectionAuthorizerCallback, Unmanaged.passUnretained(self).toOpaque())
    }

    /// The answer for one action: a refusal's denial first, then the observation's answer.
    func authorize(_ action: Int32, _ first: UnsafePointer<CChar>?) -> Int32 {
        if let reads, action == SQLITE_READ, let first { reads.read(table: first) }
        if let refusal, action == SQLITE_TRANSACTION {
            refusal.refuse(operation: first)
            return SQLITE_DENY
        }
        return observation?.authorize(action, first) ?? SQLITE_OK
    }
}

private func connectionAuthorizerCallback(
    _ context: UnsafeMutableRawPointer?, _ action: Int32, _ first: UnsafePointer<CChar>?, _ second: UnsafePointer<CChar>?,
    _ database: UnsafePointer<CChar>?, _ trigger: UnsafePointer<CChar>?
) -> Int32 {
    guard let context else { return SQLITE_OK }
    return Unmanaged<ConnectionAuthorizer>.fromOpaque(context).takeUnretainedValue().authorize(action, first)
}
