// FoundationEssentials, not Foundation: `Data` is the byte type most Swift code already has.
public import FoundationEssentials

extension Data: SQLiteValueConvertible {
    /// ``SQLiteValue/blob(_:)``.
    public var sqliteValue: SQLiteValue { .blob([UInt8](self)) }

    /// A blob column's bytes; `nil` for other storage classes.
    ///
    /// - Parameter value: The column's value.
    /// - Returns: The bytes, or `nil`.
    public static func fromSQLiteValue(_ value: SQLiteValue) -> Data? {
        if case .blob(let bytes) = value { return Data(bytes) }
        return nil
    }
}
