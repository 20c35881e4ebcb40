internal import PromiseCore
@testable internal import PromiseSQLite

/// Decodes rows of any shape into `Decodable` types and compares every result with what
/// `SQLiteRow.get(_:as:)`, the conversion the decoder is built on, says about the same columns:
/// a decode succeeds exactly when every property's column converts, and then holds those
/// values. Absent and `NULL` columns become `nil` in optional properties and an error in
/// required ones; a raw-value enum fails on an unknown raw value.
///
/// Two paths, as in the library:
/// - rows built directly, with any column names (empty, duplicated, differing only in case,
///   non-ASCII) and values;
/// - a real SQL query on an in-memory database (`SELECT ? AS "id", … UNION ALL SELECT …`),
///   decoded both from materialized rows and straight from the live statement, several rows
///   per query, so the decoder's per-position column hints carry from one row to the next.
///   Every value must also read back exactly as it was bound; NaN, which SQLite would store
///   as `NULL`, must be refused with a message naming the parameter.
enum RowDecodingCheck {
    static func run(_ data: UnsafeRawBufferPointer) throws(FuzzFailure) {
        var input = FuzzInput(data)
        if input.byte() & 1 == 0 {
            try checkDirectRow(&input)
        } else {
            try checkQuery(&input)
        }
    }

    // MARK: Rows built directly

    private static let namePool = ["id", "ID", "Id", "name", "NAME", "score", "flag", "data", "kind", "note", "other", "é", "É", ""]

    private static func checkDirectRow(_ input: inout FuzzInput) throws(FuzzFailure) {
        let count = input.int(below: 9)
        var names: [String] = []
        var values: [SQLiteValue] = []
        for _ in 0..<count {
            let pick = input.int(below: namePool.count + 1)
            names.append(pick < namePool.count ? namePool[pick] : input.string(maxCount: 12))
            values.append(value(&input))
        }
        let row = SQLiteRow(columns: SQLiteColumns(names), values: values)
        try compare(row)
    }

    /// Every decodable shape, decoded from `row` and compared with the reference.
    private static func compare(_ row: SQLiteRow) throws(FuzzFailure) {
        try same(attempt { try row.decode(Wide.self) }, Wide.reference(row), Wide.self, row)
        try same(attempt { try row.decode(Narrow.self) }, Narrow.reference(row), Narrow.self, row)
        try same(attempt { try row.decode(Branching.self) }, Branching.reference(row), Branching.self, row)
        try same(attempt { try row.decode(Int.self) }, row.isEmpty ? nil : attempt { try row.get(0, as: Int.self) }, Int.self, row)
        try same(
            attempt { try row.decode(UInt64.self) }, row.isEmpty ? nil : attempt { try row.get(0, as: Int64.self) }.flatMap { UInt64(exactly: $0) },
            UInt64.self, row)
        try same(attempt { try row.decode(String?.self) }, row.isEmpty ? nil : attempt { try row.get(0, as: String?.self) }, String?.self, row)
        try same(
            attempt { try row.decode(Kind.self) }, row.isEmpty ? nil : attempt { try row.get(0, as: String.self) }.flatMap(Kind.init(rawValue:)), Kind.self, row
        )
        let all = row.values.map { Int?.fromSQLiteValue($0) }
        try same(attempt { try row.decode([Int?].self) }, all.contains(where: { $0 == nil }) ? nil : all.map { $0! }, [Int?].self, row)
    }

    private static func same<T: Equatable>(_ decoded: T?, _ expected: T?, _ type: T.Type, _ row: SQLiteRow) throws(FuzzFailure) {
        try require(
            decoded == expected, "decoding \(row) as \(type) gave \(decoded.map { "\($0)" } ?? "an error"), expected \(expected.map { "\($0)" } ?? "an error")")
    }

    // MARK: A real query

    private static let database = SQLiteDatabase.inMemory()
    private static let sqlNames = ["id", "ID", "name", "Name", "score", "flag", "data", "kind", "note", "other", "é"]

