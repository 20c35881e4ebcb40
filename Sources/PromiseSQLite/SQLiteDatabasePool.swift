/// One writer connection and several reader connections to one WAL-mode database file, for
/// programs whose reads must not wait behind writes or behind each other.
///
/// ```swift
/// let pool = try await SQLiteDatabasePool.open(path: "app.sqlite", readers: 4).get()
/// let users = try await pool.query(User.self, "SELECT * FROM users").get()   // a reader
/// try await pool.execute("DELETE FROM sessions WHERE expires < ?", [now]).get()  // the writer
/// ```
///
/// Reads (the ``SQLiteReader`` methods) go to the reader connection with the least work
/// queued; each is a read-only connection on its own thread. Writes (the ``SQLiteWriter``
/// methods: ``SQLiteWriter/execute(_:_:)``, ``SQLiteWriter/executeScript(_:)``,
/// ``transaction(_:_:)``) go to the single writer, in order. In WAL mode readers see the last
/// committed state and never block the writer, and the writer never blocks them.
///
/// A single ``SQLiteDatabase`` is the better default: it is one thread, it never reads a
/// snapshot older than its own last write, and SQLite serves small queries in microseconds,
/// so one connection already runs tens of thousands of them per second. Take a pool when a
/// measurement shows reads queueing behind long writes or long scans. See <doc:Threading>.
public final class SQLiteDatabasePool: SQLiteWriter {
    /// The connection every write goes to.
    public let writer: SQLiteDatabase
    /// The read-only connections reads are spread over.
    public let readers: [SQLiteDatabase]

    /// The most reader connections a pool opens: each is a connection and a thread.
    public static let maxReaders = 256

    private init(writer: SQLiteDatabase, readers: [SQLiteDatabase]) {
        self.writer = writer
        self.readers = readers
    }

    /// Opens the writer (which switches the file to WAL mode, creating it if allowed), then
    /// the readers.
    ///
    /// - Parameters:
    ///   - path: The database file; a pool cannot use `:memory:`.
    ///   - readers: How many reader connections, 1 to ``maxReaders``; another number fails
    ///     with ``SQLiteError/Code-swift.struct/invalidUse``.
    ///   - configuration: The writer's configuration; ``SQLiteConfiguration/journalMode`` is
    ///     forced to WAL, and readers get the same settings with read-only access.
    /// - Returns: A promise of the open pool, rejected with ``SQLiteError`` when any connection
    ///   cannot be opened (the others are closed).
    public static func open(
        path: String,
        readers: Int = 4,
        configuration: SQLiteConfiguration = SQLiteConfiguration()
    ) -> Promise<SQLiteDatabasePool> {
        guard path != ":memory:", !path.isEmpty else {
            return Promise(SQLiteError(.invalidUse, message: "a pool needs a database file; an in-memory database is private to one connection"))
        }
        guard readers >= 1, readers <= maxReaders else {
            return Promise(
                SQLiteError(
                    .invalidUse,
                    message: "a pool takes 1 to \(maxReaders) readers (each is a connection with a thread of its own), got \(readers)"))
        }
        var writerConfiguration = configuration
        writerConfiguration.journalMode = .wal
        var reading = configuration
        reading.access = .readOnly
        reading.journalMode = nil
        reading.threadName = configuration.threadName + "-r"
        let readerConfiguration = reading
        return SQLiteDatabase.open(path: path, configuration: writerConfiguration).then(on: .inline) { writer in
            let opening = (0..<readers).map { _ in SQLiteDatabase.open(path: path, configuration: readerConfiguration) }
            return any(opening).then(on: .inline) { results -> Promise<SQLiteDatabasePool> in
                var opened = [SQLiteDatabase]()
                for result in results {
                    switch result {
                    case .success(let reader): opened.append(reader)
                    case .failure(let error):
                        for reader in opened { reader.close() }
                        writer.close()
                        return Promise(error)
                    }
                }
                return Promise(SQLiteDatabasePool(writer: writer, readers: opened))
            }
        }
    }

    /// The reader with the least work queued.
    @usableFromInline
    var reader: SQLiteDatabase {
        var best = readers[0]
        var bestLoad = best.owner.pendingJobs
        for candidate in readers.dropFirst() where bestLoad > 0 {
            let load = candidate.owner.pendingJobs
            if load < bestLoad {
                best = candidate
                bestLoad = load
            }
        }
        return best
    }

    /// Runs `body` on the reader with the least work queued, outside a transaction. The
    /// query methods of ``SQLiteReader`` run through it.
    ///
    /// - Parameter body: Reads; writes fail with ``SQLiteError/Code-swift.struct/readOnly``.
    /// - Returns: A promise of what `body` returns.
    @inlinable
    public func readWithoutTransaction<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) -> Promise<T> {
        reader.readWithoutTransaction(body)
    }

    /// Runs `body` on the writer, outside a transaction. ``SQLiteWriter/execute(_:_:)`` and
    /// ``SQLiteWriter/executeScript(_:)`` run through it.
    ///
    /// - Parameter body: The statements.
    /// - Returns: A promise of what `body` returns.
    @inlinable
    public func writeWithoutTransaction<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) -> Promise<T> {
        writer.writeWithoutTransaction(body)
    }

    /// Runs `body` on a reader in a read transaction: one consistent snapshot.
    ///
    /// - Parameter body: The reads; writes fail with ``SQLiteError/Code-swift.struct/readOnly``.
    /// - Returns: A promise of what `body` returns.
    public func read<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) -> Promise<T> {
        reader.read(body)
    }

    /// Runs a transaction on the writer. See ``SQLiteDatabase/transaction(_:_:)``.
    ///
    /// - Parameters:
    ///   - kind: How the transaction takes its locks.
    ///   - body: The statements.
    /// - Returns: A promise of what `body` returns.
    public func transaction<T: Sendable>(
        _ kind: SQLiteTransactionKind = .immediate,
        _ body: @escaping @Sendable (SQLiteConnection) throws -> T
    ) -> Promise<T> {
        writer.transaction(kind, body)
    }

    /// Closes every connection after its queued work.
    ///
    /// - Returns: A promise fulfilled once all are closed.
    @discardableResult
    public func close() -> Promise<Void> {
        let closing = ([writer] + readers).map { $0.close() }
        return all(closing).then(on: .inline) { _ in }
    }
}
