internal import CSQLite

extension Connection {
    /// Deletes every table, index, view and trigger, the way SQLite's documentation resets a
    /// database: `SQLITE_DBCONFIG_RESET_DATABASE`, then `VACUUM`, with no transaction open.
    func resetDatabase() throws {
        var current: Int32 = 0
        try sqliteCheck(csqlite_db_config_flag(db, SQLITE_DBCONFIG_RESET_DATABASE, 1, &current), db)
        defer { _ = csqlite_db_config_flag(db, SQLITE_DBCONFIG_RESET_DATABASE, 0, &current) }
        _ = try execute("VACUUM", .none, cancel: nil)
    }
}
