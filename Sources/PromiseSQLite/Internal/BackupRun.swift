internal import CSQLite
internal import Glibc
import PromiseCore
internal import PromiseSystem

/// One online backup: `sqlite3_backup_init`, then one `sqlite3_backup_step` per job on the
/// source's connection thread, each job queued when the one before it ended, then
/// `sqlite3_backup_finish` and, for a file, the atomic rename.
///
/// `@unchecked Sendable`: its mutable state (`backup`, `target`, `ended`) is touched only by
/// its jobs, which run one at a time on the source's thread (the next is queued when the one
/// before returns), and by ``end(_:)`` after the source closed, when no job of it can run any
/// more. The destination's `sqlite3*` is used from those jobs alone: a private connection for
/// a file, or a database whose thread waits in ``hold(_:)`` until the backup ends.
final class BackupRun: @unchecked Sendable {
    private enum Target {
        /// Not started: the file's path and what stood there.
        case file(path: String)
        /// The temporary file and the private connection writing it.
        case temporaryFile(replacement: AtomicFileReplacement, db: OpaquePointer)
        /// An open database, held by its thread until the backup ends.
        case database(OpaquePointer)
        case none
    }

    private let source: SQLiteDatabase
    private let pages: Int32
    private let promise: Promise<Void>
    private let flag = CancelFlag()
    private let context: any ExecutionContext
    private let progress: (@Sendable (SQLiteBackupProgress) -> Void)?
    private let ended = Promise<Void>.pending(resolvedOn: nil)
    private var target: Target
    private var backup: OpaquePointer?
    private var destinationKey: ObjectIdentifier?

    private init(
        source: SQLiteDatabase,
        pages: Int32,
        target: Target,
        context: (any ExecutionContext)?,
        progress: (@Sendable (SQLiteBackupProgress) -> Void)?
    ) {
        self.source = source
        self.pages = pages
        self.target = target
        self.context = context ?? Promises.defaultContext
        self.progress = progress
        // Its steps run on the source's thread: awaitPromise there fails instead of hanging.
        promise = Promise<Void>.pending(resolvedOn: source.contextID)
        promise.onCancelRequestFromLibrary { [flag] in flag.set() }
    }

    /// The step size as SQLite takes it, or the error for one under 1.
    private static func pages(_ pagesPerStep: Int) -> Result<Int32, SQLiteError> {
        guard pagesPerStep >= 1 else {
            return .failure(SQLiteError(.invalidArgument, message: "a backup copies at least 1 page per step, got pagesPerStep \(pagesPerStep)"))
        }
        return .success(Int32(clamping: pagesPerStep))
    }

    // MARK: Starting

    static func toFile(
        from source: SQLiteDatabase,
        path: String,
        pagesPerStep: Int,
        context: (any ExecutionContext)?,
        progress: (@Sendable (SQLiteBackupProgress) -> Void)?
    ) -> Promise<Void> {
        let pages: Int32
        switch Self.pages(pagesPerStep) {
        case .success(let value): pages = value
        case .failure(let error): return Promise(error)
        }
        guard !path.isEmpty, !path.utf8.contains(0) else {
            return Promise(SQLiteError(.invalidArgument, message: path.isEmpty ? "the backup path is empty" : AdapterPaths.nulRefusal("the backup path", path)))
        }
        let run = BackupRun(source: source, pages: pages, target: .file(path: path), context: context, progress: progress)
        run.next()
        return run.promise
    }

    static func toDatabase(
        from source: SQLiteDatabase,
        to destination: SQLiteDatabase,
        pagesPerStep: Int,
        context: (any ExecutionContext)?,
        progress: (@Sendable (SQLiteBackupProgress) -> Void)?
    ) -> Promise<Void> {
        let pages: Int32
        switch Self.pages(pagesPerStep) {
        case .success(let value): pages = value
        case .failure(let error): return Promise(error)
        }
        guard destination !== source else {
            return Promise(SQLiteError(.invalidArgument, message: "a database cannot be backed up into itself"))
        }
        let key = ObjectIdentifier(destination.owner)
        if let refusal = Registry.claim(source: ObjectIdentifier(source.owner), destination: key) {
            return Promise(refusal)
        }
        let run = BackupRun(source: source, pages: pages, target: .none, context: context, progress: progress)
        run.destinationKey = key
        let queued = destination.owner.enqueue(settling: nil) { connection, openError in
            run.hold(connection, openError: openError)
        }
        if case .failure(let refusal) = queued { run.end(.failure(refusal)) }
        return run.promise
    }

