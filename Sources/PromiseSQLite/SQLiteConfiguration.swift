#if Tracing
    public import Tracing
#endif
#if Metrics
    public import CoreMetrics
#endif
#if Tracing || Metrics
    internal import PromiseSystem
#endif

/// How a connection is opened and set up. The defaults are the safe ones; each is documented
/// with what changing it costs.
///
/// ```swift
/// var configuration = SQLiteConfiguration()
/// configuration.journalMode = .wal
/// configuration.synchronous = .normal   // faster commits; the last ones may roll back on power loss
/// let db = SQLiteDatabase(path: "app.sqlite", configuration: configuration)
/// ```
public struct SQLiteConfiguration: Sendable {
    /// Whether the database is opened for reading only, and whether a missing file is created.
    public var access: Access = .readWriteCreate

    /// The journal mode to set when opening; `nil` keeps the file's own (a new file starts in
    /// `DELETE` mode). ``JournalMode/wal`` is recommended for most programs: readers and the
    /// writer no longer block each other and commits are cheaper. See <doc:Durability>.
    public var journalMode: JournalMode? = nil

    /// How hard SQLite works to make a commit survive power loss. ``Synchronous/full`` by
    /// default; see <doc:Durability> for the measured cost of each level.
    public var synchronous: Synchronous = .full

    /// How long a statement waits for another connection's lock before failing with
    /// ``SQLiteError/Code-swift.struct/busy``. Default 5 seconds.
    public var busyTimeout: Duration = .seconds(5)

    /// Whether `FOREIGN KEY` constraints are enforced (`PRAGMA foreign_keys`). On by default.
    public var foreignKeys = true

    /// How many prepared statements the connection keeps for reuse, least recently used evicted
    /// first. 0 turns the cache off. Default 64.
    public var statementCacheCapacity = 64

    /// Which threads that wait for an operation's promise may run the operation themselves,
    /// when the connection is idle and the operation is next in line (it would start at once
    /// either way; running it on the waiting thread saves handing it over and the result back).
    /// Default ``WaitingThreads/blocked``.
    public var operationsOnWaitingThreads: WaitingThreads = .blocked

    /// How long the connection thread, out of work, keeps checking for the next operation
    /// before it sleeps, and how long a thread or task waiting for an operation's promise
    /// checks for the result before it suspends or blocks. Default 50 microseconds; zero turns
    /// polling off, and a longer limit than a second polls for a second. It is always off on a
    /// machine with one CPU online.
    ///
    /// Waking a sleeping thread costs tens of microseconds on a virtual machine, several times
    /// what a point query by primary key takes, and an operation awaited by itself costs two
    /// wake-ups: the connection thread's, and the waiter's when the result is ready. Polling
    /// spares both when operations follow each other closely, at the price of up to this long
    /// of one CPU after each burst of work (Benchmarks/README.md has the measurements).
    public var pollBeforeSleeping: Duration = .microseconds(50)

    /// The name of the connection's thread, shown by `top -H` and debuggers (15 bytes kept).
    /// Default `promise-sqlite` (a pool's readers add `-r`).
    public var threadName = "promise-sqlite"

    #if Tracing
        /// The tracer of the connection's statement and transaction spans, or `nil` (the default)
        /// for the tracer the process bootstrapped (`InstrumentationSystem.tracer`), read when the
        /// connection opens. With the Tracing trait only; see "Tracing and metrics" in the docs.
        public var tracer: (any Tracer)?
    #endif
    #if Tracing || Metrics
        /// Where the connection's statements are recorded, as its owner (``SQLiteDatabase``)
        /// resolved ``tracer`` and ``metricsFactory`` when it started; `nil` for nowhere, and
        /// for a connection no owner opened (the migrator's scratch database).
        var ownerTelemetry: Telemetry?
    #endif
    #if Metrics
        /// The factory of the connection's counters and timers, or `nil` (the default) for the
        /// one the process bootstrapped (`MetricsSystem.factory`), read when the connection opens.
        /// With the Metrics trait only; see "Tracing and metrics" in the docs.
        public var metricsFactory: (any MetricsFactory)?
    #endif

