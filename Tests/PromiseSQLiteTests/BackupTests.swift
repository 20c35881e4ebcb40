import Glibc
import PromiseSQLite
import PromiseTestSupport
import Synchronization
import Testing

/// The names in `dir`, sorted.
func directoryEntries(_ dir: String) -> [String] {
    guard let stream = opendir(dir) else { return [] }
    defer { closedir(stream) }
    var names: [String] = []
    while let entry = readdir(stream) {
        let name = withUnsafeBytes(of: &entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        if name != ".", name != ".." { names.append(name) }
    }
    return names.sorted()
}

/// A database file at `path` with `rows` rows of 3000-byte payloads (a 4 KiB page each).
func makeSource(_ path: String, rows: Int, configuration: SQLiteConfiguration = SQLiteConfiguration()) async throws -> SQLiteDatabase {
    let db = try await SQLiteDatabase.open(path: path, configuration: configuration).get()
    try await db.executeScript("CREATE TABLE IF NOT EXISTS items(id INTEGER PRIMARY KEY, payload BLOB NOT NULL)").get()
    try await db.transaction { db in
        for n in 0..<rows {
            try db.execute("INSERT INTO items(payload) VALUES (?)", [SQLiteValue.blob(Array(repeating: UInt8(truncatingIfNeeded: n), count: 3000))])
        }
    }.get()
    return db
}

/// Reports collected by a progress callback.
final class Reports: Sendable {
    private let list = Mutex<[SQLiteBackupProgress]>([])
    func append(_ report: SQLiteBackupProgress) { list.withLock { $0.append(report) } }
    var all: [SQLiteBackupProgress] { list.withLock { $0 } }
}

/// A promise set after it is made, for a callback that runs later.
final class PromiseBox: Sendable {
    private let stored = Mutex<Promise<Void>?>(nil)
    func set(_ promise: Promise<Void>) { stored.withLock { $0 = promise } }
    var promise: Promise<Void>? { stored.withLock { $0 } }
}

/// Says yes the first time it is asked about each name.
final class Once: Sendable {
    private let seen = Mutex<Set<String>>([])
    func first(_ name: String) -> Bool { seen.withLock { $0.insert(name).inserted } }
}

@Suite struct BackupTests {
    private func rowCount(_ path: String) async throws -> Int? {
        let copy = try await SQLiteDatabase.open(path: path).get()
        defer { copy.close() }
        #expect(try await copy.scalar(String.self, "PRAGMA integrity_check").get() == "ok")
        return try await copy.scalar(Int.self, "SELECT count(*) FROM items").get()
    }

    @Test func copiesADatabaseToAFileInStepsAndReportsProgress() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await makeSource(dir("source.sqlite"), rows: 300)
        defer { db.close() }
        let reports = Reports()
        try await db.backup(to: dir("copy.sqlite"), pagesPerStep: 7, on: .inline) { reports.append($0) }.get()
        let all = reports.all
        let total = try #require(all.last?.totalPages)
        #expect(total > 300)
        #expect(all.count == (total + 6) / 7, "one report per step")
        #expect(all.last?.isComplete == true && all.dropLast().allSatisfy { !$0.isComplete })
        #expect(all.map(\.copiedPages) == all.map(\.copiedPages).sorted())
        #expect(try await rowCount(dir("copy.sqlite")) == 300)
        #expect(directoryEntries(dir.path) == ["copy.sqlite", "source.sqlite"], "no temporary file left")
        var info = stat()
        #expect(stat(dir("copy.sqlite"), &info) == 0 && info.st_mode & 0o777 == 0o644 & ~currentUmask())
    }

    private func currentUmask() -> mode_t {
        let mask = umask(0)
        umask(mask)
        return mask
    }

    @Test func anInMemoryDatabaseBacksUpToAFileAndAFileRestoresIntoMemory() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let memory = SQLiteDatabase.inMemory()
        defer { memory.close() }
        try await memory.executeScript("CREATE TABLE items(id INTEGER PRIMARY KEY, payload BLOB); INSERT INTO items(payload) VALUES (x'01'), (x'02');").get()
        try await memory.backup(to: dir("from-memory.sqlite")).get()
        #expect(try await rowCount(dir("from-memory.sqlite")) == 2)

        let file = try await SQLiteDatabase.open(path: dir("from-memory.sqlite")).get()
        defer { file.close() }
        let restored = SQLiteDatabase.inMemory()
        defer { restored.close() }
        _ = try await restored.execute("CREATE TABLE old(x)").get()
        try await file.backup(to: restored, pagesPerStep: 1).get()
        #expect(try await restored.query(String.self, "SELECT name FROM sqlite_schema WHERE type = 'table'").get() == ["items"])
        #expect(try await restored.scalar(Int.self, "SELECT count(*) FROM items").get() == 2)
    }

    @Test func anExistingFileIsReplacedWholeAndKeepsItsMode() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let old = try await makeSource(dir("copy.sqlite"), rows: 3)
        try await old.close().get()
        #expect(chmod(dir("copy.sqlite"), 0o640) == 0)
        let db = try await makeSource(dir("source.sqlite"), rows: 50)
        defer { db.close() }
        try await db.backup(to: dir("copy.sqlite")).get()
        #expect(try await rowCount(dir("copy.sqlite")) == 50)
        var info = stat()
        #expect(stat(dir("copy.sqlite"), &info) == 0 && info.st_mode & 0o777 == 0o640)
    }

    @Test func otherWorkOnTheSourceRunsBetweenSteps() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await makeSource(dir("source.sqlite"), rows: 400)
        defer { db.close() }
        let steps = Mutex(0)
        let gate = Gate()
        let blocked = db.readWithoutTransaction { _ in gate.wait() }
        let copy = db.backup(to: dir("copy.sqlite"), pagesPerStep: 1, on: .inline) { _ in steps.withLock { $0 += 1 } }
        let stepsSeenByQuery = db.readWithoutTransaction { db in
            _ = try db.scalar(Int.self, "SELECT count(*) FROM items")
            return steps.withLock { $0 }
        }
        gate.open()
        try await blocked.get()
        let seen = try await stepsSeenByQuery.get()
        try await copy.get()
        let total = steps.withLock { $0 }
        #expect(total > 400)
        #expect(seen <= 2, "the query ran after at most the first step, not after all \(total)")
    }

    @Test func changesBetweenStepsAreInTheCopy() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await makeSource(dir("source.sqlite"), rows: 100)
        defer { db.close() }
        let other = try await SQLiteDatabase.open(path: dir("source.sqlite")).get()
        defer { other.close() }
        let once = Once()
        let copy = db.backup(to: dir("copy.sqlite"), pagesPerStep: 5, on: .inline) { progress in
            // On the source's thread, between two steps.
            if progress.copiedPages == 10, once.first("same") {
                // Same connection: queued before the next step, and copied along.
                _ = db.execute("UPDATE items SET payload = x'AA' WHERE id = 1")
            } else if progress.copiedPages == 50, once.first("other") {
                // Another connection, committed before the next step: the copy starts over.
                _ = try? awaitPromise(other.execute("INSERT INTO items(payload) VALUES (x'BB')"))
            }
        }
        try await copy.get()
        let copied = try await SQLiteDatabase.open(path: dir("copy.sqlite")).get()
        defer { copied.close() }
        let sourceRows = try await db.scalar(Int.self, "SELECT count(*) FROM items").get()
        #expect(sourceRows == 101)
        #expect(try await copied.scalar(Int.self, "SELECT count(*) FROM items").get() == sourceRows)
        #expect(try await copied.scalar([UInt8].self, "SELECT payload FROM items WHERE id = 1").get() == [0xAA])
    }

    @Test(arguments: [0, -1, Int.min])
    func aStepSizeUnderOneIsRefused(pages: Int) async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await makeSource(dir("source.sqlite"), rows: 5)
        defer { db.close() }
        let error = try #require(await sqliteError(db.backup(to: dir("copy.sqlite"), pagesPerStep: pages)))
        #expect(error.code == .invalidArgument && error.message.contains("\(pages)"), "\(error)")
        let intoDatabase = try #require(await sqliteError(db.backup(to: SQLiteDatabase.inMemory(), pagesPerStep: pages)))
        #expect(intoDatabase.code == .invalidArgument)
        #expect(directoryEntries(dir.path) == ["source.sqlite"])
    }

    @Test func theLargestStepSizeCopiesEverythingInOneStep() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await makeSource(dir("source.sqlite"), rows: 60)
        defer { db.close() }
        let reports = Reports()
        try await db.backup(to: dir("copy.sqlite"), pagesPerStep: .max, on: .inline) { reports.append($0) }.get()
        #expect(reports.all.count == 1 && reports.all[0].isComplete)
        #expect(try await rowCount(dir("copy.sqlite")) == 60)
    }

    @Test func badDestinationsAreClearErrorsAndLeaveNothing() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await makeSource(dir("source.sqlite"), rows: 5)
        defer { db.close() }
        let missing = try #require(await sqliteError(db.backup(to: dir("no/such/dir/copy.sqlite"))))
        #expect(missing.code == .cannotOpen && missing.message.contains("no/such/dir/copy.sqlite"), "\(missing)")
        mkdir(dir("a-directory"), 0o755)
        let directory = try #require(await sqliteError(db.backup(to: dir("a-directory"))))
        #expect(directory.code == .invalidArgument, "\(directory)")
        let nul = try #require(await sqliteError(db.backup(to: dir("x\u{0}y"))))
        #expect(nul.code == .invalidArgument)
        let empty = try #require(await sqliteError(db.backup(to: "")))
        #expect(empty.code == .invalidArgument)
        // Its own file, by the same name and by another.
        for name in [dir("source.sqlite"), dir("a-directory/../source.sqlite")] {
            let itself = try #require(await sqliteError(db.backup(to: name)))
            #expect(itself.code == .invalidArgument && itself.message.contains("own file"), "\(itself)")
        }
        #expect(try await db.scalar(String.self, "PRAGMA integrity_check").get() == "ok")
        #expect(try await db.scalar(Int.self, "SELECT count(*) FROM items").get() == 5)
        #expect(directoryEntries(dir.path) == ["a-directory", "source.sqlite"])
        #expect(directoryEntries(dir("a-directory")) == [])
        let intoItself = try #require(await sqliteError(db.backup(to: db)))
        #expect(intoItself.code == .invalidArgument)
        // The same file opened twice: refused before anything is written.
        let twice = try await SQLiteDatabase.open(path: dir("source.sqlite")).get()
        defer { twice.close() }
        let intoTwice = try #require(await sqliteError(db.backup(to: twice)))
        #expect(intoTwice.code == .invalidArgument && intoTwice.message.contains("opened twice"), "\(intoTwice)")
        #expect(try await twice.scalar(Int.self, "SELECT count(*) FROM items").get() == 5)
    }

    @Test func cancellingAtEveryStepLeavesNoFile() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await makeSource(dir("source.sqlite"), rows: 12)
        defer { db.close() }
        let steps = try await db.scalar(Int.self, "PRAGMA page_count").get() ?? 0
        #expect(steps > 10)
        for cancelAt in 0...steps {
            let box = PromiseBox()
            let gate = Gate()
            let blocked = db.readWithoutTransaction { _ in gate.wait() }
            let copy = db.backup(to: dir("copy.sqlite"), pagesPerStep: 1, on: .inline) { progress in
                if progress.copiedPages == cancelAt { box.promise?.cancel() }
            }
            box.set(copy)
            if cancelAt == 0 { copy.cancel() }
            gate.open()
            try await blocked.get()
            if cancelAt < steps {
                #expect(await isCancelled(copy), "cancelled after step \(cancelAt)")
                #expect(directoryEntries(dir.path) == ["source.sqlite"], "after step \(cancelAt)")
            } else {
                // Cancelled once the last step has committed: the copy is done and kept.
                try await copy.get()
                #expect(try await rowCount(dir("copy.sqlite")) == 12)
            }
        }
    }

    @Test func cancellingABackupIntoADatabaseLeavesItAsItWas() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await makeSource(dir("source.sqlite"), rows: 20)
        defer { db.close() }
        let destination = try await makeSource(dir("destination.sqlite"), rows: 3)
        defer { destination.close() }
        let box = PromiseBox()
        let gate = Gate()
        let blocked = db.readWithoutTransaction { _ in gate.wait() }
        let copy = db.backup(to: destination, pagesPerStep: 1, on: .inline) { progress in
            if progress.copiedPages == 5 { box.promise?.cancel() }
        }
        box.set(copy)
        gate.open()
        try await blocked.get()
        #expect(await isCancelled(copy))
        #expect(try await destination.scalar(Int.self, "SELECT count(*) FROM items").get() == 3)
        #expect(try await destination.scalar(String.self, "PRAGMA integrity_check").get() == "ok")
    }

    @Test func waitingForABackupOnTheSourcesThreadFailsInsteadOfHanging() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await makeSource(dir("source.sqlite"), rows: 5)
        defer { db.close() }
        let copy = Mutex<Promise<Void>?>(nil)
        let waited = db.readWithoutTransaction { _ in
            let backup = db.backup(to: dir("copy.sqlite"))
            copy.withLock { $0 = backup }
            try awaitPromise(backup)
        }
        do {
            try await waited.get()
            Issue.record("awaitPromise on the source's thread must fail")
        } catch PromiseError.Code.deadlock {}
        // The backup itself goes on once the thread is free.
        try await #require(copy.withLock { $0 }).get()
        #expect(try await rowCount(dir("copy.sqlite")) == 5)
    }

    @Test func aDroppedOrBusyDestinationDatabase() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await makeSource(dir("source.sqlite"), rows: 30)
        defer { db.close() }
        // Dropped during the copy: the copy finishes, then the destination closes.
        var dropped: SQLiteDatabase? = try await SQLiteDatabase.open(path: dir("dropped.sqlite")).get()
        let copy = db.backup(to: dropped!, pagesPerStep: 2)
        dropped = nil
        try await copy.get()
        #expect(try await rowCount(dir("dropped.sqlite")) == 30)
        // Cancelled while waiting for a busy destination: it never starts.
        let destination = try await SQLiteDatabase.open(path: dir("busy.sqlite")).get()
        defer { destination.close() }
        _ = try await destination.execute("CREATE TABLE kept(x)").get()
        let gate = Gate()
        let busy = destination.readWithoutTransaction { _ in gate.wait() }
        let waiting = db.backup(to: destination)
        waiting.cancel()
        gate.open()
        try await busy.get()
        #expect(await isCancelled(waiting))
        #expect(try await destination.query(String.self, "SELECT name FROM sqlite_schema").get() == ["kept"])
        // And the roles are free again.
        try await db.backup(to: destination).get()
        #expect(try await destination.scalar(Int.self, "SELECT count(*) FROM items").get() == 30)
    }

    @Test func aDroppedSourceFinishesItsBackup() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        var db: SQLiteDatabase? = try await makeSource(dir("source.sqlite"), rows: 100)
        let copy = db!.backup(to: dir("copy.sqlite"), pagesPerStep: 3)
        db = nil
        try await copy.get()
        #expect(try await rowCount(dir("copy.sqlite")) == 100)
    }

    @Test func aSourceClosedMidwayRejectsAndLeavesNoFile() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await makeSource(dir("source.sqlite"), rows: 50)
        let gate = Gate()
        let blocked = db.readWithoutTransaction { _ in gate.wait() }
        let copy = db.backup(to: dir("copy.sqlite"), pagesPerStep: 1)
        let closed = db.close()
        gate.open()
        try await blocked.get()
        let error = try #require(await sqliteError(copy))
        #expect(error.code == .closed)
        try await closed.get()
        #expect(directoryEntries(dir.path) == ["source.sqlite"])
        // Into a database: the destination is let go, unchanged.
        let source = try await makeSource(dir("source.sqlite"), rows: 0)
        let destination = SQLiteDatabase.inMemory()
        defer { destination.close() }
        _ = try await destination.execute("CREATE TABLE kept(x)").get()
        let gate2 = Gate()
        let blocked2 = source.readWithoutTransaction { _ in gate2.wait() }
        let copy2 = source.backup(to: destination, pagesPerStep: 1)
        let closed2 = source.close()
        gate2.open()
        try await blocked2.get()
        #expect(try #require(await sqliteError(copy2)).code == .closed)
        try await closed2.get()
        #expect(try await destination.query(String.self, "SELECT name FROM sqlite_schema").get() == ["kept"])
    }

    @Test func aClosedDestinationOrSourceRejects() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await makeSource(dir("source.sqlite"), rows: 5)
        let destination = SQLiteDatabase.inMemory()
        try await destination.close().get()
        #expect(try #require(await sqliteError(db.backup(to: destination))).code == .closed)
        try await db.close().get()
        #expect(try #require(await sqliteError(db.backup(to: dir("copy.sqlite")))).code == .closed)
        #expect(try #require(await sqliteError(db.backup(to: SQLiteDatabase.inMemory()))).code == .closed)
        #expect(directoryEntries(dir.path) == ["source.sqlite"])
    }

    @Test func backupsThatWouldWaitOnEachOtherAreRefused() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let a = try await makeSource(dir("a.sqlite"), rows: 20)
        defer { a.close() }
        let b = try await makeSource(dir("b.sqlite"), rows: 20)
        defer { b.close() }
        let gate = Gate()
        let blocked = a.readWithoutTransaction { _ in gate.wait() }
        let aIntoB = a.backup(to: b, pagesPerStep: 1)
        // b is copied into: it cannot be a source or a destination; a is a source: it cannot be a destination.
        #expect(try #require(await sqliteError(b.backup(to: a))).code == .invalidUse)
        #expect(try #require(await sqliteError(b.backup(to: SQLiteDatabase.inMemory()))).code == .invalidUse)
        #expect(try #require(await sqliteError(SQLiteDatabase.inMemory().backup(to: b))).code == .invalidUse)
        #expect(try #require(await sqliteError(SQLiteDatabase.inMemory().backup(to: a))).code == .invalidUse)
        // A source may feed several backups, and b may still be copied to a file.
        let aIntoMemory = a.backup(to: SQLiteDatabase.inMemory(), pagesPerStep: 4)
        gate.open()
        try await blocked.get()
        try await aIntoB.get()
        try await aIntoMemory.get()
        try await b.backup(to: dir("b-copy.sqlite")).get()
        // Once done, the roles are free again.
        try await b.backup(to: a).get()
        #expect(try await a.scalar(Int.self, "SELECT count(*) FROM items").get() == 20)
    }

    @Test func anOpenWriteTransactionOnTheSourceIsAClearError() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let db = try await makeSource(dir("source.sqlite"), rows: 5)
        defer { db.close() }
        _ = try await db.execute("BEGIN IMMEDIATE").get()
        _ = try await db.execute("INSERT INTO items(payload) VALUES (x'00')").get()
        let error = try #require(await sqliteError(db.backup(to: dir("copy.sqlite"))))
        #expect(error.code == .busy && error.message.contains("write transaction open"), "\(error)")
        #expect(directoryEntries(dir.path) == ["source.sqlite", "source.sqlite-journal"], "no copy, no temporary file")
        _ = try await db.execute("ROLLBACK").get()
        try await db.backup(to: dir("copy.sqlite")).get()
        #expect(try await rowCount(dir("copy.sqlite")) == 5)
    }

    @Test func aPoolsWriterBacksUp() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let seed = try await makeSource(dir("pool.sqlite"), rows: 30)
        try await seed.close().get()
        let pool = try await SQLiteDatabasePool.open(path: dir("pool.sqlite"), readers: 1).get()
        try await pool.writer.backup(to: dir("copy.sqlite")).get()
        #expect(directoryEntries(dir.path).filter { !$0.hasPrefix("pool.sqlite") } == ["copy.sqlite"], "no -wal, -shm or temporary file")
        #expect(try await rowCount(dir("copy.sqlite")) == 30)
        try await pool.close().get()
    }
}