    /// The destination database's job: starts the steps, then keeps its thread until the
    /// backup ends, so nothing else uses the destination meanwhile.
    private func hold(_ connection: Connection?, openError: SQLiteError?) {
        guard let connection else {
            end(.failure(SQLiteDatabase.notOpen(openError)))
            return
        }
        guard !flag.isSet else {
            end(.failure(CancellationError()))
            return
        }
        target = .database(connection.db)
        next()
        // The destination must stay untouched until the backup ends: never return before.
        // awaitPromise refuses only waits that could never end, which this one is not; if it
        // ever did, poll.
        while ended.isPending {
            if (try? awaitPromise(ended)) == nil, ended.isPending { usleep(1_000) }
        }
    }

    // MARK: Steps

    /// Queues the next step on the source's thread.
    private func next() {
        let queued = source.owner.enqueue(settling: nil) { [self] connection, openError in
            step(connection, openError: openError)
        }
        guard case .failure(let refusal) = queued else { return }
        if backup == nil {
            end(.failure(refusal))
        } else {
            // The unfinished backup keeps the closing source connection as a zombie; it is
            // freed by sqlite3_backup_finish, which may run once nothing else uses it.
            _ = source.owner.close().always(on: .inline) { [self] in end(.failure(refusal)) }
        }
    }

    private func step(_ connection: Connection?, openError: SQLiteError?) {
        guard let connection else { return end(.failure(SQLiteDatabase.notOpen(openError))) }
        guard !flag.isSet else { return end(.failure(CancellationError())) }
        if backup == nil {
            do {
                try start(source: connection)
            } catch {
                return end(.failure(error))
            }
        }
        guard let backup, let destination = destinationDB else { return end(.failure(SQLiteError(.internal, message: "the backup has no destination"))) }
        let status = sqlite3_backup_step(backup, pages)
        let total = Int(sqlite3_backup_pagecount(backup))
        let report = SQLiteBackupProgress(copiedPages: total - Int(sqlite3_backup_remaining(backup)), totalPages: total)
        switch status {
        case SQLITE_DONE:
            deliver(report)
            end(.success(()))
        case SQLITE_OK:
            deliver(report)
            next()
        default:
            var error = sqliteError(status, destination, sql: nil)
            if status & 0xff == SQLITE_BUSY || status & 0xff == SQLITE_LOCKED, sqlite3_txn_state(connection.db, "main") == SQLITE_TXN_WRITE {
                error = SQLiteError(
                    error.code,
                    message: "the source database has a write transaction open on its own connection (a BEGIN without its COMMIT); the backup cannot read it"
                )
            }
            end(.failure(error))
        }
    }

    private var destinationDB: OpaquePointer? {
        switch target {
        case .temporaryFile(_, let db), .database(let db): db
        case .file, .none: nil
        }
    }

    /// The first step's preparation: for a file, the temporary file and its connection; then
    /// `sqlite3_backup_init`.
    private func start(source: Connection) throws {
        if case .file(let path) = target {
            target = try Self.openTemporaryFile(beside: path, source: source)
        }
        guard let destination = destinationDB else { throw SQLiteError(.internal, message: "the backup has no destination") }
        if case .database = target, let from = sqlite3_db_filename(source.db, "main"), from.pointee != 0,
            let to = sqlite3_db_filename(destination, "main"), to.pointee != 0, Self.sameFile(from, to)
        {
            throw SQLiteError(.invalidArgument, message: "the destination database is the source's own file, opened twice")
        }
        guard let handle = sqlite3_backup_init(destination, "main", source.db, "main") else {
            throw sqliteError(sqlite3_errcode(destination), destination, sql: nil)
        }
        backup = handle
    }

