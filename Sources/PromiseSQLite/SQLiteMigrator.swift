public import PromiseCore
internal import PromiseSystem

/// Named schema migrations, applied in the order they were registered, each at most once per
/// database.
///
/// ```swift
/// var migrator = SQLiteMigrator()
/// try migrator.register("create users") { db in
///     try db.execute("CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
/// }
/// try migrator.register("add users.email") { db in
///     try db.execute("ALTER TABLE users ADD COLUMN email TEXT")
/// }
/// let applied = try await migrator.migrate(db).get()   // the names it ran, in order
/// ```
///
/// A migrator is a value: ``migrate(_:)`` runs the migrations registered when it is called,
/// and registering more afterwards changes what the next call runs, never the one under way.
///
/// ``migrate(_:)`` runs as one operation on the writing connection's thread. Each migration
/// runs in its own `BEGIN IMMEDIATE` transaction, together with the row that records it in
/// the table ``tableName``, which PromiseSQLite owns: a migration is either applied and
/// recorded, or neither. A migration cannot end that transaction itself: a `COMMIT`,
/// `ROLLBACK` or `BEGIN` it runs is refused before it runs, so nothing of the migration stays.
/// A database that records a migration this migrator does not know (a newer version of the
/// program migrated it) is refused with ``SQLiteError/Code-swift.struct/unknownMigration``
/// before anything runs. While another connection (another process migrating the same file)
/// holds the write lock, the migrator waits for it, up to ``writeLockTimeout``.
public struct SQLiteMigrator: Sendable {
    /// How a migration treats foreign keys while it changes the schema.
    public struct ForeignKeyChecks: Hashable, Sendable {
        let deferred: Bool

        /// The procedure SQLite's documentation gives for changing a table's schema by
        /// rebuilding it: `PRAGMA foreign_keys = OFF` before the transaction,
        /// `PRAGMA foreign_key_check` before `COMMIT` (any violation fails the migration), and
        /// foreign keys back on afterwards. A table may then be dropped and re-created while
        /// other tables refer to it. The default.
        public static let deferred = ForeignKeyChecks(deferred: true)
        /// Foreign keys stay enforced statement by statement, as everywhere else.
        public static let immediate = ForeignKeyChecks(deferred: false)
    }

    /// The table in which applied migrations are recorded: one row per migration, its name
    /// and when it was applied (UTC, ISO 8601).
    public static let tableName = "promise_sqlite_migrations"

    private struct Migration: Sendable {
        let name: String
        let foreignKeyChecks: ForeignKeyChecks
        let body: @Sendable (SQLiteConnection) throws -> Void
    }

    private var registered: [Migration] = []

    /// How long ``migrate(_:)`` waits for the database's write lock while another connection
    /// holds it (typically another process running the same migrations), instead of the
    /// connection's ``SQLiteConfiguration/busyTimeout``. Past it, the promise rejects with
    /// ``SQLiteError/Code-swift.struct/busy`` and a message naming this limit. One minute by
    /// default; a negative value is refused with ``SQLiteError/Code-swift.struct/invalidArgument``.
    public var writeLockTimeout: Duration = .seconds(60)

    /// For development only: when the schema that the applied migrations build (run again on an
    /// empty in-memory database) differs from the database's, or the database records a
    /// migration this migrator does not know, ``migrate(_:)`` erases the database and applies
    /// every migration from the start. It lets a migration be edited while it is being
    /// written. It deletes every row: never ship it on.
    ///
    /// The comparison runs the applied migrations a second time, on a connection of their own
    /// without the functions and collations added to the database's. Erasing needs the
    /// database to itself (`VACUUM`): readers of an ``SQLiteDatabasePool`` that hold a read
    /// transaction make it fail with ``SQLiteError/Code-swift.struct/busy``.
    public var eraseDatabaseOnSchemaChange = false

    /// Creates a migrator with no migrations.
    public init() {}

    /// The registered migrations' names, in order.
    public var migrations: [String] { registered.map(\.name) }

