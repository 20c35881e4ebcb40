/// The values of consecutive rows of one result, `width` to a row, in row order: what each
/// ``SQLiteRow`` reads, one row at an offset. A result's rows share their buffers, so reading
/// rows costs no allocation per row, and a row holds one reference.
@usableFromInline
final class RowBuffer: Sendable {
    /// The result's columns.
    let columns: SQLiteColumns
    /// The rows' values, whole rows only.
    @usableFromInline let values: [SQLiteValue]
    /// How many values a row has: the number of columns.
    @usableFromInline let width: Int

    /// How many values a buffer of a result's rows holds at most, rounded down to whole rows
    /// (and at least one row): what one row kept after the rest of its result is gone keeps
    /// alive, at most, beside its own values.
    static let capacity = 4096

    init(columns: SQLiteColumns, values: [SQLiteValue]) {
        self.columns = columns
        self.values = values
        width = columns.names.count
    }

    /// How many rows a buffer holds at most for a result `width` values wide.
    static func rows(width: Int) -> Int {
        Swift.max(1, capacity / Swift.max(1, width))
    }
}
