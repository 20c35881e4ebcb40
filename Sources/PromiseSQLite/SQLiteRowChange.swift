/// One row inserted, updated or deleted by a committed transaction, as
/// ``SQLiteDatabase/transactionEvents(touching:operations:bufferLimit:)`` reports it.
public struct SQLiteRowChange: Sendable, Hashable {
    /// What happened to a row.
    public enum Operation: Sendable, Hashable, CustomStringConvertible {
        /// The row was inserted.
        case insert
        /// The row was updated.
        case update
        /// The row was deleted.
        case delete

        /// `insert`, `update` or `delete`.
        public var description: String {
            switch self {
            case .insert: "insert"
            case .update: "update"
            case .delete: "delete"
            }
        }
    }

    /// How a changed row is found again: by its rowid, or, in a `WITHOUT ROWID` table, by its
    /// primary key.
    public enum Key: Sendable, Hashable, CustomStringConvertible {
        /// The rowid of a row of an ordinary table.
        case rowID(Int64)
        /// The primary key of a row of a `WITHOUT ROWID` table.
        case primaryKey(PrimaryKey)

        /// `rowid 7`, or the primary key's columns and values: `(a, b) = ('x', 2)`.
        public var description: String {
            switch self {
            case .rowID(let rowID): "rowid \(rowID)"
            case .primaryKey(let key): key.description
            }
        }
    }

    /// The primary key of a row of a `WITHOUT ROWID` table: its columns, in the order of the
    /// table's `PRIMARY KEY` clause, and the row's values in them.
    ///
    /// ```swift
    /// // CREATE TABLE stock(shop TEXT, item TEXT, count INTEGER, PRIMARY KEY(item, shop)) WITHOUT ROWID
    /// if case .primaryKey(let key) = change.key {
    ///     let match = key.columns.map { "\"\($0)\" = ?" }.joined(separator: " AND ")
    ///     let count = try await db.scalar(Int.self, "SELECT count FROM stock WHERE " + match, SQLiteBindings(key.values)).get()
    ///     print(change.operation, key, count ?? 0)   // update (item, shop) = ('tea', 'north') 2
    /// }
    /// ```
    public struct PrimaryKey: Sendable, Hashable, CustomStringConvertible {
        /// The key's columns, spelled as in the table's `CREATE TABLE`, in the order of its
        /// `PRIMARY KEY` clause.
        public let columns: [String]
        /// The row's value in each of ``columns``, in the same order.
        public let values: [SQLiteValue]

        /// Creates a primary key.
        ///
        /// - Parameters:
        ///   - columns: The key's columns, in key order.
        ///   - values: The row's values in them, in the same order.
        public init(columns: [String], values: [SQLiteValue]) {
            self.columns = columns
            self.values = values
        }

        /// The columns and values, as `(shop, item) = ('north', 'tea')`.
        public var description: String {
            "(" + columns.joined(separator: ", ") + ") = (" + values.map { "\($0)" }.joined(separator: ", ") + ")"
        }
    }

    /// The table, spelled as in its `CREATE TABLE`.
    public let table: String
    /// What happened to the row.
    public let operation: Operation
    /// How the row is found again: for an update that changed its rowid or primary key, the
    /// new one; for a delete, the deleted row's.
    public let key: Key

    /// The row's rowid, for a row of an ordinary table; `nil` for a `WITHOUT ROWID` table,
    /// whose rows ``key`` names by their primary key.
    public var rowID: Int64? {
        if case .rowID(let rowID) = key { return rowID }
        return nil
    }

    /// Creates a row change.
    ///
    /// - Parameters:
    ///   - table: The table.
    ///   - operation: What happened to the row.
    ///   - key: How the row is found again.
    public init(table: String, operation: Operation, key: Key) {
        self.table = table
        self.operation = operation
        self.key = key
    }

    /// Creates a row change of an ordinary table.
    ///
    /// - Parameters:
    ///   - table: The table.
    ///   - operation: What happened to the row.
    ///   - rowID: The row's rowid.
    public init(table: String, operation: Operation, rowID: Int64) {
        self.init(table: table, operation: operation, key: .rowID(rowID))
    }
}

/// The operations an observation of row changes reports.
public struct SQLiteChangeOperations: OptionSet, Sendable, Hashable {
    /// The operations as bits.
    public let rawValue: UInt8

    /// Creates a set from its bits.
    ///
    /// - Parameter rawValue: The bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Inserted rows.
    public static let insert = SQLiteChangeOperations(rawValue: 1)
    /// Updated rows.
    public static let update = SQLiteChangeOperations(rawValue: 2)
    /// Deleted rows.
    public static let delete = SQLiteChangeOperations(rawValue: 4)
    /// Every operation.
    public static let all: SQLiteChangeOperations = [.insert, .update, .delete]

