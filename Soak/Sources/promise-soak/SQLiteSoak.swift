import ArgumentParser
import Dispatch
import Foundation
import PromiseCore
import PromiseSQLite

/// `promise-soak sqlite`: operations on one `SQLiteDatabase` (a real file in a fresh temp
/// directory), a bounded number queued at once, each result checked, and the table's totals
/// checked at the end.
struct SQLiteSoak: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sqlite",
        abstract: "SQLite operations on one SQLiteDatabase: inserts, updates, selects decoded into structs, transactions.",
        discussion: """
            Operation i does, by i % 20: 0-7 an insert (changes 1, row id as expected); 8-10 an \
            update of an existing row (changes 1); 11-13 a range select decoded into structs (10 \
            rows, each field checked); 14-15 one row decoded by id; 16 max(id) (equal to the \
            rows inserted before it: operations run in submission order); 17 a read transaction \
            with two queries; 18 a transaction that inserts 4 rows, updates one, inserts and \
            deletes a scratch row and rolls back a savepoint; 19 a transaction that fails (a \
            thrown error, or a primary-key violation every fourth time) and must leave nothing \
            behind. At the end count(*), sum(v) and min(id) must equal what was written. The \
            database uses WAL with synchronous=NORMAL so that a million operations take \
            minutes, not hours of fsyncs.
            """
    )

    @Option(help: "How many operations (a transaction counts as one).")
    var count = 1_000_000

    @Option(help: "Operations queued at once.")
    var inFlight = 256

    @Option(help: "Seconds without a completed operation before the run fails as stuck.")
    var stallTimeout = 60

    @Option(help: "Where to create the temporary directory.")
    var temporaryDirectory = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"

    func validate() throws {
        try validateCount(count)
        guard inFlight > 0 else { throw ValidationError("--in-flight must be positive, got \(inFlight)") }
    }

    func run() throws {
        let failures = SoakFailures()
        Promises.diagnosticsHandler = { report in failures.record("diagnostic: \(report)") }
        let directory = temporaryDirectory + "/promise-soak-sqlite-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/soak.sqlite"

        let before = ProcessProbe.descriptors()
        var configuration = SQLiteConfiguration()
        configuration.journalMode = .wal
        configuration.synchronous = .normal
        let db = try awaitPromise(SQLiteDatabase.open(path: path, configuration: configuration))
        try awaitPromise(
            db.executeScript(
                """
                CREATE TABLE items(id INTEGER PRIMARY KEY, k INTEGER NOT NULL, v INTEGER NOT NULL, name TEXT NOT NULL);
                CREATE INDEX items_k ON items(k);
                """
            )
        )

        let window = DispatchSemaphore(value: inFlight)
        let completed = Counter()
        let monitor = SoakMonitor(
            name: "sqlite",
            unit: "operations",
            total: count,
            detail: "\(inFlight) queued at once on one SQLiteDatabase (WAL, synchronous=NORMAL), \(path)"
        )
        var model = SQLiteModel()
        var submitted = 0
        while submitted < count {
            if window.wait(timeout: .now() + .seconds(stallTimeout)) == .timedOut {
                failures.record("no operation completed for \(stallTimeout) s after \(completed.value) of \(submitted)")
                break
            }
            monitor.progress(completed.value)
            let operation = model.next(submitted)
            operation.start(db, failures) {
                completed.increment()
                window.signal()
            }
            submitted += 1
        }
        var drained = 0
        while drained < inFlight, window.wait(timeout: .now() + .seconds(stallTimeout)) == .success { drained += 1 }
        if drained < inFlight {
            failures.record("\(inFlight - drained) operation(s) still pending \(stallTimeout) s after the last was queued")
        }
        monitor.progress(completed.value)
        for _ in 0..<drained { window.signal() }

        var totals = "no totals"
        do {
            let summary = try awaitPromise(
                db.queryFirst(Totals.self, "SELECT count(*) AS rows, coalesce(sum(v), 0) AS total, coalesce(min(id), 0) AS lowest FROM items")
            )
            if let summary {
                totals = "\(summary.rows) rows"
                if summary.rows != model.inserted || summary.total != model.sum || summary.lowest != (model.inserted > 0 ? 1 : 0) {
                    failures.record(
                        "the table holds \(summary.rows) rows, sum(v) \(summary.total), min(id) \(summary.lowest); "
                            + "expected \(model.inserted) rows, sum(v) \(model.sum), min(id) 1"
                    )
                }
            } else {
                failures.record("the totals query returned no row")
            }
            try awaitPromise(db.close(), timeout: .seconds(30))
        } catch {
            failures.record("checking the totals and closing: \(error)")
        }
        let teardown = checkTeardown(before: before, failures: failures, what: "close")
        guard monitor.finish(done: completed.value, failures: failures, extra: totals + ", " + teardown) else { throw ExitCode.failure }
    }
}

