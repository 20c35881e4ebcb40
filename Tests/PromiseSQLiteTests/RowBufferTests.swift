import PromiseSQLite
import PromiseTestSupport
import Testing

/// `n` rows of `(i, 'name' || i, i * 0.5)` for i from 1.
private func numbered(_ n: Int) -> String {
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(n)) SELECT i, 'name' || i AS name, i * 0.5 AS score FROM n"
}

/// The rows of a `query` share buffers, for 1, 2, 4, … rows and then for at most 4 096 values
/// (1 365 rows of three): each row must still read its own values, and only its own, wherever
/// it sits in its buffer.
@Suite struct RowBufferTests {
    @Test func rowsOverManyBuffersReadTheirOwnValuesInOrder() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        // 5 000 rows of 3 values: buffers of 1 to 1 024 rows (2 047 in all), then of 1 365 rows,
        // the last one partly filled.
        let rows = try await db.query(numbered(5000)).get()
        #expect(rows.count == 5000)
        for (offset, row) in rows.enumerated() {
            let i = offset + 1
            guard row.count == 3, try row.get(0, as: Int.self) == i, try row.get("name", as: String.self) == "name\(i)",
                try row.get(2, as: Double.self) == Double(i) * 0.5
            else {
                Issue.record("row \(offset) is \(row), not (\(i), name\(i), \(Double(i) * 0.5))")
                return
            }
        }
        #expect(rows[2046].values == [.integer(2047), .text("name2047"), .real(1023.5)])
        #expect(rows[2047].values == [.integer(2048), .text("name2048"), .real(1024)])
        #expect(rows[4999].description == "(i: 5000, name: 'name5000', score: 2500.0)")
        #expect(Array(rows[3412]) == [.integer(3413), .text("name3413"), .real(1706.5)])
    }

    @Test func aColumnOutsideTheRowIsARangeErrorNotANeighboursValue() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        let rows = try await db.query(numbered(3000)).get()
        // Rows in the middle of a buffer and at its start and end: an index just outside one
        // would land on the row before or after it.
        for offset in [0, 1, 2, 1022, 1023, 1500, 2046, 2047, 2999] {
            let row = rows[offset]
            for index in [-1, 3, Int.max, Int.min] {
                do {
                    let value = try row.get(index, as: SQLiteValue.self)
                    Issue.record("row \(offset) read column \(index) as \(value)")
                } catch {
                    #expect(error.code == .range)
                    #expect(error.message.hasPrefix("no column \(index): the row has 3"))
                }
            }
            #expect(row.startIndex == 0 && row.endIndex == 3)
            #expect(row["score"] == .real(Double(offset + 1) * 0.5))
        }
    }

    @Test func aKeptRowOutlivesTheRestOfItsResult() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        var kept: [SQLiteRow] = []
        do {
            let rows = try await db.query(numbered(4000)).get()
            kept = [rows[0], rows[2047], rows[3999]]
        }
        #expect(
            kept.map { $0.values } == [
                [.integer(1), .text("name1"), .real(0.5)],
                [.integer(2048), .text("name2048"), .real(1024)],
                [.integer(4000), .text("name4000"), .real(2000)],
            ])
    }

    @Test func rowsWiderThanHalfABufferAreWholeAtEveryBoundary() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        // 2 000 columns (SQLite's limit): buffers of one row, then of two, and seven rows end
        // one half full.
        let columns = (0..<2000).map { "i * 10000 + \($0) AS c\($0)" }.joined(separator: ", ")
        let rows = try await db.query(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 7) SELECT \(columns) FROM n"
        ).get()
        #expect(rows.count == 7)
        for (offset, row) in rows.enumerated() {
            let i = offset + 1
            #expect(row.values == (0..<2000).map { .integer(Int64(i * 10000 + $0)) }, "row \(offset)")
        }
    }

    @Test func aStatementFailingMidResultRejectsAndKeepsNothing() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        // json() fails on the 3 000th row, in the middle of a buffer.
        let failing = db.query(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000) "
                + "SELECT i, json(CASE WHEN i = 3000 THEN 'not json' ELSE '\"x\"' END) AS j FROM n")
        let error = await sqliteError(failing)
        #expect(error?.code == .error)
        #expect(error?.message.contains("malformed JSON") == true)
        #expect(try await db.scalar(Int.self, "SELECT 42").get() == 42)
    }

    @Test func cancellingAQueryWhileItCollectsRowsStopsIt() async throws {
        let db = SQLiteDatabase.inMemory()
        defer { db.close() }
        // Rows without end: only the cancellation stops the collecting.
        let endless = db.query(
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10000000000) SELECT x, 'row' || x FROM c")
        try await expectCancellationStops(endless, on: db, unstopped: "uncancelled, it never ends")
    }
}