    /// Adds a migration after those already registered.
    ///
    /// - Parameters:
    ///   - name: The migration's name, recorded in the database once it is applied: never
    ///     rename or reorder a migration that has shipped.
    ///   - foreignKeyChecks: How foreign keys are checked while it runs.
    ///   - body: The migration, run on the connection thread inside its own immediate
    ///     transaction. A `COMMIT`, `ROLLBACK` or `BEGIN` in it is refused before it runs
    ///     (savepoints, and ``SQLiteConnection/transaction(_:)``, are allowed).
    /// - Throws: ``SQLiteError`` with ``SQLiteError/Code-swift.struct/invalidArgument`` when
    ///   `name` is empty or holds a NUL character, and with
    ///   ``SQLiteError/Code-swift.struct/invalidUse`` when it is already registered.
    public mutating func register(
        _ name: String,
        foreignKeyChecks: ForeignKeyChecks = .deferred,
        _ body: @escaping @Sendable (SQLiteConnection) throws -> Void
    ) throws {
        guard !name.isEmpty, !name.utf8.contains(0) else {
            throw SQLiteError(.invalidArgument, message: "a migration needs a non-empty name without NUL characters")
        }
        guard !registered.contains(where: { $0.name == name }) else {
            throw SQLiteError(.invalidUse, message: "a migration named '\(name)' is already registered; each name must be unique")
        }
        registered.append(Migration(name: name, foreignKeyChecks: foreignKeyChecks, body: body))
    }

    /// Applies the registered migrations the database has not recorded yet, in order.
    ///
    /// Runs as one operation on `writer`'s writing connection (an ``SQLiteDatabase``, or an
    /// ``SQLiteDatabasePool``'s writer). Each migration is its own immediate transaction, so
    /// one that fails leaves those before it applied. A migration recorded by another process
    /// while this one waited for the write lock is skipped.
    ///
    /// Cancelling the promise stops the migration that runs and rolls it back; those applied
    /// before it stay applied, and the promise rejects with `CancellationError`.
    ///
    /// - Parameter writer: The database to migrate.
    /// - Returns: A promise of the names of the migrations applied now, in order (empty when
    ///   the database was up to date). Rejected with ``SQLiteError``:
    ///   ``SQLiteError/Code-swift.struct/unknownMigration`` when the database records a
    ///   migration this migrator does not know (nothing ran);
    ///   ``SQLiteError/Code-swift.struct/migrationFailed`` naming the migration that failed,
    ///   which was rolled back, with what it threw (or the foreign-key violations it left, or
    ///   the `COMMIT` it was refused) as ``SQLiteError/underlying``;
    ///   ``SQLiteError/Code-swift.struct/busy`` when another connection held the write lock
    ///   longer than ``writeLockTimeout``; ``SQLiteError/Code-swift.struct/invalidUse`` when a
    ///   transaction is already open on the connection.
    public func migrate(_ writer: some SQLiteWriter) -> Promise<[String]> {
        migrate(writer, through: registered.count)
    }

    /// Applies the registered migrations the database has not recorded yet, in order, up to
    /// and including the one named `name`; those registered after it are left for later.
    ///
    /// - Parameters:
    ///   - writer: The database to migrate.
    ///   - name: The last migration to apply.
    /// - Returns: A promise of the names of the migrations applied now, in order, rejected as
    ///   ``migrate(_:)``'s is, and with ``SQLiteError/Code-swift.struct/invalidArgument`` when
    ///   no migration is registered as `name` (nothing ran).
    public func migrate(_ writer: some SQLiteWriter, upTo name: String) -> Promise<[String]> {
        guard let index = registered.firstIndex(where: { $0.name == name }) else {
            return Promise(
                SQLiteError(.invalidArgument, message: "no migration named '\(name)' is registered; the registered ones are \(Self.list(migrations))"))
        }
        return migrate(writer, through: index + 1)
    }

    private func migrate(_ writer: some SQLiteWriter, through count: Int) -> Promise<[String]> {
        guard writeLockTimeout >= .zero else {
            return Promise(SQLiteError(.invalidArgument, message: "writeLockTimeout is negative (\(writeLockTimeout)); give a duration of zero or more"))
        }
        let migrator = self
        return writer.writeWithoutTransaction { db in
            do {
                return try migrator.apply(through: count, on: db)
            } catch let timedOut as WriteLockTimedOut {
                throw timedOut.error
            }
        }
    }

    /// The names of the migrations the database records as applied, in the order they were
    /// applied; empty when it has never been migrated.
    ///
    /// - Parameter reader: The database.
    /// - Returns: A promise of the names, rejected with ``SQLiteError``.
    public func appliedMigrations(in reader: some SQLiteReader) -> Promise<[String]> {
        reader.read { db in try Self.recorded(db) }
    }

