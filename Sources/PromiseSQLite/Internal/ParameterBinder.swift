/// Binds values to a statement's parameters in order, one call per value, for the methods
/// that take their values as `binding:` arguments. ``bind(_:_:_:)`` is inlined into the
/// caller, where each value's type is known: a value is converted by its own type's
/// `sqliteValue`, never boxed in an existential or collected in an array.
///
/// A value past the statement's last parameter is counted, not bound, so that the error can
/// say how many values were given against how many parameters there are.
@usableFromInline
struct ParameterBinder: ~Copyable {
    private let statement: Statement
    private let parameterCount: Int
    private var given = 0

    @usableFromInline
    init(_ statement: Statement) {
        self.statement = statement
        parameterCount = statement.parameterCount
    }

    /// Binds `first` and then each of `values` to the next parameter of `statement`, then
    /// checks that every parameter got one.
    @inlinable
    static func bind<First: SQLiteValueConvertible, each Value: SQLiteValueConvertible>(
        _ statement: Statement, _ first: First, _ values: repeat each Value
    ) throws(SQLiteError) {
        var binder = ParameterBinder(statement)
        try binder.bind(first.sqliteValue)
        repeat try binder.bind((each values).sqliteValue)
        try binder.finish()
    }

    /// Binds `value` to the next parameter.
    @usableFromInline
    mutating func bind(_ value: SQLiteValue) throws(SQLiteError) {
        given += 1
        guard given <= parameterCount else { return }
        try statement.bind(value, at: Int32(given))
    }

    /// Checks that every parameter got a value and no value was left over.
    @usableFromInline
    func finish() throws(SQLiteError) {
        try statement.checkCount(given, parameterCount)
    }
}