    private static func checkQuery(_ input: inout FuzzInput) throws(FuzzFailure) {
        let columnCount = 1 + input.int(below: 6)
        let rowCount = 1 + input.int(below: 4)
        let names = (0..<columnCount).map { _ in sqlNames[input.int(below: sqlNames.count)] }
        let bound = (0..<(columnCount * rowCount)).map { _ in value(&input) }
        let select = names.map { "? AS \"\($0)\"" }.joined(separator: ", ")
        let again = Array(repeating: "?", count: columnCount).joined(separator: ", ")
        let sql = "SELECT " + select + String(repeating: " UNION ALL SELECT " + again, count: rowCount - 1)
        let bindings = SQLiteBindings(bound)
        let outcome = settled(
            database.read { connection -> String? in
                do {
                    let nanAt = bound.firstIndex { if case .real(let real) = $0 { real.isNaN } else { false } }
                    let rows: [SQLiteRow]
                    do {
                        rows = try connection.query(sql, bindings)
                    } catch let error as SQLiteError where nanAt != nil {
                        // SQLite would store NaN as NULL; PromiseSQLite refuses the binding instead.
                        return "\(error)".contains("parameter \(nanAt! + 1) is NaN") ? nil : "binding NaN failed with \(error)"
                    }
                    if let nanAt { return "binding NaN as parameter \(nanAt + 1) was accepted" }
                    guard rows.count == rowCount else { return "\(sql) gave \(rows.count) rows, expected \(rowCount)" }
                    for (r, row) in rows.enumerated() {
                        guard row.columns.names == names else { return "columns \(row.columns.names), expected \(names)" }
                        for (c, value) in row.values.enumerated() {
                            let sent = bound[r * columnCount + c]
                            if value != sent { return "bound \(sent), read back \(value) (row \(r), column \(c))" }
                        }
                    }
                    // The live-statement path must agree with the materialized rows, row for row.
                    if let problem = agree(Wide.self, rows, { try connection.query(Wide.self, sql, bindings) }) { return problem }
                    if let problem = agree(Narrow.self, rows, { try connection.query(Narrow.self, sql, bindings) }) { return problem }
                    if let problem = agree(Branching.self, rows, { try connection.query(Branching.self, sql, bindings) }) { return problem }
                    if let problem = agree(Kind.self, rows, { try connection.query(Kind.self, sql, bindings) }) { return problem }
                    var failure: FuzzFailure?
                    for row in rows {
                        do throws(FuzzFailure) { try compare(row) } catch { failure = error; break }
                    }
                    return failure?.message
                } catch {
                    return "query \(sql) failed: \(error)"
                }
            })
        if let error = outcome.error { throw FuzzFailure("read job failed: \(error)") }
        if let problem = outcome.value ?? nil { throw FuzzFailure(problem) }
    }

    /// `nil` when decoding every row at once from the statement gives what decoding the
    /// materialized rows one by one gives (the same values, or an error for both).
    private static func agree<T: Decodable & Equatable>(_ type: T.Type, _ rows: [SQLiteRow], _ live: () throws -> [T]) -> String? {
        let oneByOne = attempt { try rows.map { try $0.decode(T.self) } }
        let fromStatement = attempt(live)
        if oneByOne == fromStatement { return nil }
        return
            "decoding \(rows) as \(T.self): from the statement \(fromStatement.map { "\($0)" } ?? "an error"), row by row \(oneByOne.map { "\($0)" } ?? "an error")"
    }

    // MARK: Values

    private static func value(_ input: inout FuzzInput) -> SQLiteValue {
        switch input.int(below: 8) {
        case 0: return .null
        case 1: return .integer(Int64(Int8(bitPattern: input.byte())))
        case 2: return .integer(input.int64())
        case 3: return .integer([0, 1, -1, 127, 128, 255, 256, 65_535, 65_536, Int64(Int32.max) + 1, Int64.min, Int64.max][input.int(below: 12)])
        case 4:
            let real = Double(bitPattern: UInt64(bitPattern: input.int64()))
            return .real(real)
        case 5: return .text(["a", "b", "c", "A", "", "é"][input.int(below: 6)])
        case 6: return .text(input.string(maxCount: 16))
        default: return .blob(input.bytes(maxCount: 16))
        }
    }
}

// MARK: The decoded shapes and their references

enum Kind: String, Decodable, Equatable {
    case a, b, c
}

