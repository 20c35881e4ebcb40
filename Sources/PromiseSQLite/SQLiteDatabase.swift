public import PromiseSystem

/// An SQLite database connection whose statements run on a thread of its own, returning
/// promises.
///
/// ```swift
/// let db = SQLiteDatabase(path: "app.sqlite")
/// try await db.executeScript("CREATE TABLE IF NOT EXISTS users(id INTEGER PRIMARY KEY, name TEXT NOT NULL)").get()
/// let id = try await db.execute("INSERT INTO users(name) VALUES (?)", ["Ada"]).get().lastInsertRowID
/// let names = try await db.query(String.self, "SELECT name FROM users").get()
/// ```
///
/// Every operation is a job run in the order submitted, one at a time, on the connection's
/// own thread, never on the thread that submits it. Jobs queued while the thread is busy are
/// all taken on its next turn, so a burst of small operations costs one wake-up, not one each.
/// One exception saves two thread switches: a thread blocked in `awaitPromise` on an
/// operation's promise while the connection is idle and that operation is next runs it itself;
/// ``SQLiteConfiguration/operationsOnWaitingThreads`` turns that off, or extends it to tasks
/// awaiting `get()`. Out of work, the connection thread keeps checking for the next job for
/// ``SQLiteConfiguration/pollBeforeSleeping`` before it sleeps, and a waiter checks for its
/// result as long before it suspends or blocks, so operations awaited one after another cost
/// no thread wake-ups. A
/// promise's callbacks run on the context its `then` names (the default context when none),
/// never on the connection thread.
///
/// **Cancellation.** Cancelling the promise of a queued operation means it never starts;
/// cancelling a running one interrupts it (`sqlite3_interrupt`) and rolls back its
/// transaction. `timeout` cancels, so `db.query(…).timeout(.seconds(2))` stops a runaway query.
///
/// **Closing.** ``close()`` lets queued work finish, then closes. A database that is
/// deallocated without being closed is closed the same way, on its thread, which then ends;
/// its queued operations still run and settle. Only a close that fails is reported, as a
/// `notShutDown` diagnostic (see `Promises.diagnosticsHandler`).
///
/// The defaults are the safe ones: foreign keys on, double-quoted string literals off,
/// defensive mode on, a 5-second busy timeout, `synchronous` FULL; see ``SQLiteConfiguration``.
public final class SQLiteDatabase: SQLiteWriter {
    let owner: ConnectionOwner

    /// The path the database was opened with (`:memory:` for an in-memory database).
    public var path: String { owner.path }

    /// Opens the database at `path` on a new connection thread.
    ///
    /// The initializer only starts the thread; the file is opened (and, with the default
    /// ``SQLiteConfiguration/Access/readWriteCreate``, created) there right away, before the
    /// first operation runs, and the connection is configured. If opening fails, every
    /// operation is rejected with the reason, which names the path and what is wrong with it
    /// (a missing directory, a directory where the file should be, no permission). Use
    /// ``open(path:configuration:)`` to find out before the first operation.
    ///
    /// - Parameters:
    ///   - path: The database file. `":memory:"` is a private in-memory database; URI file
    ///     names are not interpreted.
    ///   - configuration: How to open and set up the connection.
    public init(path: String, configuration: SQLiteConfiguration = SQLiteConfiguration()) {
        owner = ConnectionOwner(path: path, configuration: configuration)
    }

    /// A new private in-memory database, gone when closed.
    ///
    /// - Parameter configuration: How to set up the connection.
    /// - Returns: The database.
    public static func inMemory(configuration: SQLiteConfiguration = SQLiteConfiguration()) -> SQLiteDatabase {
        SQLiteDatabase(path: ":memory:", configuration: configuration)
    }

    /// Opens the database at `path` and fulfils once it is open and configured.
    ///
    /// - Parameters:
    ///   - path: The database file, or `":memory:"`.
    ///   - configuration: How to open and set up the connection.
    /// - Returns: A promise of the open database, rejected with ``SQLiteError`` when the file
    ///   cannot be opened (missing without ``SQLiteConfiguration/Access/readWriteCreate``, not a
    ///   database, a directory, no permission).
    public static func open(path: String, configuration: SQLiteConfiguration = SQLiteConfiguration()) -> Promise<SQLiteDatabase> {
        let database = SQLiteDatabase(path: path, configuration: configuration)
        return database.submit { _, _ in database }
    }

