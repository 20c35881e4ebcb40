public import PromiseCore
import Synchronization

/// Named schema migrations, applied in the order they were registered, each at most once per
/// database.
///
/// ```swift
/// let migrator = SQLiteMigrator()
/// try migrator.register("create users") { db in
///     try db.execute("CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
/// }
/// try migrator.register("add users.email") { db in
///     try db.execute("ALTER TABLE users ADD COLUMN email TEXT")
/// }
/// let applied = try await migrator.migrate(db).get()   // the names it ran, in order
/// ```
///
/// ``migrate(_:)`` runs as one operation on the writing connection's thread. Each migration
/// runs in its own `BEGIN IMMEDIATE` transaction, together with the row that records it in
/// the table ``tableName``, which PromiseSQLite owns: a migration is either applied and
/// recorded, or neither. A database that records a migration this migrator does not know (a
/// newer version of the program migrated it) is refused with
/// ``SQLiteError/Code-swift.struct/unknownMigration`` before anything runs.
///
/// Registering is done before migrating: ``register(_:foreignKeyChecks:_:)`` throws
/// ``SQLiteError/Code-swift.struct/invalidUse`` for an empty or duplicate name, and once
/// ``migrate(_:)`` has been called.
public final class SQLiteMigrator: Sendable {
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

    private struct State {
        var migrations: [Migration] = []
        var started = false
    }

    private let state = Mutex(State())

    /// Creates a migrator with no migrations.
    public init() {}

    /// The registered migrations' names, in order.
    public var migrations: [String] { state.withLock { $0.migrations.map(\.name) } }

    /// Adds a migration after those already registered.
    ///
    /// - Parameters:
    ///   - name: The migration's name, recorded in the database once it is applied: never
    ///     rename or reorder a migration that has shipped.
    ///   - foreignKeyChecks: How foreign keys are checked while it runs.
    ///   - body: The migration, run on the connection thread inside its own immediate
    ///     transaction. It must not end that transaction itself (`COMMIT`, `ROLLBACK`).
    /// - Throws: ``SQLiteError`` with ``SQLiteError/Code-swift.struct/invalidUse`` when `name`
    ///   is empty, holds a NUL character, is already registered, or ``migrate(_:)`` was
    ///   already called.
    public func register(
        _ name: String,
        foreignKeyChecks: ForeignKeyChecks = .deferred,
        _ body: @escaping @Sendable (SQLiteConnection) throws -> Void
    ) throws {
        guard !name.isEmpty, !name.utf8.contains(0) else {
            throw SQLiteError(.invalidUse, message: "a migration needs a non-empty name without NUL characters")
        }
        try state.withLock { state in
            guard !state.started else {
                throw SQLiteError(
                    .invalidUse,
                    message: "migration '\(name)' was registered after migrate() was called; register every migration first"
                )
            }
            guard !state.migrations.contains(where: { $0.name == name }) else {
                throw SQLiteError(.invalidUse, message: "a migration named '\(name)' is already registered; each name must be unique")
            }
            state.migrations.append(Migration(name: name, foreignKeyChecks: foreignKeyChecks, body: body))
        }
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
    ///   which was rolled back, with what it threw (or the foreign-key violations it left) as
    ///   ``SQLiteError/underlying``; ``SQLiteError/Code-swift.struct/invalidUse`` when a
    ///   transaction is already open on the connection.
    public func migrate(_ writer: some SQLiteWriter) -> Promise<[String]> {
        let migrations = state.withLock { state in
            state.started = true
            return state.migrations
        }
        return writer.writeWithoutTransaction { db in try Self.apply(migrations, on: db) }
    }

    /// The names of the migrations the database records as applied, in the order they were
    /// applied; empty when it has never been migrated.
    ///
    /// - Parameter reader: The database.
    /// - Returns: A promise of the names, rejected with ``SQLiteError``.
    public func appliedMigrations(in reader: some SQLiteReader) -> Promise<[String]> {
        reader.read { db in try Self.recorded(db) }
    }

    private static func recorded(_ db: SQLiteConnection) throws -> [String] {
        let exists = try db.scalar(Int.self, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?", [tableName]) ?? 0
        guard exists > 0 else { return [] }
        return try db.query(String.self, "SELECT name FROM \(tableName) ORDER BY rowid")
    }

    private static func apply(_ migrations: [Migration], on db: SQLiteConnection) throws -> [String] {
        guard !db.isInTransaction else {
            throw SQLiteError(
                .invalidUse,
                message: "cannot migrate while a transaction is open on the connection (a BEGIN without its COMMIT); end it first"
            )
        }
        let known = Set(migrations.map(\.name))
        try db.transaction { db in
            try db.execute(
                "CREATE TABLE IF NOT EXISTS \(tableName)(name TEXT NOT NULL PRIMARY KEY, applied_at TEXT NOT NULL)"
            )
            let unknown = try recorded(db).filter { !known.contains($0) }
            guard unknown.isEmpty else {
                let names = unknown.map { "'\($0)'" }.joined(separator: ", ")
                throw SQLiteError(
                    .unknownMigration,
                    message:
                        "the database records \(unknown.count == 1 ? "a migration" : "migrations") this program does not know (\(names)); a newer version of it may have migrated the database, so nothing was run"
                )
            }
        }
        var applied: [String] = []
        for migration in migrations {
            if try run(migration, on: db) { applied.append(migration.name) }
        }
        return applied
    }

    /// Runs one migration unless it is recorded; returns whether it ran.
    private static func run(_ migration: Migration, on db: SQLiteConnection) throws -> Bool {
        let keysOn = try db.scalar(Int.self, "PRAGMA foreign_keys") ?? 0 != 0
        let turnsKeysOff = migration.foreignKeyChecks.deferred && keysOn
        if turnsKeysOff { try db.execute("PRAGMA foreign_keys = OFF") }
        defer {
            if turnsKeysOff { restoreForeignKeys(db) }
        }
        do {
            return try db.transaction { db in
                let done = try db.scalar(Int.self, "SELECT count(*) FROM \(tableName) WHERE name = ?", [migration.name]) ?? 0
                guard done == 0 else { return false }
                try migration.body(db)
                guard db.isInTransaction else {
                    throw SQLiteError(.invalidUse, message: "the migration ended its transaction itself (COMMIT or ROLLBACK); leave that to the migrator")
                }
                try db.execute(
                    "INSERT INTO \(tableName)(name, applied_at) VALUES (?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
                    [migration.name]
                )
                if turnsKeysOff { try checkForeignKeys(db) }
                return true
            }
        } catch let error as CancellationError {
            throw error
        } catch {
            throw SQLiteError(
                .migrationFailed,
                message: "migration '\(migration.name)' failed and was rolled back: \(error)",
                sql: (error as? SQLiteError)?.sql,
                underlying: error
            )
        }
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
