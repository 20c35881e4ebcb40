/// An SQL function written in Swift: a scalar function called once per row, or an aggregate
/// (``SQLiteAggregate``) that folds a group of rows into one value.
///
/// ```swift
/// let slugify = SQLiteFunction("slugify", argumentCount: 1, options: [.deterministic, .innocuous]) { arguments in
///     guard let text = String.fromSQLiteValue(arguments[0]) else { return nil }
///     return text.lowercased().split(separator: " ").joined(separator: "-")
/// }
/// try await db.add(function: slugify).get()
/// let slug = try await db.scalar(String.self, "SELECT slugify(?)", ["Hello World"]).get()   // "hello-world"
/// ```
///
/// Register a function with ``SQLiteDatabase/add(function:)`` or
/// ``SQLiteDatabasePool/add(function:)``: every connection gets it. The body runs on the
/// connection's thread, inside the statement that calls it, once per call: keep it fast and
/// free of waits, and never use the database from it. An error it throws fails the statement
/// with that error's description, and the operation's promise rejects with an
/// ``SQLiteError`` naming the function and the statement, with the thrown error as its
/// ``SQLiteError/underlying``.
///
/// The arguments and the result are ``SQLiteValue``s: read an argument with
/// ``SQLiteValueConvertible/fromSQLiteValue(_:)`` (`Int.fromSQLiteValue(arguments[0])`), and
/// return any ``SQLiteValueConvertible`` (`nil` is `NULL`).
public struct SQLiteFunction: Sendable {
    /// How SQLite may use a function: whether it may skip calls, and where SQL may call it.
    public struct Options: OptionSet, Sendable, Hashable {
        /// The raw flags.
        public let rawValue: Int32

        /// Creates options from raw flags.
        ///
        /// - Parameter rawValue: The flags.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// The same arguments always give the same result (`SQLITE_DETERMINISTIC`): SQLite may
        /// call the function once for a constant expression, and allows it in indexes on
        /// expressions, partial-index `WHERE` clauses and generated columns.
        public static let deterministic = Options(rawValue: 0x0000_0800)
        /// The function has no side effects and reads nothing but its arguments
        /// (`SQLITE_INNOCUOUS`). PromiseSQLite turns `trusted_schema` off, so only innocuous
        /// functions may be used by views, triggers, `CHECK` constraints, indexes and generated
        /// columns; claim it only when it is true, since the schema may come from an untrusted
        /// file.
        public static let innocuous = Options(rawValue: 0x0020_0000)
        /// The function may be called only from SQL that the program runs itself, never from
        /// the schema (views, triggers, constraints, indexes, generated columns)
        /// (`SQLITE_DIRECTONLY`). The right choice for a function with side effects, or one
        /// that reveals data: a crafted database file could otherwise call it.
        public static let directOnly = Options(rawValue: 0x0008_0000)
    }

    /// What the function computes.
    enum Kind: Sendable {
        case scalar(@Sendable ([SQLiteValue]) throws -> (any SQLiteValueConvertible)?)
        case aggregate(@Sendable () -> any SQLiteAggregate)
    }

    /// The name SQL calls the function by.
    public let name: String
    /// How many arguments it takes; `nil` for any number.
    public let argumentCount: Int?
    /// How SQLite may use it.
    public let options: Options
    let kind: Kind

    /// A scalar function: `body` computes one result from one call's arguments.
    ///
    /// - Parameters:
    ///   - name: The name SQL calls it by: 1 to 255 bytes of UTF-8, without NUL. Names are
    ///     matched without regard to ASCII case; a built-in function of the same name and
    ///     argument count is replaced on the connection.
    ///   - argumentCount: How many arguments it takes (0 to 127), or `nil` for any number.
    ///     Functions of one name may coexist with different counts.
    ///   - options: ``Options-swift.struct/deterministic``, ``Options-swift.struct/innocuous``,
    ///     ``Options-swift.struct/directOnly``.
    ///   - body: Called on the connection thread for each call, with its arguments; returns
    ///     the result (`nil` for `NULL`) or throws to fail the statement.
    public init(
        _ name: String,
        argumentCount: Int? = nil,
        options: Options = [],
        _ body: @escaping @Sendable (_ arguments: [SQLiteValue]) throws -> (any SQLiteValueConvertible)?
    ) {
        self.name = name
        self.argumentCount = argumentCount
        self.options = options
        kind = .scalar(body)
    }

    /// An aggregate function: a new `Aggregate` for each group of rows receives each row's
    /// arguments in ``SQLiteAggregate/step(_:)``, then gives the group's result in
    /// ``SQLiteAggregate/finalize()``.
    ///
    /// - Parameters:
    ///   - name: The name SQL calls it by (see ``init(_:argumentCount:options:_:)``).
    ///   - argumentCount: How many arguments it takes (0 to 127), or `nil` for any number.
    ///   - options: How SQLite may use it.
    ///   - aggregate: The type whose instances fold each group.
    public init<Aggregate: SQLiteAggregate>(
        _ name: String,
        argumentCount: Int? = nil,
        options: Options = [],
        aggregate: Aggregate.Type
    ) {
        self.name = name
        self.argumentCount = argumentCount
        self.options = options
        kind = .aggregate { Aggregate() }
    }

    /// The longest name SQLite accepts, in bytes of UTF-8.
    static let maximumNameLength = 255
    /// The most arguments a function may declare (`SQLITE_MAX_FUNCTION_ARG`).
    static let maximumArgumentCount = 127

    /// Throws ``SQLiteError/Code-swift.struct/invalidArgument`` unless SQLite can register a
    /// function of this name and argument count.
    func validate() throws(SQLiteError) {
        try validateName(name, of: "function")
        if let argumentCount, !(0...Self.maximumArgumentCount).contains(argumentCount) {
            throw SQLiteError(
                .invalidArgument,
                message: "the function '\(name)' declares \(argumentCount) arguments; SQLite allows 0 to \(Self.maximumArgumentCount), or nil for any number")
        }
    }
}

/// Throws ``SQLiteError/Code-swift.struct/invalidArgument`` unless `name` can name a function
/// or collation: 1 to 255 bytes of UTF-8, no NUL.
func validateName(_ name: String, of what: String) throws(SQLiteError) {
    let length = name.utf8.count
    if length == 0 {
        throw SQLiteError(.invalidArgument, message: "a \(what) needs a name; the name is empty")
    }
    if name.utf8.contains(0) {
        throw SQLiteError(
            .invalidArgument, message: "the \(what) name '\(name.replacing("\u{0}", with: "\\0"))' contains a NUL byte; SQLite would cut it there")
    }
    if length > SQLiteFunction.maximumNameLength {
        throw SQLiteError(
            .invalidArgument,
            message: "the \(what) name '\(name.prefix(40))…' is \(length) bytes long; SQLite allows at most \(SQLiteFunction.maximumNameLength)")
    }
}