    /// `DroppedOwner`'s policy: closes as ``close()`` does (this only queues the close, which
    /// runs on the connection thread after the queued work; that thread then ends), and
    /// reports a close that fails with nobody waiting to hear it.
    deinit {
        guard owner.isAccepting else { return }
        let dropped = DroppedOwner("SQLiteDatabase", named: "'\(path)'", call: "close()")
        owner.close().catch(on: .inline) { error in
            dropped.report(SQLiteError(.closed, message: dropped.message("closing it failed: \(error)"), underlying: error))
        }
    }

    /// Runs `body` with the connection, on its thread, outside any transaction `body` does not
    /// open itself. ``execute(_:_:)``, ``query(_:_:)`` and the other single-statement methods
    /// (from ``SQLiteReader`` and ``SQLiteWriter``) run through it.
    ///
    /// - Parameter body: The statements, run synchronously on the connection thread.
    /// - Returns: A promise of what `body` returns, rejected with what it throws.
    @inlinable
    public func readWithoutTransaction<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) -> Promise<T> {
        submit { connection, cancel in
            let handle = SQLiteConnection(connection, cancel: cancel, transactional: false)
            defer { handle.invalidate() }
            return try body(handle)
        }
    }

    /// The same as ``readWithoutTransaction(_:)``: one connection reads and writes.
    ///
    /// - Parameter body: The statements, run synchronously on the connection thread.
    /// - Returns: A promise of what `body` returns, rejected with what it throws.
    @inlinable
    public func writeWithoutTransaction<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) -> Promise<T> {
        readWithoutTransaction(body)
    }

    /// Runs `body` in a transaction on the connection thread: committed when `body` returns,
    /// rolled back when it throws or the promise is cancelled. Nested calls on the
    /// ``SQLiteConnection`` become savepoints.
    ///
    /// ```swift
    /// let total = db.transaction { db in
    ///     try db.execute("UPDATE accounts SET balance = balance - ? WHERE id = ?", [100, 1])
    ///     try db.execute("UPDATE accounts SET balance = balance + ? WHERE id = ?", [100, 2])
    ///     return try db.scalar(Int.self, "SELECT sum(balance) FROM accounts") ?? 0
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - kind: How the transaction takes its locks; ``SQLiteTransactionKind/immediate`` (the
    ///     default) takes the write lock at once, which is what a transaction that writes needs.
    ///   - body: The statements, run synchronously on the connection thread. Keep it short and
    ///     free of waits: the connection runs nothing else meanwhile.
    /// - Returns: A promise of what `body` returns; rejected with what it throws (after the
    ///   rollback), with ``SQLiteError`` when `COMMIT` fails or a transaction is already open
    ///   on the connection (``SQLiteError/Code-swift.struct/invalidUse``), or with
    ///   `CancellationError` when a cancellation stopped it before `COMMIT`. A cancellation
    ///   that arrives while `COMMIT` is already running cannot stop it, and the promise is
    ///   then fulfilled: `CancellationError` always means nothing was committed.
    public func transaction<T: Sendable>(
        _ kind: SQLiteTransactionKind = .immediate,
        _ body: @escaping @Sendable (SQLiteConnection) throws -> T
    ) -> Promise<T> {
        submit { connection, cancel in
            guard connection.isAutocommit else {
                throw SQLiteError(
                    .invalidUse,
                    message: "a transaction is already open on this connection (a BEGIN run with execute, without its COMMIT or ROLLBACK); end it first"
                )
            }
            let handle = SQLiteConnection(connection, cancel: cancel, transactional: true)
            defer { handle.invalidate() }
            return try connection.transaction(kind, cancel: cancel) { try body(handle) }
        }
    }

    /// Runs `body` with the connection inside a deferred (read) transaction: every query sees
    /// the same snapshot of the database.
    ///
    /// - Parameter body: The reads, run synchronously on the connection thread.
    /// - Returns: A promise of what `body` returns.
    public func read<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) -> Promise<T> {
        transaction(.deferred, body)
    }

    /// Lets queued operations finish, then finalizes every statement and closes the connection
    /// (`sqlite3_close_v2`). Operations submitted afterwards are rejected with
    /// ``SQLiteError/Code-swift.struct/closed``.
    ///
    /// - Returns: A promise fulfilled once the connection is closed. Every call returns a promise
    ///   of its own, all settled the same way.
    @discardableResult
    public func close() -> Promise<Void> {
        owner.close()
    }
}

