import Glibc
import PromiseSQLite
import Testing

/// Ways to damage a database file that PromiseSQLite made and closed.
enum Damage: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// Garbage over the first 100 bytes: the header, magic string included.
    case garbageHeader
    /// Header intact, garbage over every later page (the table's and the index's b-trees).
    case garbagePages
    /// Garbage over one page in the middle of the file, a leaf of the table or of the index.
    case garbageOnePage
    /// The second half of the file cut off: the header still claims every page.
    case truncatedToHalf
    /// Cut in the middle of the second page.
    case truncatedMidPage

    var testDescription: String { rawValue }

    func apply(to path: String) {
        let fd = open(path, O_RDWR)
        precondition(fd >= 0, "test setup: cannot open \(path)")
        defer { close(fd) }
        var info = stat()
        precondition(fstat(fd, &info) == 0 && info.st_size > 16 * 4096, "test setup: a database of \(info.st_size) bytes is too small")
        let size = Int(info.st_size)
        switch self {
        case .garbageHeader: overwrite(fd, from: 0, count: 100)
        case .garbagePages: overwrite(fd, from: 4096, count: size - 4096)
        case .garbageOnePage: overwrite(fd, from: size / 2 / 4096 * 4096, count: 4096)
        case .truncatedToHalf: precondition(ftruncate(fd, off_t(size / 2 / 4096 * 4096)) == 0)
        case .truncatedMidPage: precondition(ftruncate(fd, 4096 + 1000) == 0)
        }
        fsync(fd)
    }

    /// Deterministic garbage (a linear congruential sequence), so a failure reproduces.
    private func overwrite(_ fd: Int32, from offset: Int, count: Int) {
        var state: UInt32 = 0x2545_F491
        let bytes = (0..<count).map { _ -> UInt8 in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        let written = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, count, off_t(offset)) }
        precondition(written == count, "test setup: short write")
    }
}

@Suite struct CorruptionTests {
    /// A real database: 3 000 rows of 200-byte payloads and an index, about 1.4 MB on disk.
    func makeDatabase(_ path: String) async throws {
        let db = try await SQLiteDatabase.open(path: path).get()
        try await db.executeScript(
            """
            CREATE TABLE t(id INTEGER PRIMARY KEY, payload TEXT NOT NULL);
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000)
            INSERT INTO t SELECT x, printf('%0200d', x) FROM c;
            CREATE INDEX t_payload ON t(payload);
            """
        ).get()
        try await db.close().get()
    }

    /// Whether `error` is the clear verdict on a damaged file: corrupt or not a database.
    func isCorruption(_ error: SQLiteError?) -> Bool {
        guard let code = error?.code else { return false }
        return SQLiteError.Code.corrupt.matches(code) || SQLiteError.Code.notADatabase.matches(code)
    }

    @Test(arguments: Damage.allCases)
    func aDamagedDatabaseFileGivesACorruptOrNotADatabaseErrorNeverACrash(damage: Damage) async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir("damaged.sqlite")
        try await makeDatabase(path)
        damage.apply(to: path)

        let opening = SQLiteDatabase.open(path: path)
        guard let db = try? await opening.get() else {
            let error = await sqliteError(opening)
            #expect(isCorruption(error), "opening: \(String(describing: error))")
            return
        }
        // Opened (SQLite reads pages lazily): reading every row must fail, clearly. The first
        // scan reads only the index (it covers both columns), the second only the table.
        let scans = ["SELECT id, payload FROM t ORDER BY payload", "SELECT sum(length(payload)) FROM t NOT INDEXED"]
        var failed = 0
        for sql in scans {
            do {
                _ = try await db.query(sql).get()
            } catch let error as SQLiteError {
                failed += 1
                #expect(isCorruption(error), "\(error)")
                #expect(error.sql == sql && error.description.hasPrefix("SQLiteError."), "\(error)")
            }
        }
        // One damaged page belongs to the table or to the index; the other damage hits both.
        #expect(failed >= (damage == .garbageOnePage ? 1 : 2), "\(failed) of the scans noticed the damage")
        // A write either fails the same way or lands on pages that survived; it never crashes.
        do {
            try await db.transaction { db in _ = try db.execute("INSERT INTO t(payload) VALUES (?)", ["new"]) }.get()
        } catch let error as SQLiteError {
            #expect(isCorruption(error), "insert: \(error)")
        }
        // The connection still answers and closes normally.
        #expect(try await db.scalar(Int.self, "SELECT 41 + 1").get() == 42)
        try await db.close().get()
    }
}
