import PromiseSQLite

/// One URL's row in the index: the latest attempt, and the copy on disk if there is one.
public struct IndexRow: Decodable, Sendable, Equatable {
    /// The URL as given.
    public var url: String
    /// Where redirects led, when a response arrived.
    public var finalURL: String?
    /// The final HTTP status, when a response arrived.
    public var status: Int?
    /// The size of the stored file (`nil` when there is none).
    public var bytes: Int?
    /// How long the latest attempt took, retries and backoff included.
    public var durationMs: Int
    /// How many requests the latest attempt made.
    public var attempts: Int
    /// Why the latest attempt failed, or `nil` when it succeeded.
    public var error: String?
    /// The stored copy, relative to the output directory. A failed attempt keeps the copy an
    /// earlier run stored.
    public var file: String?
    /// The run that made the latest attempt.
    public var runID: Int
}

/// The mirror's SQLite index: a `runs` table and one `pages` row per URL.
///
/// Rows are written in batches, one transaction per batch, so a run that is interrupted or
/// killed leaves every batch either fully recorded or not at all; a row is only written
/// once its file is in place (or its failure is final), so the index never names a file
/// that is not on disk.
public final class MirrorIndex: Sendable {
    /// Where the index lives (`:memory:` when it could not be created on disk).
    public let path: String
    let db: SQLiteDatabase

    private init(path: String, db: SQLiteDatabase) {
        self.path = path
        self.db = db
    }

    static let schema = """
        CREATE TABLE IF NOT EXISTS runs(
            id INTEGER PRIMARY KEY,
            started_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
            finished_at TEXT,
            outcome TEXT NOT NULL DEFAULT 'running',
            urls INTEGER NOT NULL,
            ok INTEGER, failed INTEGER, cancelled INTEGER, not_started INTEGER);
        CREATE TABLE IF NOT EXISTS pages(
            url TEXT PRIMARY KEY,
            final_url TEXT,
            status INTEGER,
            bytes INTEGER,
            duration_ms INTEGER NOT NULL,
            attempts INTEGER NOT NULL,
            error TEXT,
            file TEXT,
            run_id INTEGER NOT NULL REFERENCES runs(id),
            fetched_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
            CHECK ((file IS NULL) = (bytes IS NULL)));
        """

    /// Opens (creating if needed) the index at `path`.
    ///
    /// - Returns: A promise of the open index; rejected with the `SQLiteError` that says why
    ///   the file cannot be opened or is not a mirror index.
    public static func open(_ path: String) -> Promise<MirrorIndex> {
        var configuration = SQLiteConfiguration()
        configuration.journalMode = path == ":memory:" ? nil : .wal
        configuration.threadName = "mirror-index"
        let db = path == ":memory:" ? SQLiteDatabase.inMemory(configuration: configuration) : SQLiteDatabase(path: path, configuration: configuration)
        return db.executeScript(schema)
            .then { MirrorIndex(path: path, db: db) }
            .recover { error -> Promise<MirrorIndex> in
                db.close().then { throw error }
            }
    }

    /// Records that a run of `urls` URLs started; returns its id.
    func beginRun(urls: Int) -> Promise<Int> {
        db.transaction { db in
            try db.execute("INSERT INTO runs(urls) VALUES (?)", [urls])
            return try db.scalar(Int.self, "SELECT last_insert_rowid()") ?? 0
        }
    }

    /// Writes `rows` in one transaction.
    func save(_ rows: [IndexRow]) -> Promise<Void> {
        db.transaction { db in
            for row in rows {
                try db.execute(
                    """
                    INSERT INTO pages(url, final_url, status, bytes, duration_ms, attempts, error, file, run_id)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(url) DO UPDATE SET
                        final_url = excluded.final_url, status = excluded.status,
                        duration_ms = excluded.duration_ms, attempts = excluded.attempts,
                        error = excluded.error, run_id = excluded.run_id, fetched_at = excluded.fetched_at,
                        file = coalesce(excluded.file, pages.file),
                        bytes = CASE WHEN excluded.file IS NULL THEN pages.bytes ELSE excluded.bytes END
                    """,
                    [row.url, row.finalURL, row.status, row.bytes, row.durationMs, row.attempts, row.error, row.file, row.runID]
                )
            }
        }
    }

    /// Records how a run ended.
    func finishRun(_ id: Int, outcome: String, ok: Int, failed: Int, cancelled: Int, notStarted: Int) -> Promise<Void> {
        db.execute(
            """
            UPDATE runs SET finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), outcome = ?,
                ok = ?, failed = ?, cancelled = ?, not_started = ? WHERE id = ?
            """,
            [outcome, ok, failed, cancelled, notStarted, id]
        ).then { _ in }
    }

    /// The rows the run `id` wrote, failures last.
    public func rows(ofRun id: Int) -> Promise<[IndexRow]> {
        db.query(IndexRow.self, Self.selectRows + " WHERE run_id = ? ORDER BY error IS NOT NULL, url", [id])
    }

    /// Every row, in URL order.
    public func allRows() -> Promise<[IndexRow]> {
        db.query(IndexRow.self, Self.selectRows + " ORDER BY url")
    }

    private static let selectRows = """
        SELECT url, final_url AS finalURL, status, bytes, duration_ms AS durationMs, attempts, error, file,
            run_id AS runID FROM pages
        """

    /// Closes the database.
    public func close() -> Promise<Void> { db.close() }
}