    /// Whether the database records every registered migration as applied. A database that
    /// also records migrations this migrator does not know has completed them too (see
    /// ``hasBeenSuperseded(in:)``).
    ///
    /// - Parameter reader: The database.
    /// - Returns: A promise of the answer, rejected with ``SQLiteError``.
    public func hasCompletedMigrations(in reader: some SQLiteReader) -> Promise<Bool> {
        let names = migrations
        return reader.read { db in Set(try Self.recorded(db)).isSuperset(of: names) }
    }

    /// Whether the database records a migration this migrator does not know: a newer version
    /// of the program migrated it, and ``migrate(_:)`` would refuse it with
    /// ``SQLiteError/Code-swift.struct/unknownMigration``.
    ///
    /// - Parameter reader: The database.
    /// - Returns: A promise of the answer, rejected with ``SQLiteError``.
    public func hasBeenSuperseded(in reader: some SQLiteReader) -> Promise<Bool> {
        let known = Set(migrations)
        return reader.read { db in try Self.recorded(db).contains { !known.contains($0) } }
    }

    private static func recorded(_ db: SQLiteConnection) throws -> [String] {
        let exists = try db.scalar(Int.self, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?", [tableName]) ?? 0
        guard exists > 0 else { return [] }
        return try db.query(String.self, "SELECT name FROM \(tableName) ORDER BY rowid")
    }

    private static func list(_ names: [String]) -> String {
        names.isEmpty ? "none" : names.map { "'\($0)'" }.joined(separator: ", ")
    }

    private func apply(through count: Int, on db: SQLiteConnection) throws -> [String] {
        guard !db.isInTransaction else {
            throw SQLiteError(
                .invalidUse,
                message: "cannot migrate while a transaction is open on the connection (a BEGIN without its COMMIT); end it first"
            )
        }
        let busy = db.connection.busy
        let busyTimeout = busy.timeout
        busy.timeout = Int(writeLockTimeout.millisecondsRoundedUp(cappedAt: Int64(Int32.max)))
        defer { busy.timeout = busyTimeout }

        if eraseDatabaseOnSchemaChange, try schemaChanged(db) {
            try Self.erase(db)
        }
        let known = Set(registered.map(\.name))
        try immediateTransaction(db) { db in
            try db.execute(
                "CREATE TABLE IF NOT EXISTS \(Self.tableName)(name TEXT NOT NULL PRIMARY KEY, applied_at TEXT NOT NULL)"
            )
            let unknown = try Self.recorded(db).filter { !known.contains($0) }
            guard unknown.isEmpty else {
                throw SQLiteError(
                    .unknownMigration,
                    message:
                        "the database records \(unknown.count == 1 ? "a migration" : "migrations") this program does not know (\(Self.list(unknown))); a newer version of it may have migrated the database, so nothing was run"
                )
            }
        }
        var applied: [String] = []
        for migration in registered.prefix(count) {
            if try run(migration, on: db) { applied.append(migration.name) }
        }
        return applied
    }

    /// The error for a write lock held past ``writeLockTimeout``, thrown before anything of a
    /// migration ran.
    private struct WriteLockTimedOut: Error {
        let error: SQLiteError
    }

    /// `db.transaction(body)`, with a `BEGIN IMMEDIATE` that found the write lock held past
    /// ``writeLockTimeout`` reported as such.
    private func immediateTransaction<T>(_ db: SQLiteConnection, _ body: (SQLiteConnection) throws -> T) throws -> T {
        var began = false
        do {
            return try db.transaction { db in
                began = true
                return try body(db)
            }
        } catch let error as SQLiteError where !began && SQLiteError.Code.busy.matches(error.code) {
            throw WriteLockTimedOut(
                error: SQLiteError(
                    .busy,
                    message:
                        "another connection held the database's write lock for longer than the migrator's writeLockTimeout (\(writeLockTimeout)); another process may be migrating it: wait for that, or raise writeLockTimeout",
                    sql: error.sql,
                    underlying: error
                )
            )
        }
    }

    /// Runs one migration unless it is recorded; returns whether it ran.
    private func run(_ migration: Migration, on db: SQLiteConnection) throws -> Bool {
        let keysOn = try db.scalar(Int.self, "PRAGMA foreign_keys") ?? 0 != 0
        let turnsKeysOff = migration.foreignKeyChecks.deferred && keysOn
        if turnsKeysOff { try db.execute("PRAGMA foreign_keys = OFF") }
        defer {
            if turnsKeysOff { Self.restoreForeignKeys(db) }
        }
        do {
            return try immediateTransaction(db) { db in
                let done = try db.scalar(Int.self, "SELECT count(*) FROM \(Self.tableName) WHERE name = ?", [migration.name]) ?? 0
                guard done == 0 else { return false }
                let refusal = TransactionControlRefusal()
                var failure: (any Error)?
                do {
                    try refusal.whileInstalled(on: db.connection) {
                        try db.insideOpenTransaction { db in try migration.body(db) }
                    }
                } catch {
                    failure = error
                }
                if let operation = refusal.refused, !(failure is CancellationError) {
                    // Also when the migration caught the refused statement's error and went on.
                    throw SQLiteError(
                        .invalidUse,
                        message: "it ran \(operation), which was refused before it ran: the migrator ends each migration's transaction itself",
                        underlying: failure
                    )
                }
                if let failure { throw failure }
                try db.execute(
                    "INSERT INTO \(Self.tableName)(name, applied_at) VALUES (?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
                    [migration.name]
                )
                if turnsKeysOff { try Self.checkForeignKeys(db) }
                return true
            }
        } catch let error as CancellationError {
            throw error
        } catch let timedOut as WriteLockTimedOut {
            throw timedOut
        } catch {
            throw SQLiteError(
                .migrationFailed,
                message: "migration '\(migration.name)' failed and was rolled back, so nothing of it was applied: \(error)",
                sql: (error as? SQLiteError)?.sql,
                underlying: error
            )
        }
    }

    // MARK: Erasing on a schema change

    /// Whether the database's schema differs from the one its applied migrations build on an
    /// empty database, or it records a migration this migrator does not know.
    private func schemaChanged(_ db: SQLiteConnection) throws -> Bool {
        let applied = try Self.recorded(db)
        var byName: [String: Migration] = [:]
        for migration in registered { byName[migration.name] = migration }
        let migrations = applied.compactMap { byName[$0] }
        guard migrations.count == applied.count else { return true }
        let scratch = try Connection.open(path: ":memory:", configuration: SQLiteConfiguration())
        defer { _ = scratch.close() }
        let scratchDB = SQLiteConnection(scratch, cancel: CancelFlag(), transactional: false)
        defer { scratchDB.invalidate() }
        var check = self
        check.eraseDatabaseOnSchemaChange = false
        _ = try check.apply(through: 0, on: scratchDB)
        for migration in migrations { _ = try check.run(migration, on: scratchDB) }
        return try Self.schema(of: scratchDB) != Self.schema(of: db)
    }

    /// The schema's entries, in a stable order; SQLite's own (`sqlite_…`) left out.
    private static func schema(of db: SQLiteConnection) throws -> [String] {
        try db.query(
            String.self,
            "SELECT type || ' ' || name || ' ' || tbl_name || ' ' || coalesce(sql, '') FROM sqlite_schema WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY type, name"
        )
    }

    /// Deletes every table, index, view and trigger (``Connection/resetDatabase()``).
    private static func erase(_ db: SQLiteConnection) throws {
        try db.connection.resetDatabase()
    }

    /// Turns foreign keys back on, even after a cancellation (which stops every statement run
    /// through `db`): retried, since a late interrupt can stop the first attempt.
    private static func restoreForeignKeys(_ db: SQLiteConnection) {
        for _ in 0..<3 {
            if (try? db.connection.execute("PRAGMA foreign_keys = ON", .none, cancel: nil)) != nil { return }
        }
    }

    /// `PRAGMA foreign_key_check`: throws ``SQLiteError/Code-swift.struct/constraintForeignKey``
    /// naming the first violations.
    private static func checkForeignKeys(_ db: SQLiteConnection) throws {
        var violations: [String] = []
        var count = 0
        try db.forEachRow("PRAGMA foreign_key_check") { row in
            count += 1
            guard violations.count < 5 else { return }
            let table = (try? row.get(0, as: String.self)) ?? "?"
            let rowID = (try? row.get(1, as: Int.self)).map(String.init) ?? "?"
            let parent = (try? row.get(2, as: String.self)) ?? "?"
            violations.append("\(table) row \(rowID) → \(parent)")
        }
        guard count > 0 else { return }
        throw SQLiteError(
            .constraintForeignKey,
            message:
                "\(count) foreign key violation\(count == 1 ? "" : "s") after the migration: \(violations.joined(separator: ", "))\(count > violations.count ? ", …" : "")",
            sql: "PRAGMA foreign_key_check"
        )
    }
}
