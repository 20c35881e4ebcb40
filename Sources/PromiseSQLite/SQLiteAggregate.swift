/// The state of an aggregate SQL function written in Swift, for one group of rows: see
/// ``SQLiteFunction/init(_:argumentCount:options:aggregate:)``.
///
/// ```swift
/// struct Product: SQLiteAggregate {
///     var value = 1
///     mutating func step(_ arguments: [SQLiteValue]) throws {
///         guard let factor = Int.fromSQLiteValue(arguments[0]) else { return }
///         let (result, overflow) = value.multipliedReportingOverflow(by: factor)
///         if overflow { throw SQLiteError(.range, message: "product overflows Int") }
///         value = result
///     }
///     func finalize() throws -> (any SQLiteValueConvertible)? { value }
/// }
/// try await db.add(function: SQLiteFunction("product", argumentCount: 1, aggregate: Product.self)).get()
/// ```
///
/// SQLite creates one instance per group (with `init()`), calls ``step(_:)`` once per row of
/// the group and ``finalize()`` once at the end, all on the connection thread, inside the
/// statement. An instance never leaves that thread, so it need not be `Sendable` (its type
/// is: SQLite may create instances on any connection of a pool). When
/// ``step(_:)`` throws, the statement fails with that error and ``finalize()`` is not called;
/// the instance is released either way.
public protocol SQLiteAggregate: SendableMetatype {
    /// A fresh state, before the group's first row.
    init()

    /// Takes one row's arguments.
    ///
    /// - Parameter arguments: The row's arguments, as many as the function declares.
    /// - Throws: Any error, to fail the statement.
    mutating func step(_ arguments: [SQLiteValue]) throws

    /// The group's result. Called once, also for an empty group (`SELECT product(x) FROM t`
    /// on an empty table), where ``step(_:)`` was never called.
    ///
    /// - Returns: The result; `nil` is `NULL`.
    /// - Throws: Any error, to fail the statement.
    func finalize() throws -> (any SQLiteValueConvertible)?
}
