/// A Swift type that can be bound to a statement parameter and read back from a column.
///
/// PromiseSQLite provides conformances for `Int`, `Int64`, `Int32`, `Int16`, `Int8`,
/// `UInt32`, `UInt16`, `UInt8`, `Double`, `Float`, `String`, `Bool`, `[UInt8]`, `Data`,
/// ``SQLiteValue`` itself, and `Optional` of any of them (`nil` binds `NULL`).
///
/// Reading is strict: an integer column reads as `Int` but not as `String`, text reads as
/// `String` but not as `Int`, and an integer that does not fit the type is an error rather than
/// a truncated value. `Double` reads integer columns too, since SQLite stores whole-number reals
/// in `REAL` columns as integers when it can. `Float` is the one lossy reading: a double is
/// rounded to the nearest float, as `Float(_:)` does, but a finite double beyond `Float`'s
/// range (`1e300`) does not convert rather than becoming an infinity; a stored infinity or NaN
/// reads as itself.
public protocol SQLiteValueConvertible: Sendable {
    /// The value to bind.
    var sqliteValue: SQLiteValue { get }

    /// Converts a column value, or returns `nil` when it cannot be represented (exactly, for
    /// every provided conformance but `Float`).
    ///
    /// - Parameter value: The column's value.
    /// - Returns: The converted value, or `nil`.
    static func fromSQLiteValue(_ value: SQLiteValue) -> Self?
}

extension SQLiteValue: SQLiteValueConvertible {
    /// This value.
    @inlinable public var sqliteValue: SQLiteValue { self }

    /// `value`, unchanged.
    ///
    /// - Parameter value: The column's value.
    /// - Returns: `value`.
    public static func fromSQLiteValue(_ value: SQLiteValue) -> SQLiteValue? { value }
}

extension Int64: SQLiteValueConvertible {
    /// ``SQLiteValue/integer(_:)``.
    @inlinable public var sqliteValue: SQLiteValue { .integer(self) }

    /// An integer column's value; `nil` for other storage classes.
    ///
    /// - Parameter value: The column's value.
    /// - Returns: The integer, or `nil`.
    public static func fromSQLiteValue(_ value: SQLiteValue) -> Int64? {
        if case .integer(let integer) = value { return integer }
        return nil
    }
}

/// The fixed-width integers other than `Int64` convert through it, refusing what does not fit.
public protocol _SQLiteInteger: FixedWidthInteger, SQLiteValueConvertible {}

extension _SQLiteInteger {
    /// ``SQLiteValue/integer(_:)``.
    @inlinable public var sqliteValue: SQLiteValue { .integer(Int64(self)) }

    /// An integer column's value when it fits this type; `nil` otherwise.
    ///
    /// - Parameter value: The column's value.
    /// - Returns: The integer, or `nil`.
    public static func fromSQLiteValue(_ value: SQLiteValue) -> Self? {
        if case .integer(let integer) = value { return Self(exactly: integer) }
        return nil
    }
}

extension Int: _SQLiteInteger {}
extension Int32: _SQLiteInteger {}
extension Int16: _SQLiteInteger {}
extension Int8: _SQLiteInteger {}
extension UInt32: _SQLiteInteger {}
extension UInt16: _SQLiteInteger {}
extension UInt8: _SQLiteInteger {}

extension Double: SQLiteValueConvertible {
    /// ``SQLiteValue/real(_:)``. Binding NaN is refused with ``SQLiteError/Code-swift.struct/invalidBinding``.
    @inlinable public var sqliteValue: SQLiteValue { .real(self) }

    /// A real column's value, or an integer column's value when the double holds it exactly.
    ///
    /// - Parameter value: The column's value.
    /// - Returns: The double, or `nil`.
    public static func fromSQLiteValue(_ value: SQLiteValue) -> Double? {
        switch value {
        case .real(let real): return real
        case .integer(let integer): return Double(exactly: integer)
        default: return nil
        }
    }
}

extension Float: SQLiteValueConvertible {
    /// ``SQLiteValue/real(_:)``, widened to a double.
    @inlinable public var sqliteValue: SQLiteValue { .real(Double(self)) }

    /// A numeric column's value as a float, rounded to the nearest float. A finite value
    /// beyond `Float`'s range (`1e300`) does not convert; an infinity or NaN stays one.
    ///
    /// - Parameter value: The column's value.
    /// - Returns: The float, or `nil`.
    public static func fromSQLiteValue(_ value: SQLiteValue) -> Float? {
        switch value {
        case .integer(let integer):
            // Every 64-bit integer is within Float's range; rounded once, not through a
            // double (which holds only integers up to 2^53 exactly).
            return Float(integer)
        case .real(let double):
            let float = Float(double)
            return float.isInfinite && double.isFinite ? nil : float
        default:
            return nil
        }
    }
}

extension Bool: SQLiteValueConvertible {
    /// `1` or `0`, as SQLite stores booleans.
    @inlinable public var sqliteValue: SQLiteValue { .integer(self ? 1 : 0) }

    /// `true` for integer 1, `false` for integer 0; `nil` for anything else.
    ///
    /// - Parameter value: The column's value.
    /// - Returns: The boolean, or `nil`.
    public static func fromSQLiteValue(_ value: SQLiteValue) -> Bool? {
        switch value {
        case .integer(1): return true
        case .integer(0): return false
        default: return nil
        }
    }
}

extension String: SQLiteValueConvertible {
    /// ``SQLiteValue/text(_:)``: every byte of the UTF-8, NUL characters included.
    @inlinable public var sqliteValue: SQLiteValue { .text(self) }

    /// A text column's value; `nil` for other storage classes and for text that is not valid
    /// UTF-8 (``SQLiteValue/invalidText(_:)``), which reads fail with
    /// ``SQLiteError/Code-swift.struct/invalidUTF8`` rather than replace bytes.
    ///
    /// - Parameter value: The column's value.
    /// - Returns: The string, or `nil`.
    public static func fromSQLiteValue(_ value: SQLiteValue) -> String? {
        if case .text(let text) = value { return text }
        return nil
    }
}

extension Array: SQLiteValueConvertible where Element == UInt8 {
    /// ``SQLiteValue/blob(_:)``.
    @inlinable public var sqliteValue: SQLiteValue { .blob(self) }

    /// A blob column's bytes, or a text column's bytes exactly as stored (UTF-8 or not);
    /// `nil` for numbers and `NULL`.
    ///
    /// - Parameter value: The column's value.
    /// - Returns: The bytes, or `nil`.
    public static func fromSQLiteValue(_ value: SQLiteValue) -> [UInt8]? {
        switch value {
        case .blob(let bytes), .invalidText(let bytes): return bytes
        case .text(let text): return Array(text.utf8)
        case .null, .integer, .real: return nil
        }
    }
}

extension Optional: SQLiteValueConvertible where Wrapped: SQLiteValueConvertible {
    /// The wrapped value's, or ``SQLiteValue/null`` for `nil`.
    @inlinable public var sqliteValue: SQLiteValue { self?.sqliteValue ?? .null }

    /// `.some(nil)` for `NULL`; otherwise the wrapped type's conversion.
    ///
    /// - Parameter value: The column's value.
    /// - Returns: The optional, or `nil` when the wrapped type cannot represent the value.
    public static func fromSQLiteValue(_ value: SQLiteValue) -> Wrapped?? {
        if case .null = value { return .some(nil) }
        return Wrapped.fromSQLiteValue(value).map { .some($0) }
    }
}
