/// The values bound to a statement's parameters: positional (`?`, `?NNN`) or named
/// (`:name`, `@name`, `$name`).
///
/// Write them as a literal where a method takes them:
///
/// ```swift
/// db.execute("INSERT INTO users(name, age) VALUES (?, ?)", ["Ada", 36])
/// db.query("SELECT * FROM users WHERE name = :name", ["name": "Ada"])
/// ```
///
/// Positional values can also be given as arguments, each bound through its own type without
/// an existential box: `db.execute(sql, binding: "Ada", 36)` (see
/// ``SQLiteWriter/execute(_:binding:_:)``), the faster spelling in a loop.
///
/// Every parameter must get a value: a missing one is an error, never a silent `NULL`. Each
/// named parameter gets one value: a name given twice (`":a"` twice, or `"a"` and `":a"`) and a
/// name containing a NUL byte are refused with ``SQLiteError/Code-swift.struct/invalidBinding``
/// naming the parameter. Values are only ever bound, never spliced into SQL text.
public struct SQLiteBindings: Sendable, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    enum Storage: Sendable {
        case positional([SQLiteValue])
        /// Straight from an array literal: converted while binding, saving a second array.
        case literal([(any SQLiteValueConvertible)?])
        case named([(name: String, value: SQLiteValue)])
    }

    let storage: Storage

    /// No values, for statements without parameters.
    public static let none = SQLiteBindings([SQLiteValue]())

    /// Positional values, one per `?` in order.
    ///
    /// - Parameter values: The values.
    public init(_ values: [SQLiteValue]) {
        storage = .positional(values)
    }

    /// Positional values, one per `?` in order; `nil` binds `NULL`.
    ///
    /// - Parameter values: The values.
    public init(_ values: [(any SQLiteValueConvertible)?]) {
        storage = .positional(values.map { $0?.sqliteValue ?? .null })
    }

    /// Named values. A name may be written with or without its prefix: `"email"` binds
    /// `:email`, `@email` or `$email`, whichever the statement uses.
    ///
    /// - Parameter values: Names and values; `nil` binds `NULL`.
    public init(named values: [String: (any SQLiteValueConvertible)?]) {
        storage = .named(values.map { (name: $0.key, value: $0.value?.sqliteValue ?? .null) })
    }

    /// Positional values from an array literal: `[1, "two", nil]`.
    ///
    /// - Parameter elements: The values.
    public init(arrayLiteral elements: (any SQLiteValueConvertible)?...) {
        storage = .literal(elements)
    }

    /// Named values from a dictionary literal: `["name": "Ada", "age": 36]`.
    ///
    /// - Parameter elements: Names and values.
    public init(dictionaryLiteral elements: (String, (any SQLiteValueConvertible)?)...) {
        storage = .named(elements.map { (name: $0.0, value: $0.1?.sqliteValue ?? .null) })
    }

    /// How many values there are.
    public var count: Int {
        switch storage {
        case .positional(let values): values.count
        case .literal(let values): values.count
        case .named(let values): values.count
        }
    }
}
