internal import CSQLite
internal import Glibc

/// The hook that tells ``ObservationHub`` which rows a statement changes.
///
/// SQLite's pre-update hook sees every row change: those of `WITHOUT ROWID` tables (with the
/// row's values, so the primary key can be read), the rows `REPLACE` deletes to resolve a
/// conflict, and a `DELETE` without `WHERE`, which SQLite never truncates while the hook is
/// set. It exists only in an SQLite built with `SQLITE_ENABLE_PREUPDATE_HOOK` (Debian's and
/// Ubuntu's are), so it is looked up at run time, and the update hook, which sees rows of
/// ordinary tables only, takes its place where it is missing.
enum RowChangeHook {
    /// SQLite's pre-update hook and its accessors.
    case preupdate(PreupdateFunctions)
    /// SQLite's update hook.
    case update

    /// The pre-update hook where this SQLite has it and `pragma_table_list` (SQLite 3.37)
    /// tells `WITHOUT ROWID` tables apart; the update hook otherwise, or when `updateHookOnly`.
    static func best(updateHookOnly: Bool) -> RowChangeHook {
        guard !updateHookOnly, sqlite3_libversion_number() >= 3_037_000, let functions = PreupdateFunctions.available else {
            return .update
        }
        return .preupdate(functions)
    }
}

/// `sqlite3_preupdate_hook`, `sqlite3_preupdate_old` and `sqlite3_preupdate_new`, found in the
/// SQLite library the process loaded.
struct PreupdateFunctions: Sendable {
    /// The hook's C signature: context, connection, operation, database, table, the rowid
    /// before and the rowid after.
    typealias Callback =
        @convention(c) (
            UnsafeMutableRawPointer?, OpaquePointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?, Int64, Int64
        ) -> Void
    typealias Install = @convention(c) (OpaquePointer?, Callback?, UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?
    typealias Value = @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Int32

    /// Sets the connection's hook, or removes it (`nil`).
    let install: Install
    /// A column's value before an update or delete.
    let old: Value
    /// A column's value after an insert or update.
    let new: Value

    /// The functions, when the loaded SQLite has them.
    static let available: PreupdateFunctions? = {
        let everywhere = UnsafeMutableRawPointer(bitPattern: 0)
        guard let install = dlsym(everywhere, "sqlite3_preupdate_hook"), let old = dlsym(everywhere, "sqlite3_preupdate_old"),
            let new = dlsym(everywhere, "sqlite3_preupdate_new")
        else { return nil }
        return PreupdateFunctions(
            install: unsafeBitCast(install, to: Install.self), old: unsafeBitCast(old, to: Value.self),
            new: unsafeBitCast(new, to: Value.self))
    }()
}

/// How the rows of one table are named in a ``SQLiteRowChange``: by rowid, or by the values of
/// its primary key's columns.
enum TableKeyShape: Equatable {
    /// An ordinary table: the pre-update hook's rowids name its rows.
    case rowID
    /// A `WITHOUT ROWID` table: the key's column names, in key order, and each one's index
    /// among the table's columns (what `sqlite3_preupdate_old` and `_new` take).
    case primaryKey(columns: [String], indexes: [Int32])
}

/// The shape of each table a transaction changed, read from SQLite's schema the first time the
/// pre-update hook names the table.
///
/// The answer is kept until the transaction ends or a statement that changes the schema ends:
/// until then no other connection can change the schema (the transaction holds the write
/// lock), so nothing can make it stale. Reading it runs a statement inside SQLite's hook, as
/// SQLite's own session extension does; ``isReading`` is set meanwhile, so the trace hook
/// leaves that statement out of the transaction's bookkeeping.
final class TableKeyShapes {
    private let db: OpaquePointer
    private var shapes: [String: TableKeyShape] = [:]
    private var statement: OpaquePointer?
    /// A lookup's statement is running. Not a phase of a lifecycle but a re-entrancy mark:
    /// stepping it runs statements of SQLite's own (the pragma table functions prepare one
    /// each), which the trace hook must ignore too, so comparing statement pointers is not
    /// enough.
    private(set) var isReading = false

    init(db: OpaquePointer) { self.db = db }

    deinit { sqlite3_finalize(statement) }

    /// Finalizes the lookup's statement, which must not outlive the hooks: the connection
    /// closes only once every statement is finalized.
    func close() {
        sqlite3_finalize(statement)
        statement = nil
        shapes = [:]
    }

    /// Forgets every shape: the transaction ended, or the schema changed.
    func forget() {
        if !shapes.isEmpty { shapes.removeAll(keepingCapacity: true) }
    }

    /// The shape of `table` in `database` (`main`, `temp`, or an attached name).
    ///
    /// A table SQLite cannot describe (which cannot happen for a table it is writing, short of
    /// running out of memory) is taken as an ordinary one.
    func shape(database: UnsafePointer<CChar>, table: String) -> TableKeyShape {
        let key = String(cString: database) + "." + table
        if let known = shapes[key] { return known }
        let shape = read(database: database, table: table) ?? .rowID
        shapes[key] = shape
        return shape
    }

    /// One row per primary-key column of a `WITHOUT ROWID` table, in key order; a single row
    /// with no column for an ordinary table.
    private static let sql = """
        SELECT l.wr, i.cid, i.name FROM pragma_table_list(?2) AS l \
        LEFT JOIN pragma_table_info(?2, ?1) AS i ON l.wr AND i.pk > 0 \
        WHERE l.schema = ?1 ORDER BY i.pk
        """

    private func read(database: UnsafePointer<CChar>, table: String) -> TableKeyShape? {
        isReading = true
        defer { isReading = false }
        if statement == nil, sqlite3_prepare_v3(db, Self.sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) != SQLITE_OK {
            sqlite3_finalize(statement)
            statement = nil
            return nil
        }
        guard let statement else { return nil }
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        guard sqlite3_bind_text(statement, 1, database, -1, csqlite_transient()) == SQLITE_OK,
            sqlite3_bind_text(statement, 2, table, -1, csqlite_transient()) == SQLITE_OK
        else { return nil }
        var columns: [String] = []
        var indexes: [Int32] = []
        var status = sqlite3_step(statement)
        while status == SQLITE_ROW {
            // The join leaves one row whose column is NULL for an ordinary table.
            guard sqlite3_column_int(statement, 0) != 0 else { return .rowID }
            guard let name = sqlite3_column_text(statement, 2) else { return nil }
            indexes.append(sqlite3_column_int(statement, 1))
            columns.append(String(cString: name))
            status = sqlite3_step(statement)
        }
        guard status == SQLITE_DONE, !columns.isEmpty else { return nil }
        return .primaryKey(columns: columns, indexes: indexes)
    }
}
