/// One value as SQLite stores it: one of its five storage classes.
///
/// Reading a column gives an `SQLiteValue`; ``SQLiteValueConvertible`` turns it into a Swift
/// type and back.
public enum SQLiteValue: Hashable, Sendable {
    /// `NULL`.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// An IEEE double. SQLite stores NaN as `NULL`, so PromiseSQLite refuses to bind it.
    case real(Double)
    /// UTF-8 text; may contain NUL characters.
    case text(String)
    /// Text whose bytes are not valid UTF-8, kept byte for byte.
    ///
    /// SQLite stores whatever bytes a writer gave it as TEXT. Reading such a value as `String`
    /// fails with ``SQLiteError/Code-swift.struct/invalidUTF8`` instead of replacing the bad
    /// bytes; reading it as `[UInt8]` or `Data` gives the bytes, and binding this value stores
    /// exactly the same bytes as TEXT again.
    case invalidText([UInt8])
    /// Bytes.
    case blob([UInt8])

    /// Whether this is ``null``.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The name of the storage class, as `typeof()` in SQL spells it: `integer`, `real`,
    /// `text`, `blob` or `null`.
    public var storageClass: String {
        switch self {
        case .null: "null"
        case .integer: "integer"
        case .real: "real"
        case .text, .invalidText: "text"
        case .blob: "blob"
        }
    }
}

extension SQLiteValue: CustomStringConvertible {
    /// The value as an SQL literal would show it (text quoted, blobs as `X'…'` hex, text that
    /// is not UTF-8 as `CAST(X'…' AS TEXT)`).
    public var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .text(let value): return "'" + value.replacingAll("'", with: "''") + "'"
        case .invalidText(let bytes): return "CAST(" + hexLiteral(bytes) + " AS TEXT)"
        case .blob(let bytes): return hexLiteral(bytes)
        }
    }
}

/// `X'C328'`: the SQL literal of a blob.
private func hexLiteral(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789ABCDEF".utf8)
    var hex = [UInt8]()
    hex.reserveCapacity(bytes.count * 2 + 3)
    hex.append(UInt8(ascii: "X"))
    hex.append(UInt8(ascii: "'"))
    for byte in bytes {
        hex.append(digits[Int(byte >> 4)])
        hex.append(digits[Int(byte & 0xf)])
    }
    hex.append(UInt8(ascii: "'"))
    return String(decoding: hex, as: UTF8.self)
}

extension String {
    /// `self` with every `target` replaced (no Foundation in this module's core files).
    fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        result.reserveCapacity(utf8.count)
        for character in self {
            if character == target { result += replacement } else { result.append(character) }
        }
        return result
    }
}