    private static func openTemporaryFile(beside path: String, source: Connection) throws -> Target {
        let target = Array(path.utf8)
        let existing: AtomicFileReplacement.Existing?
        do throws(AtomicFileReplacement.Failure) {
            existing = try AtomicFileReplacement.inspect(target)
        } catch {
            throw failure(error, path: path)
        }
        if let existing, existing.isDirectory {
            throw SQLiteError(.invalidArgument, message: "the backup path '\(path)' is a directory")
        }
        if existing != nil, let sourceFile = sqlite3_db_filename(source.db, "main"), sourceFile.pointee != 0, path.withCString({ sameFile($0, sourceFile) }) {
            throw SQLiteError(.invalidArgument, message: "the backup path '\(path)' is the source database's own file")
        }
        let replacement: AtomicFileReplacement
        do throws(AtomicFileReplacement.Failure) {
            replacement = try AtomicFileReplacement(target: target, replacing: existing, tag: ".backup-", newFileMode: 0o644)
        } catch {
            throw failure(error, path: path)
        }
        let temporary = String(decoding: replacement.temporaryPath, as: UTF8.self)
        var handle: OpaquePointer?
        let status = sqlite3_open_v2(temporary, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE, nil)
        guard status == SQLITE_OK, let handle else {
            let error = sqliteError(status, handle, sql: nil)
            sqlite3_close_v2(handle)
            replacement.discard()
            throw SQLiteError(error.code, message: "cannot open the backup's temporary file '\(temporary)': \(error.message)")
        }
        // The file is garbage until renamed: no journal, no syncs but the one before the rename.
        for pragma in ["PRAGMA journal_mode = OFF", "PRAGMA synchronous = OFF"] {
            let result = sqlite3_exec(handle, pragma, nil, nil, nil)
            if result != SQLITE_OK {
                let error = sqliteError(result, handle, sql: pragma)
                sqlite3_close_v2(handle)
                replacement.discard()
                throw error
            }
        }
        return .temporaryFile(replacement: replacement, db: handle)
    }

    private static func sameFile(_ path: UnsafePointer<CChar>, _ other: UnsafePointer<CChar>) -> Bool {
        var a = stat()
        var b = stat()
        guard stat(path, &a) == 0, stat(other, &b) == 0 else { return false }
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino
    }

    private static func failure(_ failure: AtomicFileReplacement.Failure, path: String) -> SQLiteError {
        let code: SQLiteError.Code = failure.step == .create || failure.step == .inspect ? .cannotOpen : .ioError
        return SQLiteError(code, message: "backup to '\(path)': \(failure.call) failed: \(ErrnoText.describe(failure.code))")
    }

    private func deliver(_ report: SQLiteBackupProgress) {
        guard let progress else { return }
        context.execute { progress(report) }
    }

    // MARK: Ending

    /// Finishes the backup, puts the file in place or removes it, settles the promise and
    /// lets the destination go.
    private func end(_ outcome: Result<Void, any Error>) {
        var outcome = outcome
        if let backup {
            let status = sqlite3_backup_finish(backup)
            self.backup = nil
            if case .success = outcome, status != SQLITE_OK {
                outcome = .failure(sqliteError(status, destinationDB, sql: nil))
            }
        }
        if case .temporaryFile(let replacement, let db) = target {
            let closed = sqlite3_close_v2(db)
            if case .success = outcome, closed != SQLITE_OK {
                outcome = .failure(sqliteError(closed, nil, sql: nil))
            }
            if case .success = outcome {
                do throws(AtomicFileReplacement.Failure) {
                    try replacement.commit(durable: true)
                } catch {
                    outcome = .failure(Self.failure(error, path: String(decoding: replacement.target, as: UTF8.self)))
                }
            } else {
                replacement.discard()
            }
        }
        target = .none
        if let destinationKey {
            Registry.release(source: ObjectIdentifier(source.owner), destination: destinationKey)
            self.destinationKey = nil
        }
        if case .failure = outcome, flag.isSet {
            outcome = .failure(CancellationError())
        }
        promise.resolveFromLibrary(outcome)
        ended.fulfill(())
    }

    // MARK: Who takes part in a backup into a database

    /// The databases that backups into a database use, so that none waits on itself: a
    /// destination's thread waits for its source's, so a destination can be neither a source
    /// nor a destination of another backup, and a source cannot be a destination.
    private enum Registry {
        private static let state = Lock<(sources: [ObjectIdentifier: Int], destinations: Set<ObjectIdentifier>)>(([:], []))

        static func claim(source: ObjectIdentifier, destination: ObjectIdentifier) -> SQLiteError? {
            state.withLock { state in
                if state.destinations.contains(destination) || state.destinations.contains(source) || state.sources[destination] != nil {
                    return SQLiteError(
                        .invalidUse,
                        message:
                            "a database taking part in a backup into a database cannot be copied into, nor copied from while it is copied into; wait for that backup to end"
                    )
                }
                state.sources[source, default: 0] += 1
                state.destinations.insert(destination)
                return nil
            }
        }

        static func release(source: ObjectIdentifier, destination: ObjectIdentifier) {
            state.withLock { state in
                state.destinations.remove(destination)
                if let count = state.sources[source], count > 1 {
                    state.sources[source] = count - 1
                } else {
                    state.sources[source] = nil
                }
            }
        }
    }
}
