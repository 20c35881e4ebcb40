/// The values of consecutive rows of one result, `width` to a row, in row order, stored in the
/// buffer's own allocation: what each ``SQLiteRow`` reads, one row at an offset. A result's
/// rows share their buffers, so reading rows costs no allocation per row, and a row holds one
/// reference. Rows hold a buffer through ``SharedRowBuffer``.
@usableFromInline
final class RowBuffer: ManagedBuffer<RowBuffer.Header, SQLiteValue> {
    /// What a buffer knows beside its values.
    @usableFromInline
    struct Header {
        /// The result's columns.
        let columns: SQLiteColumns
        /// How many values a row has: the number of columns.
        @usableFromInline let width: Int
        /// How many values are written.
        @usableFromInline var count: Int
    }

    /// How many values a buffer of a result's rows holds at most, rounded down to whole rows
    /// (and at least one row): what one row kept after the rest of its result is gone keeps
    /// alive, at most, beside its own values.
    static let capacity = 4096

    /// How many rows a buffer holds at most for a result `width` values wide.
    static func rows(width: Int) -> Int {
        Swift.max(1, capacity / Swift.max(1, width))
    }

    /// An empty buffer with room for `rows` rows of a result with `columns`.
    static func make(columns: SQLiteColumns, rows: Int) -> RowBuffer {
        let width = columns.names.count
        let made = create(minimumCapacity: rows * width) { _ in Header(columns: columns, width: width, count: 0) }
        return unsafeDowncast(made, to: RowBuffer.self)
    }

    deinit {
        _ = withUnsafeMutablePointers { header, values in values.deinitialize(count: header.pointee.count) }
    }

    // The header is read through its pointer: read as `header`, a class's stored property,
    // each read would make a run-time exclusivity check (about 10 instructions, three a row
    // read with `get`, `Benchmarks/sqlite-counts.sh`).

    /// The result's columns.
    var columns: SQLiteColumns { withUnsafeMutablePointerToHeader { $0.pointee.columns } }

    /// How many values a row has.
    @inlinable var width: Int { withUnsafeMutablePointerToHeader { $0.pointee.width } }

    /// How many values are written: whole rows, once the buffer is handed out.
    var count: Int { withUnsafeMutablePointerToHeader { $0.pointee.count } }

    /// Copies the current row of `statement` after the values written. The buffer must have
    /// room for it: call no more often than the rows it was made for.
    func appendRow(of statement: Statement) {
        withUnsafeMutablePointers { header, values in
            let width = header.pointee.width
            var next = values + header.pointee.count
            for index in 0..<width {
                next.initialize(to: statement.value(at: index))
                next += 1
                header.pointee.count += 1
            }
        }
    }

    /// Copies `row`, one value per column, after the values written. The buffer must have
    /// room for it.
    func appendRow(_ row: [SQLiteValue]) {
        precondition(row.count == width, "a row of \(row.count) values for \(width) columns")
        withUnsafeMutablePointers { header, values in
            (values + header.pointee.count).initialize(from: row, count: row.count)
            header.pointee.count += row.count
        }
    }

    /// The value at `offset` from the first row's first value; `offset` is below ``count``.
    @inlinable
    func value(at offset: Int) -> SQLiteValue {
        withUnsafeMutablePointerToElements { $0[offset] }
    }
}

/// A ``RowBuffer`` as the rows of any thread read it. `@unchecked Sendable`, because
/// `ManagedBuffer` cannot be `Sendable`: only the thread that reads the result writes a buffer,
/// with ``RowBuffer/appendRow(of:)``, before any row refers to it, and once rows are handed out
/// it is only read.
@usableFromInline
struct SharedRowBuffer: @unchecked Sendable {
    /// The buffer, read-only from here on.
    @usableFromInline let buffer: RowBuffer

    init(_ buffer: RowBuffer) { self.buffer = buffer }
}
