/// Binds values to a statement's parameters in order, one call per value, for the methods
/// that take their values as `binding:` arguments. ``bind(_:_:_:)`` is inlined into the
/// caller, where each value's type is known: a value is never boxed in an existential or
/// collected in an array. `Int`, `Int64`, `Double` and `String` go straight to their
/// `sqlite3_bind_*` call; other types are converted by their own `sqliteValue`.
///
/// A value past the statement's last parameter is counted, not bound, so that the error can
/// say how many values were given against how many parameters there are.
///
/// The binder holds no reference to the statement: each call is handed the one its caller
/// borrows, so binding retains and releases nothing.
@usableFromInline
struct ParameterBinder: ~Copyable {
    private let parameterCount: Int
    private var given = 0

    @usableFromInline
    init(_ statement: borrowing Statement) {
        parameterCount = statement.parameterCount
    }

    /// Binds `first` and then each of `values` to the next parameter of `statement`, then
    /// checks that every parameter got one.
    @inlinable
    static func bind<First: SQLiteValueConvertible, each Value: SQLiteValueConvertible>(
        _ statement: Statement, _ first: First, _ values: repeat each Value
    ) throws(SQLiteError) {
        var binder = ParameterBinder(statement)
        try binder.bind(first, to: statement)
        repeat try binder.bind(each values, to: statement)
        try binder.finish(statement)
    }

    /// Binds `value` to the next parameter. The type tests compare metadata pointers, which
    /// the compiler folds away where `V` is known; they also stay cheap in the loop over a
    /// parameter pack, which Swift compiles as a loop over the values' metadata.
    @inlinable
    @inline(__always)
    mutating func bind<V: SQLiteValueConvertible>(_ value: V, to statement: Statement) throws(SQLiteError) {
        if V.self == Int.self {
            try bind(integer: Int64(unsafeBitCast(value, to: Int.self)), to: statement)
        } else if V.self == Int64.self {
            try bind(integer: unsafeBitCast(value, to: Int64.self), to: statement)
        } else if V.self == Double.self {
            try bind(real: unsafeBitCast(value, to: Double.self), to: statement)
        } else if V.self == String.self {
            try bind(text: unsafeBitCast(value, to: String.self), to: statement)
        } else {
            try bind(value.sqliteValue, to: statement)
        }
    }

    /// Binds `value` to the next parameter.
    @usableFromInline
    mutating func bind(_ value: SQLiteValue, to statement: Statement) throws(SQLiteError) {
        guard let index = next() else { return }
        try statement.bind(value, at: index)
    }

    /// Binds `integer` to the next parameter.
    @usableFromInline
    mutating func bind(integer: Int64, to statement: Statement) throws(SQLiteError) {
        guard let index = next() else { return }
        try statement.bind(integer: integer, at: index)
    }

    /// Binds `real` to the next parameter.
    @usableFromInline
    mutating func bind(real: Double, to statement: Statement) throws(SQLiteError) {
        guard let index = next() else { return }
        try statement.bind(real: real, at: index)
    }

    /// Binds `text` to the next parameter.
    @usableFromInline
    mutating func bind(text: String, to statement: Statement) throws(SQLiteError) {
        guard let index = next() else { return }
        try statement.bind(text: text, at: index)
    }

    /// Counts one more value: the parameter it binds to, or `nil` past the last one.
    @inline(__always)
    private mutating func next() -> Int32? {
        given += 1
        return given <= parameterCount ? Int32(given) : nil
    }

    /// Checks that every parameter got a value and no value was left over.
    @usableFromInline
    func finish(_ statement: Statement) throws(SQLiteError) {
        try statement.checkCount(given, parameterCount)
    }
}
