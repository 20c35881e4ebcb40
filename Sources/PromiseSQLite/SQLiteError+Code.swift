extension SQLiteError {
    /// An SQLite result code (`SQLITE_CONSTRAINT_UNIQUE` is 2067), or one of PromiseSQLite's
    /// own negative codes.
    ///
    /// A primary code matches every extended code built on it, both with `~=` in a `catch`
    /// clause and with ``matches(_:)``: `SQLiteError.Code.constraint` matches
    /// ``constraintUnique`` and ``constraintForeignKey``. `==` compares exactly.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The extended result code, or a negative PromiseSQLite code.
        public let rawValue: Int32

        /// Creates a code from an SQLite result code.
        ///
        /// - Parameter rawValue: The (extended) result code.
        public init(rawValue: Int32) {
            self.rawValue = rawValue
        }

        /// The primary code: the low 8 bits of an extended code (`constraint` for
        /// `constraintUnique`). PromiseSQLite's own codes are their own primary code.
        public var primary: Code {
            rawValue < 0 ? self : Code(rawValue: rawValue & 0xff)
        }

        /// Whether `other` is this code, or an extended code of this primary code.
        ///
        /// - Parameter other: The code of an error that was thrown.
        /// - Returns: `true` when `other` is this code or one of its extended codes.
        public func matches(_ other: Code) -> Bool {
            other == self || (rawValue > 0 && rawValue <= 0xff && other.primary == self)
        }

        /// Matches an error thrown by PromiseSQLite in a `catch` clause or `switch`.
        ///
        /// - Parameters:
        ///   - code: The code to match; a primary code matches its extended codes.
        ///   - error: The error thrown.
        /// - Returns: `true` when `error` is an ``SQLiteError`` whose code `code` matches.
        public static func ~= (code: Code, error: any Error) -> Bool {
            guard let error = error as? SQLiteError else { return false }
            return code.matches(error.code)
        }

        // Primary result codes (sqlite3.h).

        /// `SQLITE_ERROR`: a generic error, such as an SQL syntax error or a missing table.
        public static let error = Code(rawValue: 1)
        /// `SQLITE_INTERNAL`.
        public static let `internal` = Code(rawValue: 2)
        /// `SQLITE_PERM`: access permission denied.
        public static let permission = Code(rawValue: 3)
        /// `SQLITE_ABORT`: the operation was aborted (for example by a rollback).
        public static let abort = Code(rawValue: 4)
        /// `SQLITE_BUSY`: another connection holds a lock longer than the busy timeout.
        public static let busy = Code(rawValue: 5)
        /// `SQLITE_LOCKED`: a conflict inside this connection, such as a table in use.
        public static let locked = Code(rawValue: 6)
        /// `SQLITE_NOMEM`.
        public static let noMemory = Code(rawValue: 7)
        /// `SQLITE_READONLY`: a write to a database opened read-only, or a read-only file.
        public static let readOnly = Code(rawValue: 8)
        /// `SQLITE_INTERRUPT`: the statement was interrupted.
        public static let interrupt = Code(rawValue: 9)
        /// `SQLITE_IOERR`: the operating system reported an I/O error.
        public static let ioError = Code(rawValue: 10)
        /// `SQLITE_CORRUPT`: the database file is malformed.
        public static let corrupt = Code(rawValue: 11)
        /// `SQLITE_FULL`: the disk or the database is full.
        public static let full = Code(rawValue: 13)
        /// `SQLITE_CANTOPEN`: the file could not be opened.
        public static let cannotOpen = Code(rawValue: 14)
        /// `SQLITE_PROTOCOL`.
        public static let `protocol` = Code(rawValue: 15)
        /// `SQLITE_SCHEMA`: the schema changed.
        public static let schema = Code(rawValue: 17)
        /// `SQLITE_TOOBIG`: a string or blob is larger than SQLite's limit.
        public static let tooBig = Code(rawValue: 18)
        /// `SQLITE_CONSTRAINT`: a constraint failed; matches every `constraint…` code.
        public static let constraint = Code(rawValue: 19)
        /// `SQLITE_MISMATCH`: a data type mismatch.
        public static let mismatch = Code(rawValue: 20)
        /// `SQLITE_MISUSE`: the library was used incorrectly.
        public static let misuse = Code(rawValue: 21)
        /// `SQLITE_AUTH`: the authorizer refused.
        public static let authorization = Code(rawValue: 23)
        /// `SQLITE_RANGE`: a parameter index out of range.
        public static let range = Code(rawValue: 25)
        /// `SQLITE_NOTADB`: the file is not a database.
        public static let notADatabase = Code(rawValue: 26)

        // Extended result codes seen most often.

        /// `SQLITE_CONSTRAINT_CHECK`.
        public static let constraintCheck = Code(rawValue: 275)
        /// `SQLITE_CONSTRAINT_FOREIGNKEY`.
        public static let constraintForeignKey = Code(rawValue: 787)
        /// `SQLITE_CONSTRAINT_NOTNULL`.
        public static let constraintNotNull = Code(rawValue: 1299)
        /// `SQLITE_CONSTRAINT_PRIMARYKEY`.
        public static let constraintPrimaryKey = Code(rawValue: 1555)
        /// `SQLITE_CONSTRAINT_UNIQUE`.
        public static let constraintUnique = Code(rawValue: 2067)
        /// `SQLITE_BUSY_SNAPSHOT`: a read transaction's snapshot is too old to write from.
        public static let busySnapshot = Code(rawValue: 517)
        /// `SQLITE_READONLY_DBMOVED`: the database file was moved or deleted while open.
        public static let readOnlyDatabaseMoved = Code(rawValue: 1032)
        /// `SQLITE_CANTOPEN_ISDIR`: the path is a directory.
        public static let cannotOpenIsDirectory = Code(rawValue: 526)

        // PromiseSQLite's own codes.

        /// The database was closed, or could not be opened: no more work runs on it.
        public static let closed = Code(rawValue: -1)
        /// The bindings do not fit the statement: a missing named value, a wrong count, a NaN.
        public static let invalidBinding = Code(rawValue: -2)
        /// A ``SQLiteConnection`` was used outside the closure it was passed to, or a method
        /// that runs one statement was given several.
        public static let invalidUse = Code(rawValue: -3)
        /// A text value is not valid UTF-8, so it does not read as `String`; read it as
        /// `[UInt8]` or `Data` for its bytes (``SQLiteValue/invalidText(_:)``).
        public static let invalidUTF8 = Code(rawValue: -4)

        // The names every product gives these conditions.

        /// ``closed`` by the name every product uses for "its owner was shut down"
        /// (`CurlError.Code.shutdown`, `UVError.Code.shutdown`); equal to it.
        public static let shutdown = closed
        /// ``invalidUse`` by the name every product uses for arguments it cannot work with
        /// (`PromiseError.Code.invalidArgument`, `CurlError.Code.invalidArgument`); equal to it.
        public static let invalidArgument = invalidUse

        /// A short phrase, such as `constraint unique`.
        public var description: String {
            if let name = Self.names[rawValue] { return name }
            if rawValue > 0xff, let primary = Self.names[rawValue & 0xff] {
                return "\(primary), extended code \(rawValue >> 8)"
            }
            return "code \(rawValue)"
        }

        private static let names: [Int32: String] = [
            1: "error", 2: "internal", 3: "permission", 4: "abort", 5: "busy", 6: "locked",
            7: "no memory", 8: "read only", 9: "interrupt", 10: "I/O error", 11: "corrupt",
            12: "not found", 13: "full", 14: "cannot open", 15: "protocol", 16: "empty",
            17: "schema", 18: "too big", 19: "constraint", 20: "mismatch", 21: "misuse",
            22: "no LFS", 23: "authorization", 24: "format", 25: "range", 26: "not a database",
            275: "constraint check", 531: "constraint commit hook", 787: "constraint foreign key",
            1043: "constraint function", 1299: "constraint not null", 1555: "constraint primary key",
            1811: "constraint trigger", 2067: "constraint unique", 2323: "constraint virtual table",
            2579: "constraint rowid", 2835: "constraint pinned", 3091: "constraint datatype",
            261: "busy recovery", 517: "busy snapshot", 773: "busy timeout",
            262: "locked shared cache", 264: "read only recovery", 520: "read only cannot lock",
            776: "read only rollback", 1032: "read only database moved", 1288: "read only cannot init",
            1544: "read only directory", 266: "I/O error read", 522: "I/O error short read",
            778: "I/O error write", 1034: "I/O error fsync", 1290: "I/O error directory fsync",
            1546: "I/O error truncate", 1802: "I/O error fstat", 2570: "I/O error delete",
            3850: "I/O error lock", 4874: "I/O error shared memory open", 3338: "I/O error access",
            6410: "I/O error get temp path", 267: "corrupt virtual table",
            523: "corrupt sequence", 779: "corrupt index", 270: "cannot open no temp dir",
            526: "cannot open is directory", 782: "cannot open full path",
            1038: "cannot open convert path", 513: "error retry", 769: "error snapshot",
            516: "abort rollback", 283: "notice recover WAL", 539: "notice recover rollback",
            284: "warning autoindex",
            -1: "database closed", -2: "invalid binding", -3: "invalid use", -4: "invalid UTF-8",
        ]
    }
}
