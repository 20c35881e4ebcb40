internal import PromiseSystem

extension SQLiteError {
    /// What went wrong: an SQLite result code (`SQLITE_CONSTRAINT_UNIQUE` is 2067), or one of
    /// the conditions PromiseSQLite detects itself.
    ///
    /// A primary code matches every extended code built on it, both with `~=` in a `catch`
    /// clause and with ``matches(_:)``: `SQLiteError.Code.constraint` matches
    /// ``constraintUnique`` and ``constraintForeignKey``. `==` compares exactly.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Own: String, Hashable, Sendable {
            case closed, invalidBinding, invalidUse, invalidUTF8
            case migrationFailed, unknownMigration, invalidArgument
        }

        private let value: WrappedErrorCode<Own>

        private init(_ own: Own) { value = .own(own) }

        /// Wraps an SQLite result code.
        ///
        /// - Parameter resultCode: The (extended) result code, such as 2067.
        public init(resultCode: Int32) { value = .c(resultCode) }

        /// The (extended) result code, or `nil` for one of PromiseSQLite's own conditions
        /// (``closed``, ``invalidArgument``, ``invalidBinding``, ``invalidUse``, ``invalidUTF8``,
        /// ``migrationFailed``, ``unknownMigration``).
        public var resultCode: Int32? { value.cCode }

        /// The primary code: the low 8 bits of an extended code (`constraint` for
        /// `constraintUnique`). PromiseSQLite's own codes are their own primary code.
        public var primary: Code {
            resultCode.map { Code(resultCode: $0 & 0xff) } ?? self
        }

        /// Whether `other` is this code, or an extended code of this primary code.
        ///
        /// - Parameter other: The code of an error that was thrown.
        /// - Returns: `true` when `other` is this code or one of its extended codes.
        public func matches(_ other: Code) -> Bool {
            guard other != self else { return true }
            guard let resultCode, resultCode > 0, resultCode <= 0xff else { return false }
            return other.primary == self
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
        public static let error = Code(resultCode: 1)
        /// `SQLITE_INTERNAL`.
        public static let `internal` = Code(resultCode: 2)
        /// `SQLITE_PERM`: access permission denied.
        public static let permission = Code(resultCode: 3)
        /// `SQLITE_ABORT`: the operation was aborted (for example by a rollback).
        public static let abort = Code(resultCode: 4)
        /// `SQLITE_BUSY`: another connection holds a lock longer than the busy timeout.
        public static let busy = Code(resultCode: 5)
        /// `SQLITE_LOCKED`: a conflict inside this connection, such as a table in use.
        public static let locked = Code(resultCode: 6)
        /// `SQLITE_NOMEM`.
        public static let noMemory = Code(resultCode: 7)
        /// `SQLITE_READONLY`: a write to a database opened read-only, or a read-only file.
        public static let readOnly = Code(resultCode: 8)
        /// `SQLITE_INTERRUPT`: the statement was interrupted.
        public static let interrupt = Code(resultCode: 9)
        /// `SQLITE_IOERR`: the operating system reported an I/O error.
        public static let ioError = Code(resultCode: 10)
        /// `SQLITE_CORRUPT`: the database file is malformed.
        public static let corrupt = Code(resultCode: 11)
        /// `SQLITE_FULL`: the disk or the database is full.
        public static let full = Code(resultCode: 13)
        /// `SQLITE_CANTOPEN`: the file could not be opened.
        public static let cannotOpen = Code(resultCode: 14)
        /// `SQLITE_PROTOCOL`.
        public static let `protocol` = Code(resultCode: 15)
        /// `SQLITE_SCHEMA`: the schema changed.
        public static let schema = Code(resultCode: 17)
        /// `SQLITE_TOOBIG`: a string or blob is larger than SQLite's limit.
        public static let tooBig = Code(resultCode: 18)
        /// `SQLITE_CONSTRAINT`: a constraint failed; matches every `constraint…` code.
        public static let constraint = Code(resultCode: 19)
        /// `SQLITE_MISMATCH`: a data type mismatch.
        public static let mismatch = Code(resultCode: 20)
        /// `SQLITE_MISUSE`: the library was used incorrectly.
        public static let misuse = Code(resultCode: 21)
        /// `SQLITE_AUTH`: the authorizer refused.
        public static let authorization = Code(resultCode: 23)
        /// `SQLITE_RANGE`: a parameter index out of range.
        public static let range = Code(resultCode: 25)
        /// `SQLITE_NOTADB`: the file is not a database.
        public static let notADatabase = Code(resultCode: 26)

        // Extended result codes seen most often.

        /// `SQLITE_CONSTRAINT_CHECK`.
        public static let constraintCheck = Code(resultCode: 275)
        /// `SQLITE_CONSTRAINT_FOREIGNKEY`.
        public static let constraintForeignKey = Code(resultCode: 787)
        /// `SQLITE_CONSTRAINT_NOTNULL`.
        public static let constraintNotNull = Code(resultCode: 1299)
        /// `SQLITE_CONSTRAINT_PRIMARYKEY`.
        public static let constraintPrimaryKey = Code(resultCode: 1555)
        /// `SQLITE_CONSTRAINT_UNIQUE`.
        public static let constraintUnique = Code(resultCode: 2067)
        /// `SQLITE_BUSY_SNAPSHOT`: a read transaction's snapshot is too old to write from.
        public static let busySnapshot = Code(resultCode: 517)
        /// `SQLITE_READONLY_DBMOVED`: the database file was moved or deleted while open.
        public static let readOnlyDatabaseMoved = Code(resultCode: 1032)
        /// `SQLITE_CANTOPEN_ISDIR`: the path is a directory.
        public static let cannotOpenIsDirectory = Code(resultCode: 526)

        // PromiseSQLite's own codes.

        /// The database was closed, or could not be opened: no more work runs on it.
        public static let closed = Code(.closed)
        /// An argument PromiseSQLite cannot work with: a path or name holding a NUL byte, an
        /// empty name, a backup step under one page, a backup into the database itself. The
        /// name every product gives this condition (`PromiseError.Code.invalidArgument`,
        /// `CurlError.Code.invalidArgument`, `FSError.Code.invalidArgument`,
        /// `UVError.Code.invalidArgument`).
        public static let invalidArgument = Code(.invalidArgument)
        /// The bindings do not fit the statement: a missing named value, a wrong count, a NaN.
        public static let invalidBinding = Code(.invalidBinding)
        /// A ``SQLiteConnection`` was used outside the closure it was passed to, or a method
        /// that runs one statement was given several.
        public static let invalidUse = Code(.invalidUse)
        /// A text value is not valid UTF-8, so it does not read as `String`; read it as
        /// `[UInt8]` or `Data` for its bytes (``SQLiteValue/invalidText(_:)``).
        public static let invalidUTF8 = Code(.invalidUTF8)
        /// A migration of an ``SQLiteMigrator`` failed and was rolled back: the message names
        /// it, ``SQLiteError/underlying`` holds what it threw.
        public static let migrationFailed = Code(.migrationFailed)
        /// The database records a migration that the ``SQLiteMigrator`` does not know (a newer
        /// version of the program migrated it): nothing was run.
        public static let unknownMigration = Code(.unknownMigration)

        /// Another name for ``closed``, which is the name an error prints.
        @available(*, deprecated, renamed: "closed", message: "one name per code: a closed database's errors print closed")
        public static let shutdown = closed

        /// The code's name, as written after `SQLiteError.Code.` (`constraintUnique`), SQLite's
        /// name in that style for a result code without a constant here (`ioErrorShortRead`),
        /// or `SQLite code N`.
        public var name: String {
            switch value {
            case .own(let own): own.rawValue
            case .c(let code): Self.resultNames[code] ?? "SQLite code \(code)"
            }
        }

        /// The same as ``name``.
        public var description: String { name }

        private static let resultNames: [Int32: String] = [
            1: "error", 2: "internal", 3: "permission", 4: "abort", 5: "busy", 6: "locked", 7: "noMemory",
            8: "readOnly", 9: "interrupt", 10: "ioError", 11: "corrupt", 12: "notFound", 13: "full", 14: "cannotOpen",
            15: "protocol", 16: "empty", 17: "schema", 18: "tooBig", 19: "constraint", 20: "mismatch", 21: "misuse",
            22: "noLFS", 23: "authorization", 24: "format", 25: "range", 26: "notADatabase", 275: "constraintCheck",
            531: "constraintCommitHook", 787: "constraintForeignKey", 1043: "constraintFunction",
            1299: "constraintNotNull", 1555: "constraintPrimaryKey", 1811: "constraintTrigger",
            2067: "constraintUnique", 2323: "constraintVirtualTable", 2579: "constraintRowid",
            2835: "constraintPinned", 3091: "constraintDatatype", 261: "busyRecovery", 517: "busySnapshot",
            773: "busyTimeout", 262: "lockedSharedCache", 264: "readOnlyRecovery", 520: "readOnlyCannotLock",
            776: "readOnlyRollback", 1032: "readOnlyDatabaseMoved", 1288: "readOnlyCannotInit",
            1544: "readOnlyDirectory", 266: "ioErrorRead", 522: "ioErrorShortRead", 778: "ioErrorWrite",
            1034: "ioErrorFsync", 1290: "ioErrorDirectoryFsync", 1546: "ioErrorTruncate", 1802: "ioErrorFstat",
            2570: "ioErrorDelete", 3850: "ioErrorLock", 4874: "ioErrorSharedMemoryOpen", 3338: "ioErrorAccess",
            6410: "ioErrorGetTempPath", 267: "corruptVirtualTable", 523: "corruptSequence", 779: "corruptIndex",
            270: "cannotOpenNoTempDir", 526: "cannotOpenIsDirectory", 782: "cannotOpenFullPath",
            1038: "cannotOpenConvertPath", 513: "errorRetry", 769: "errorSnapshot", 516: "abortRollback",
            283: "noticeRecoverWAL", 539: "noticeRecoverRollback", 284: "warningAutoindex",
        ]

        /// Wraps a result code, or one of the negative numbers PromiseSQLite's own codes had
        /// (-1 ``closed``, -2 ``invalidBinding``, -3 ``invalidUse``, -4 ``invalidUTF8``).
        ///
        /// - Parameter rawValue: The value.
        @available(*, deprecated, renamed: "init(resultCode:)", message: "PromiseSQLite's own codes are its static members")
        public init(rawValue: Int32) {
            let own: [Int32: Own] = [-1: .closed, -2: .invalidBinding, -3: .invalidUse, -4: .invalidUTF8]
            value = own[rawValue].map { .own($0) } ?? .c(rawValue)
        }

        /// The result code, or the negative number PromiseSQLite's own code had (see
        /// ``init(rawValue:)``).
        @available(*, deprecated, renamed: "resultCode", message: "resultCode is nil for PromiseSQLite's own codes")
        public var rawValue: Int32 {
            switch value {
            case .c(let code): code
            case .own(.closed): -1
            case .own(.invalidBinding): -2
            case .own(.invalidUse): -3
            case .own(.invalidUTF8): -4
            case .own(.migrationFailed): -5
            case .own(.unknownMigration): -6
            case .own(.invalidArgument): -7
            }
        }
    }
}