// MARK: Submitting

extension SQLiteDatabase {
    /// Runs `body` on the connection thread and resolves the returned promise with its result.
    ///
    /// Cancelling the promise asks the job to stop. A job cancelled while queued never starts,
    /// and its promise rejects at once with `CancellationError`. A running one is interrupted
    /// (`sqlite3_interrupt`, and `body` checks the flag between statements and rows); its
    /// promise settles when it returns: with `CancellationError` when it was stopped, with its
    /// result when it completed anyway (a `COMMIT` that was already running), so a change that
    /// was made is never reported as cancelled.
    ///
    /// Inlinable, with the parts that do not depend on `T` out of line: the caller's module
    /// specializes the promise work for its result type. Unspecialized, each generic type the
    /// promise touches costs a runtime metadata lookup, about 400 instructions each, and an
    /// operation touched some 25.
    @inlinable
    func submit<T: Sendable>(_ body: @escaping @Sendable (Connection, CancelFlag) throws -> T) -> Promise<T> {
        // Tied to the connection's thread, so awaitPromise called on it (inside a transaction
        // closure) fails with a deadlock error instead of waiting forever.
        let promise = Promise<T>.pending(resolvedOn: contextID)
        let flag = CancelFlag()
        let queued = enqueue(settling: ObjectIdentifier(promise)) { connection, openError in
            guard flag.markStarted() else { return }
            guard let connection else {
                promise.resolveFromLibrary(.failure(Self.notOpen(openError)))
                return
            }
            connection.busy.cancel = flag
            defer { connection.busy.cancel = nil }
            do {
                promise.resolveFromLibrary(.success(try body(connection, flag)))
            } catch {
                promise.resolveFromLibrary(.failure(flag.isSet ? CancellationError() : error))
            }
        }
        switch queued {
        case .success(let id):
            promise.onCancelRequestFromLibrary { [weak owner = ownerObject] in
                if flag.setBeforeStart() {
                    promise.resolveFromLibrary(.failure(CancellationError()))
                } else if let owner {
                    Self.interrupt(owner, job: id)
                }
            }
        case .failure(let refusal):
            promise.reject(refusal)
        }
        return promise
    }

    /// The connection thread's identity as a context.
    @usableFromInline
    var contextID: ObjectIdentifier { owner.contextID }

    /// The connection's owner, typed for code inlined into other modules, which cannot name
    /// its type: held weakly by a cancel handler, which must not keep a closed connection's
    /// owner alive.
    @usableFromInline
    var ownerObject: any AnyObject & Sendable { owner }

    /// Queues a job on the connection thread: ``ConnectionOwner/enqueue(settling:_:)``.
    @usableFromInline
    func enqueue(settling promise: ObjectIdentifier, _ run: @escaping @Sendable (Connection?, SQLiteError?) -> Void) -> Result<UInt64, SQLiteError> {
        owner.enqueue(settling: promise, run)
    }

    /// Interrupts job `id` if it is running, on `owner` (an ``ownerObject``).
    @usableFromInline
    static func interrupt(_ owner: any AnyObject & Sendable, job id: UInt64) {
        unsafeDowncast(owner, to: ConnectionOwner.self).interrupt(job: id)
    }

    /// Why a job has no connection to run on: the reason opening failed.
    @usableFromInline
    static func notOpen(_ openError: SQLiteError?) -> SQLiteError {
        openError ?? SQLiteError(.closed, message: "the database is not open")
    }
}