    /// Whether the set holds `operation`.
    func includes(_ operation: SQLiteRowChange.Operation) -> Bool {
        switch operation {
        case .insert: contains(.insert)
        case .update: contains(.update)
        case .delete: contains(.delete)
        }
    }
}

/// What a transaction did, as ``SQLiteTransactionEvents`` reports it, in the order it happened.
public enum SQLiteTransactionEvent: Sendable, Hashable {
    /// A transaction committed: its changes of interest, in order.
    case committed(SQLiteCommittedChanges)
    /// A transaction that had changed tables of interest rolled back; nothing of it was
    /// committed. The tables are the ones of interest it had changed (empty when it changed
    /// only the schema).
    case rolledBack(tables: Set<String>)
    /// The consumer fell behind by more than its buffer limit: these transactions are not
    /// reported one by one, only counted. Read again what you derive from the tables.
    case missed(SQLiteMissedTransactions)
}

/// The changes of one committed transaction that an observation asked for.
public struct SQLiteCommittedChanges: Sendable, Hashable {
    /// The rows changed, in the order the transaction changed them, filtered by table and
    /// operation. A row changed twice appears twice.
    public let changes: [SQLiteRowChange]
    /// The tables of interest the transaction changed, including those whose rows are not
    /// listed (see ``unlistedChanges``).
    public let tables: Set<String>
    /// Whether the transaction changed the schema (`CREATE`, `DROP` or `ALTER`). A commit
    /// that changed only the schema is reported with no changes.
    public let schemaChanged: Bool
    /// How many rows the transaction changed beyond the observation's buffer limit, of any
    /// table and operation: counted, not listed. Zero when ``changes`` is complete.
    public let unlistedChanges: Int

    /// Creates a committed transaction's report.
    ///
    /// - Parameters:
    ///   - changes: The rows changed, in order.
    ///   - tables: The tables changed.
    ///   - schemaChanged: Whether the schema changed.
    ///   - unlistedChanges: Rows changed beyond the listed ones.
    public init(changes: [SQLiteRowChange], tables: Set<String>, schemaChanged: Bool = false, unlistedChanges: Int = 0) {
        self.changes = changes
        self.tables = tables
        self.schemaChanged = schemaChanged
        self.unlistedChanges = unlistedChanges
    }
}

/// Transactions a slow consumer was not given one by one: what ``SQLiteTransactionEvent/missed(_:)``
/// counts.
public struct SQLiteMissedTransactions: Sendable, Hashable {
    /// Committed transactions missed.
    public let commits: Int
    /// Rolled-back transactions missed.
    public let rollbacks: Int
    /// Rows the missed commits changed, of interest or not listed.
    public let changes: Int
    /// The tables of interest the missed commits changed.
    public let tables: Set<String>
    /// Whether a missed commit changed the schema.
    public let schemaChanged: Bool

    /// Creates a count of missed transactions.
    ///
    /// - Parameters:
    ///   - commits: Committed transactions.
    ///   - rollbacks: Rolled-back transactions.
    ///   - changes: Rows the commits changed.
    ///   - tables: The tables the commits changed.
    ///   - schemaChanged: Whether one changed the schema.
    public init(commits: Int, rollbacks: Int, changes: Int, tables: Set<String>, schemaChanged: Bool) {
        self.commits = commits
        self.rollbacks = rollbacks
        self.changes = changes
        self.tables = tables
        self.schemaChanged = schemaChanged
    }

    /// These and the event `event` as one count.
    func adding(_ event: SQLiteTransactionEvent) -> SQLiteMissedTransactions {
        switch event {
        case .committed(let commit):
            SQLiteMissedTransactions(
                commits: commits + 1, rollbacks: rollbacks, changes: changes + commit.changes.count + commit.unlistedChanges,
                tables: tables.union(commit.tables), schemaChanged: schemaChanged || commit.schemaChanged)
        case .rolledBack:
            SQLiteMissedTransactions(
                commits: commits, rollbacks: rollbacks + 1, changes: changes, tables: tables, schemaChanged: schemaChanged)
        case .missed(let missed):
            SQLiteMissedTransactions(
                commits: commits + missed.commits, rollbacks: rollbacks + missed.rollbacks, changes: changes + missed.changes,
                tables: tables.union(missed.tables), schemaChanged: schemaChanged || missed.schemaChanged)
        }
    }

    /// Nothing missed yet.
    static let none = SQLiteMissedTransactions(commits: 0, rollbacks: 0, changes: 0, tables: [], schemaChanged: false)
}