    /// Observations learn of row changes through SQLite's update hook even where its
    /// pre-update hook exists: what an SQLite built without the pre-update hook does, for the
    /// tests of that path.
    var rowChangesThroughUpdateHookOnly = false

    /// The safe defaults: read-write, created if missing, `synchronous` FULL, foreign keys on,
    /// a 5-second busy timeout.
    public init() {}

    /// Whether a connection may write, and whether opening creates a missing file.
    public struct Access: Hashable, Sendable {
        let readOnly: Bool
        let create: Bool

        /// Reads and writes; a missing file is created. The default.
        public static let readWriteCreate = Access(readOnly: false, create: true)
        /// Reads and writes; a missing file is an error.
        public static let readWrite = Access(readOnly: false, create: false)
        /// Reads only: every write fails with ``SQLiteError/Code-swift.struct/readOnly``.
        public static let readOnly = Access(readOnly: true, create: false)
    }

    /// An SQLite journal mode (`PRAGMA journal_mode`).
    public struct JournalMode: Hashable, Sendable, CustomStringConvertible {
        /// The pragma's value.
        public let name: String

        /// Write-ahead log: readers never block the writer nor the writer readers; one writer at
        /// a time. Needs shared memory, so not on network file systems.
        public static let wal = JournalMode(name: "WAL")
        /// Rollback journal, deleted after each transaction: SQLite's default.
        public static let delete = JournalMode(name: "DELETE")
        /// Rollback journal, truncated instead of deleted.
        public static let truncate = JournalMode(name: "TRUNCATE")
        /// Rollback journal, kept and its header zeroed.
        public static let persist = JournalMode(name: "PERSIST")

        /// The pragma's value, such as `WAL`.
        public var description: String { name }
    }

    /// An SQLite synchronous level (`PRAGMA synchronous`).
    public struct Synchronous: Hashable, Sendable, CustomStringConvertible {
        /// The pragma's value.
        public let name: String

        /// No `fsync`: fastest, and a power loss can corrupt the database.
        public static let off = Synchronous(name: "OFF")
        /// In WAL mode, commits are not synced, checkpoints are: a power loss may roll back the
        /// last commits but never corrupts the database. In rollback-journal modes, a small
        /// window of corruption risk remains on old file systems.
        public static let normal = Synchronous(name: "NORMAL")
        /// Every commit is synced before it returns: a committed transaction survives power loss.
        /// The default.
        public static let full = Synchronous(name: "FULL")
        /// ``full``, plus the journal's directory is synced after a rollback journal is deleted.
        public static let extra = Synchronous(name: "EXTRA")

        /// The pragma's value, such as `FULL`.
        public var description: String { name }
    }
}

extension SQLiteConfiguration {
    /// Which waiting threads run an operation themselves (``operationsOnWaitingThreads``).
    public enum WaitingThreads: Sendable, Hashable {
        /// None: every operation runs on the connection's own thread.
        case none
        /// A thread blocked in `awaitPromise`, which is blocked for as long either way.
        case blocked
        /// Also a task in `try await promise.get()`: the operation runs on the thread the task
        /// runs on (one of Swift's cooperative pool, or the main thread for main-actor code),
        /// which stays busy for as long as the statement runs, including a wait for another
        /// connection's lock (``SQLiteConfiguration/busyTimeout``). An awaited point query then
        /// needs no thread at all to wake up when it finds the connection idle
        /// (Benchmarks/README.md has the measurements). Choose it where statements are short
        /// and other tasks do not hold the locks they wait for.
        ///
        /// From a task on no actor, the operation then runs without a thread switch. On the
        /// main actor, ``blocked`` is faster: a task that runs the operation itself first
        /// installs its cancellation handler (so that cancelling the task interrupts the
        /// statement), which there costs two thread switches, where under ``blocked`` the task
        /// polls for the result (``SQLiteConfiguration/pollBeforeSleeping``) without one.
        case blockedAndAwaiting
    }
}