struct Item: Decodable, Sendable, Equatable {
    let id: Int
    let k: Int
    let v: Int
    let name: String

    /// The row as inserted; `v` grows by one per update.
    static func inserted(_ id: Int) -> Item {
        Item(id: id, k: id % 97, v: id * 3, name: "item-\(id)")
    }

    /// Whether this row is row `id` as inserted, updated at most `updates` times.
    func isRow(_ id: Int, updatedAtMost updates: Int) -> Bool {
        let original = Item.inserted(id)
        return self.id == id && k == original.k && name == original.name && v >= original.v && v - original.v <= updates
    }
}

struct Totals: Decodable, Sendable {
    let rows: Int
    let total: Int
    let lowest: Int
}

struct SoakRollback: Error {}

/// What the table holds once every operation submitted so far has run (operations on one
/// connection run in submission order), kept as a few totals so the model does not grow.
struct SQLiteModel {
    private(set) var inserted = 0
    private(set) var sum = 0
    private(set) var updates = 0

    private mutating func insert(_ rows: Int) -> ClosedRange<Int> {
        let ids = (inserted + 1)...(inserted + rows)
        for id in ids { sum += Item.inserted(id).v }
        inserted += rows
        return ids
    }

    private func existing(_ i: Int) -> Int {
        1 + (i &* 7919) % inserted
    }

    /// The operation number `i` is, with its expectations, and the model updated as if it ran.
    mutating func next(_ i: Int) -> SQLiteOperation {
        var kind = i % 20
        if inserted < 10 { kind = 0 }
        switch kind {
        case 0...7:
            return .insert(insert(1).lowerBound)
        case 8...10:
            sum += 1
            updates += 1
            return .update(existing(i))
        case 11...13:
            let low = 1 + (i &* 31) % (inserted - 9)
            return .range(low...(low + 9), updates: updates)
        case 14...15:
            return .byID(existing(i), updates: updates)
        case 16:
            return .maxID(inserted)
        case 17:
            return .read(inserted, existing(i), updates: updates)
        case 18:
            let target = existing(i)
            sum += 1
            updates += 1
            return .transaction(insert(4), update: target, scratch: -1 - i)
        default:
            return .failingTransaction(inserted + 1, violation: i % 80 == 79)
        }
    }
}

/// One operation and the result it must have.
enum SQLiteOperation: Sendable {
    case insert(Int)
    case update(Int)
    case range(ClosedRange<Int>, updates: Int)
    case byID(Int, updates: Int)
    case maxID(Int)
    case read(Int, Int, updates: Int)
    case transaction(ClosedRange<Int>, update: Int, scratch: Int)
    case failingTransaction(Int, violation: Bool)

    static let insertSQL = "INSERT INTO items(id, k, v, name) VALUES (?, ?, ?, ?)"
    static let updateSQL = "UPDATE items SET v = v + 1 WHERE id = ?"
    static let selectSQL = "SELECT id, k, v, name FROM items WHERE id = ?"

    static func bindings(_ id: Int) -> SQLiteBindings {
        let item = Item.inserted(id)
        return [item.id, item.k, item.v, item.name]
    }

