// FoundationEssentials, not Foundation: `Data` is the byte type most Swift code already has.
public import FoundationEssentials

extension Data: SQLiteValueConvertible {
    /// ``SQLiteValue/blob(_:)``.
    public var sqliteValue: SQLiteValue { .blob([UInt8](self)) }

    /// A blob column's bytes, or a text column's bytes exactly as stored (UTF-8 or not);
    /// `nil` for numbers and `NULL`.
    ///
    /// - Parameter value: The column's value.
    /// - Returns: The bytes, or `nil`.
    public static func fromSQLiteValue(_ value: SQLiteValue) -> Data? {
        [UInt8].fromSQLiteValue(value).map { Data($0) }
    }
}