/// The value, or `nil` when `body` throws. Generic, so a `T` that is itself optional keeps
/// "threw" (`nil`) apart from "gave `nil`" (`.some(nil)`), where `try?` would flatten the two.
func attempt<T>(_ body: () throws -> T) -> T? {
    do { return try body() } catch { return nil }
}

/// Optional columns: `nil` when absent or `NULL`, the converted value when it converts, and a
/// failed decode (`.none`) when it does not.
private func optional<T: SQLiteValueConvertible>(_ row: SQLiteRow, _ name: String, _ type: T.Type) -> T?? {
    guard row.columns.index(of: name) != nil else { return .some(nil) }
    return attempt { try row.get(name, as: T?.self) }
}

/// A keyed type with every kind of property, required and optional.
struct Wide: Decodable, Equatable {
    var id: Int
    var name: String
    var score: Double?
    var flag: Bool?
    var data: [UInt8]?
    var kind: Kind?
    var note: String?

    /// Equal field by field, where a NaN score equals a NaN score: both sides read the same
    /// NaN from the row, and `==` on `Double` would call the two decodings different.
    static func == (lhs: Wide, rhs: Wide) -> Bool {
        let sameScore =
            switch (lhs.score, rhs.score) {
            case (nil, nil): true
            case (let left?, let right?): left == right || (left.isNaN && right.isNaN)
            default: false
            }
        return sameScore && lhs.id == rhs.id && lhs.name == rhs.name && lhs.flag == rhs.flag
            && lhs.data == rhs.data && lhs.kind == rhs.kind && lhs.note == rhs.note
    }

    static func reference(_ row: SQLiteRow) -> Wide? {
        guard let id = attempt({ try row.get("id", as: Int.self) }), let name = attempt({ try row.get("name", as: String.self) }),
            let score = optional(row, "score", Double.self), let flag = optional(row, "flag", Bool.self),
            let data = optional(row, "data", [UInt8].self), let kindText = optional(row, "kind", String.self),
            let note = optional(row, "note", String.self)
        else { return nil }
        var kind: Kind?
        if let kindText {
            guard let known = Kind(rawValue: kindText) else { return nil }
            kind = known
        }
        return Wide(id: id, name: name, score: score, flag: flag, data: data, kind: kind, note: note)
    }
}

/// Narrow and unsigned integers and `Float`: a value that does not fit must fail, never trap
/// or wrap.
struct Narrow: Decodable, Equatable {
    var id: Int8
    var score: UInt16?
    var flag: UInt64?
    var note: Float?

    static func reference(_ row: SQLiteRow) -> Narrow? {
        guard let id = attempt({ try row.get("id", as: Int8.self) }), let score = optional(row, "score", UInt16.self),
            let note = optional(row, "note", Float.self)
        else { return nil }
        var flag: UInt64?
        if row.columns.index(of: "flag") != nil {
            guard let stored = attempt({ try row.get("flag", as: Int64?.self) }) else { return nil }
            if let stored {
                guard let fits = UInt64(exactly: stored) else { return nil }
                flag = fits
            }
        }
        return Narrow(id: id, score: score, flag: flag, note: note)
    }
}

/// Looks its keys up in an order that depends on the row, so the decoder's per-position hints
/// from one row are wrong for the next.
struct Branching: Decodable, Equatable {
    var id: Int64?
    var name: String?
    var score: Int?

    init(id: Int64?, name: String?, score: Int?) {
        self.id = id
        self.name = name
        self.score = score
    }

    private enum CodingKeys: String, CodingKey { case id, name, score }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(Int64.self, forKey: .id)
        if (id ?? 0) & 1 == 0 {
            name = try container.decodeIfPresent(String.self, forKey: .name)
            score = try container.decodeIfPresent(Int.self, forKey: .score)
        } else {
            score = try container.decodeIfPresent(Int.self, forKey: .score)
            name = try container.decodeIfPresent(String.self, forKey: .name)
        }
    }

    static func reference(_ row: SQLiteRow) -> Branching? {
        guard let id = optional(row, "id", Int64.self), let name = optional(row, "name", String.self),
            let score = optional(row, "score", Int.self)
        else { return nil }
        return Branching(id: id, name: name, score: score)
    }
}