    /// Starts the operation and calls `done` once it ran and its result was checked. Any
    /// problem is recorded in `failures`.
    func start(_ db: SQLiteDatabase, _ failures: SoakFailures, done: @escaping @Sendable () -> Void) {
        let description = "\(self)"
        let fail: @Sendable (String) -> Void = { failures.record("\(description): \($0)") }
        let unexpectedError: @Sendable (any Error) -> Void = { fail("rejected with \($0)") }
        switch self {
        case .insert(let id):
            settle(db.execute(Self.insertSQL, Self.bindings(id)), done, unexpectedError) { changes in
                if changes.changes != 1 || changes.lastInsertRowID != Int64(id) { fail("\(changes)") }
            }
        case .update(let id):
            settle(db.execute(Self.updateSQL, [id]), done, unexpectedError) { changes in
                if changes.changes != 1 { fail("\(changes)") }
            }
        case .range(let ids, let updates):
            let rows = db.query(Item.self, "SELECT id, k, v, name FROM items WHERE id BETWEEN ? AND ? ORDER BY id", [ids.lowerBound, ids.upperBound])
            settle(rows, done, unexpectedError) { rows in
                let right = rows.count == ids.count && zip(rows, ids).allSatisfy { row, id in row.isRow(id, updatedAtMost: updates) }
                if !right { fail("\(rows.count) rows, first \(String(describing: rows.first))") }
            }
        case .byID(let id, let updates):
            settle(db.queryFirst(Item.self, Self.selectSQL, [id]), done, unexpectedError) { row in
                if row?.isRow(id, updatedAtMost: updates) != true { fail("\(String(describing: row))") }
            }
        case .maxID(let expected):
            settle(db.scalar(Int.self, "SELECT max(id) FROM items"), done, unexpectedError) { value in
                if value != expected { fail("max(id) is \(String(describing: value))") }
            }
        case .read(let highest, let id, let updates):
            let snapshot = db.read { connection -> Bool in
                let top = try connection.scalar(Int.self, "SELECT max(id) FROM items")
                let row = try connection.queryFirst(Item.self, Self.selectSQL, [id])
                return top == highest && row?.isRow(id, updatedAtMost: updates) == true
            }
            settle(snapshot, done, unexpectedError) { right in
                if !right { fail("wrong snapshot") }
            }
        case .transaction(let ids, let target, let scratch):
            let added = db.transaction { connection -> Int in
                var added = 0
                for id in ids { added += try connection.execute(Self.insertSQL, Self.bindings(id)).changes }
                if try connection.execute(Self.updateSQL, [target]).changes != 1 { return -1 }
                try connection.execute(Self.insertSQL, Self.bindings(scratch))
                try connection.execute("DELETE FROM items WHERE id = ?", [scratch])
                // A savepoint rolled back: its row must be gone, and the transaction goes on.
                do {
                    try connection.transaction { inner in
                        try inner.execute(Self.insertSQL, Self.bindings(scratch - 1))
                        throw SoakRollback()
                    }
                } catch is SoakRollback {}
                if try connection.scalar(Int.self, "SELECT count(*) FROM items WHERE id IN (?, ?)", [scratch, scratch - 1]) != 0 {
                    return -2
                }
                return added
            }
            settle(added, done, unexpectedError) { added in
                if added != ids.count { fail("the body returned \(added)") }
            }
        case .failingTransaction(let id, let violation):
            let result = db.transaction { connection -> Int in
                try connection.execute(Self.insertSQL, Self.bindings(id))
                try connection.execute(Self.insertSQL, Self.bindings(id + 1))
                if violation {
                    // Row 1 exists: a primary-key violation.
                    try connection.execute(Self.insertSQL, Self.bindings(1))
                } else {
                    throw SoakRollback()
                }
                return 0
            }
            let expected: @Sendable (any Error) -> Void = { error in
                let right = violation ? error is SQLiteError : error is SoakRollback
                if !right { fail("rejected with \(error)") }
            }
            settle(result, done, expected) { _ in fail("committed") }
        }
    }
}

/// Calls `onValue` or `onError` with the outcome of `promise`, then `done`, on the thread that
/// settles it.
private func settle<T: Sendable>(
    _ promise: Promise<T>,
    _ done: @escaping @Sendable () -> Void,
    _ onError: @escaping @Sendable (any Error) -> Void,
    _ onValue: @escaping @Sendable (T) -> Void
) {
    let inline = InlineContext()
    promise.then(on: inline) { (value: T) -> Void in
        onValue(value)
        done()
    }
    .catch(on: inline, policy: .allErrors) { error in
        onError(error)
        done()
    }
}
