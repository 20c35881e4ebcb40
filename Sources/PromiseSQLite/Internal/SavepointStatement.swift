/// What a statement does to the savepoint stack, read from its SQL text: the change observer
/// (``ObservationHub``) must forget the rows of a savepoint that is rolled back to, and SQLite's
/// hooks do not report `ROLLBACK TO`.
///
/// Only the leading keywords and the name are read, the way SQLite's parser reads them:
/// `SAVEPOINT name`, `RELEASE [SAVEPOINT] name`, `ROLLBACK [TRANSACTION] TO [SAVEPOINT] name`,
/// with comments and whitespace anywhere between, and names bare or quoted (`"…"`, `[…]`,
/// `` `…` ``, `'…'`). Names are folded to ASCII lower case, as SQLite compares them.
enum SavepointStatement: Equatable {
    case savepoint(String)
    case release(String)
    case rollbackTo(String)

    /// The savepoint operation of the statement `sql` (a NUL-terminated UTF-8 string), or `nil`
    /// for any other statement.
    static func parse(_ sql: UnsafePointer<CChar>) -> SavepointStatement? {
        var scanner = Scanner(sql.withMemoryRebound(to: UInt8.self, capacity: 1) { $0 })
        guard let first = scanner.word() else { return nil }
        switch first {
        case "savepoint":
            return scanner.name().map { .savepoint($0) }
        case "release":
            guard let word = scanner.name() else { return nil }
            if word == "savepoint", !scanner.lastWasQuoted, let name = scanner.name() { return .release(name) }
            return .release(word)
        case "rollback":
            var word = scanner.word()
            if word == "transaction" { word = scanner.word() }
            guard word == "to", let name = scanner.name() else { return nil }
            if name == "savepoint", !scanner.lastWasQuoted, let actual = scanner.name() { return .rollbackTo(actual) }
            return .rollbackTo(name)
        default:
            return nil
        }
    }

    /// The first keyword of the statement `sql` (a NUL-terminated UTF-8 string), lower-cased,
    /// after any whitespace and comments; `nil` when it starts with something else.
    static func leadingKeyword(_ sql: UnsafePointer<CChar>) -> String? {
        var scanner = Scanner(sql.withMemoryRebound(to: UInt8.self, capacity: 1) { $0 })
        return scanner.word()
    }

    /// Reads tokens from a NUL-terminated UTF-8 string.
    private struct Scanner {
        var position: UnsafePointer<UInt8>
        /// Whether the last ``name()`` was quoted, so it cannot be a keyword.
        var lastWasQuoted = false

        init(_ start: UnsafePointer<UInt8>) { position = start }

        var current: UInt8 { position.pointee }

        /// Skips whitespace, `-- …` comments and `/* … */` comments.
        mutating func skipSpace() {
            while true {
                switch current {
                case 0x20, 0x09, 0x0A, 0x0C, 0x0D:
                    position += 1
                case UInt8(ascii: "-") where position[1] == UInt8(ascii: "-"):
                    while current != 0, current != 0x0A { position += 1 }
                case UInt8(ascii: "/") where position[1] == UInt8(ascii: "*"):
                    position += 2
                    while current != 0, !(current == UInt8(ascii: "*") && position[1] == UInt8(ascii: "/")) { position += 1 }
                    if current != 0 { position += 2 }
                default:
                    return
                }
            }
        }

        /// A bare word (letters, digits, `_`, `$`, and any non-ASCII byte), lower-cased; `nil`
        /// at the end or before anything else.
        mutating func word() -> String? {
            skipSpace()
            var bytes = [UInt8]()
            while Self.isWordByte(current) {
                bytes.append(Self.lowercased(current))
                position += 1
            }
            return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
        }

        /// A bare word or a quoted name, lower-cased.
        mutating func name() -> String? {
            skipSpace()
            let close: UInt8
            switch current {
            case UInt8(ascii: "\""): close = UInt8(ascii: "\"")
            case UInt8(ascii: "'"): close = UInt8(ascii: "'")
            case UInt8(ascii: "`"): close = UInt8(ascii: "`")
            case UInt8(ascii: "["): close = UInt8(ascii: "]")
            default:
                lastWasQuoted = false
                return word()
            }
            lastWasQuoted = true
            position += 1
            var bytes = [UInt8]()
            while current != 0 {
                if current == close {
                    // A doubled closing quote is one quote character, except in [brackets].
                    guard close != UInt8(ascii: "]"), position[1] == close else {
                        position += 1
                        return String(decoding: bytes, as: UTF8.self)
                    }
                    position += 1
                }
                bytes.append(Self.lowercased(current))
                position += 1
            }
            return nil  // unterminated: not a statement SQLite runs
        }

        static func isWordByte(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "_"), UInt8(ascii: "$"), 0x80...0xFF:
                true
            default:
                false
            }
        }

        static func lowercased(_ byte: UInt8) -> UInt8 {
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
        }
    }
}
