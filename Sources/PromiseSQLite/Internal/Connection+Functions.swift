internal import CSQLite
internal import PromiseSystem

/// Registering Swift functions and collations on one connection, on its thread.
///
/// Each registration hands SQLite a retained box (the user's closure and the function's name)
/// as the function's user data; SQLite releases it through the destructor it is given when the
/// function is replaced, removed, or the connection closes, and also when registration fails.
extension Connection {
    /// Registers `function`, replacing one of the same name and argument count.
    ///
    /// - Throws: ``SQLiteError/Code-swift.struct/invalidArgument`` for a name or argument
    ///   count SQLite cannot take, or SQLite's error (`SQLITE_BUSY` while a statement runs).
    func add(_ function: SQLiteFunction) throws(SQLiteError) {
        try function.validate()
        let argumentCount = Int32(function.argumentCount ?? -1)
        let flags = SQLITE_UTF8 | function.options.rawValue
        let status: Int32
        switch function.kind {
        case .scalar(let body):
            let box = Unmanaged.passRetained(ScalarFunctionBox(name: function.name, body: body)).toOpaque()
            status = sqlite3_create_function_v2(
                db, function.name, argumentCount, flags, box, callScalarFunction, nil, nil, releaseScalarFunctionBox)
        case .aggregate(let make):
            let box = Unmanaged.passRetained(AggregateFunctionBox(name: function.name, make: make)).toOpaque()
            status = sqlite3_create_function_v2(
                db, function.name, argumentCount, flags, box, nil, stepAggregateFunction, finalizeAggregateFunction,
                releaseAggregateFunctionBox)
        }
        try registrationCheck(status, "registering the function '\(function.name)'")
    }

    /// Removes the function of `function`'s name and argument count, if there is one.
    func remove(_ function: SQLiteFunction) throws(SQLiteError) {
        try function.validate()
        let status = sqlite3_create_function_v2(
            db, function.name, Int32(function.argumentCount ?? -1), SQLITE_UTF8, nil, nil, nil, nil, nil)
        try registrationCheck(status, "removing the function '\(function.name)'")
    }

    /// Registers `collation`, replacing one of the same name.
    func add(_ collation: SQLiteCollation) throws(SQLiteError) {
        try validateName(collation.name, of: "collation")
        let box = Unmanaged.passRetained(CollationBox(collation)).toOpaque()
        let status = sqlite3_create_collation_v2(db, collation.name, SQLITE_UTF8, box, compareWithCollation, releaseCollationBox)
        if status != SQLITE_OK {
            // Unlike sqlite3_create_function_v2, a failed call does not call the destructor.
            Unmanaged<CollationBox>.fromOpaque(box).release()
        }
        try registrationCheck(status, "registering the collation '\(collation.name)'")
    }

    /// Removes the collation named `collation.name`, if there is one.
    func remove(_ collation: SQLiteCollation) throws(SQLiteError) {
        try validateName(collation.name, of: "collation")
        let status = sqlite3_create_collation_v2(db, collation.name, SQLITE_UTF8, nil, nil, nil)
        try registrationCheck(status, "removing the collation '\(collation.name)'")
    }

    private func registrationCheck(_ status: Int32, _ what: String) throws(SQLiteError) {
        guard status != SQLITE_OK else { return }
        let error = sqliteError(status, db, sql: nil)
        throw SQLiteError(error.code, message: "\(what) failed: \(error.message)")
    }
}

// MARK: Boxes handed to SQLite

/// A scalar function's closure and name, retained by SQLite as the function's user data.
final class ScalarFunctionBox {
    let name: String
    let body: @Sendable ([SQLiteValue]) throws -> (any SQLiteValueConvertible)?
    /// The arguments of the call running now, refilled in place for each call. Unchecked
    /// exclusivity: only the connection's thread calls the function, one call at a time.
    @exclusivity(unchecked) var arguments = FunctionArguments()

    init(name: String, body: @escaping @Sendable ([SQLiteValue]) throws -> (any SQLiteValueConvertible)?) {
        self.name = name
        self.body = body
    }
}

/// An aggregate function's factory and name, retained by SQLite as the function's user data.
final class AggregateFunctionBox {
    let name: String
    let make: @Sendable () -> any SQLiteAggregate
    /// The arguments of the step running now, refilled in place for each step. Unchecked
    /// exclusivity: only the connection's thread calls the function, one call at a time.
    @exclusivity(unchecked) var arguments = FunctionArguments()

    init(name: String, make: @escaping @Sendable () -> any SQLiteAggregate) {
        self.name = name
        self.make = make
    }
}

/// One group's aggregate, retained in the group's `sqlite3_aggregate_context` from its first
/// step until its final call.
final class AggregateGroup {
    var aggregate: any SQLiteAggregate
    /// A step threw: the statement fails, and finalize must not run.
    var failed = false

    init(_ aggregate: any SQLiteAggregate) { self.aggregate = aggregate }
}

/// A collation, retained by SQLite as the collation's user data.
final class CollationBox {
    let collation: SQLiteCollation

    init(_ collation: SQLiteCollation) { self.collation = collation }
}

// MARK: The C callbacks

private func callScalarFunction(_ context: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    let box = Unmanaged<ScalarFunctionBox>.fromOpaque(sqlite3_user_data(context)!).takeUnretainedValue()
    do {
        let result = try box.body(box.arguments.fill(count, values))
        setFunctionResult(context, result?.sqliteValue ?? .null)
    } catch {
        setFunctionError(context, function: box.name, error)
    }
}

private func releaseScalarFunctionBox(_ box: UnsafeMutableRawPointer?) {
    guard let box else { return }
    Unmanaged<ScalarFunctionBox>.fromOpaque(box).release()
}

private func stepAggregateFunction(_ context: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    let box = Unmanaged<AggregateFunctionBox>.fromOpaque(sqlite3_user_data(context)!).takeUnretainedValue()
    // Zeroed memory on the group's first call, the same memory on later calls.
    guard let slot = sqlite3_aggregate_context(context, Int32(MemoryLayout<UnsafeMutableRawPointer?>.size)) else {
        sqlite3_result_error_nomem(context)
        return
    }
    let group: AggregateGroup
    if let stored = slot.load(as: UnsafeMutableRawPointer?.self) {
        group = Unmanaged<AggregateGroup>.fromOpaque(stored).takeUnretainedValue()
    } else {
        group = AggregateGroup(box.make())
        slot.storeBytes(of: Unmanaged.passRetained(group).toOpaque(), as: UnsafeMutableRawPointer?.self)
    }
    guard !group.failed else { return }
    do {
        try group.aggregate.step(box.arguments.fill(count, values))
    } catch {
        group.failed = true
        setFunctionError(context, function: box.name, error)
    }
}

private func finalizeAggregateFunction(_ context: OpaquePointer?) {
    let box = Unmanaged<AggregateFunctionBox>.fromOpaque(sqlite3_user_data(context)!).takeUnretainedValue()
    // NULL when no step ran (an empty group): nothing was allocated.
    var group: AggregateGroup?
    if let slot = sqlite3_aggregate_context(context, 0), let stored = slot.load(as: UnsafeMutableRawPointer?.self) {
        group = Unmanaged<AggregateGroup>.fromOpaque(stored).takeRetainedValue()
        slot.storeBytes(of: nil, as: UnsafeMutableRawPointer?.self)
    }
    if group?.failed == true { return }
    do {
        let aggregate = group?.aggregate ?? box.make()
        setFunctionResult(context, try aggregate.finalize()?.sqliteValue ?? .null)
    } catch {
        setFunctionError(context, function: box.name, error)
    }
}

private func releaseAggregateFunctionBox(_ box: UnsafeMutableRawPointer?) {
    guard let box else { return }
    Unmanaged<AggregateFunctionBox>.fromOpaque(box).release()
}

private func compareWithCollation(
    _ box: UnsafeMutableRawPointer?, _ lhsCount: Int32, _ lhs: UnsafeRawPointer?, _ rhsCount: Int32, _ rhs: UnsafeRawPointer?
) -> Int32 {
    let collation = Unmanaged<CollationBox>.fromOpaque(box!).takeUnretainedValue().collation
    return collation.compare(collationText(lhs, lhsCount), collationText(rhs, rhsCount))
}

private func releaseCollationBox(_ box: UnsafeMutableRawPointer?) {
    guard let box else { return }
    Unmanaged<CollationBox>.fromOpaque(box).release()
}

// MARK: Values in and out

/// The text a collation compares: its bytes as UTF-8, each invalid byte shown as U+FFFD.
private func collationText(_ bytes: UnsafeRawPointer?, _ count: Int32) -> String {
    guard let bytes, count > 0 else { return "" }
    return String(decoding: UnsafeRawBufferPointer(start: bytes, count: Int(count)), as: UTF8.self)
}

/// The arguments of one function's calls. A box is called on its connection's thread only,
/// one call at a time (SQLite evaluates a call's arguments before the call), so each call
/// refills the same array in place instead of allocating one: about a quarter of a simple
/// function's cost. An array the closure keeps is copied on the next call, not changed.
struct FunctionArguments {
    private var values: [SQLiteValue] = []

    /// The call's arguments, copied out of SQLite.
    mutating func fill(_ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?) -> [SQLiteValue] {
        let count = Int(count)
        guard count > 0, let arguments else {
            if !values.isEmpty { values = [] }
            return values
        }
        if values.count == count {
            // Overwritten in place: cheaper than emptying and appending.
            values.withUnsafeMutableBufferPointer { buffer in
                for index in 0..<count { buffer[index] = functionArgument(arguments[index]) }
            }
        } else {
            values = (0..<count).map { functionArgument(arguments[$0]) }
        }
        return values
    }
}

/// One argument of a scalar function or an aggregate's step.
private func functionArgument(_ value: OpaquePointer?) -> SQLiteValue {
    guard let value else { return .null }
    return SQLiteValue(copying: value)
}

/// Sets the call's result; SQLite copies text and blobs, and fails the statement with
/// `SQLITE_TOOBIG` when one is longer than its length limit.
private func setFunctionResult(_ context: OpaquePointer?, _ value: SQLiteValue) {
    switch value {
    case .null:
        sqlite3_result_null(context)
    case .integer(let integer):
        sqlite3_result_int64(context, integer)
    case .real(let real):
        sqlite3_result_double(context, real)
    case .text(var text):
        text.withUTF8 { setTextResult(context, $0) }
    case .invalidText(let bytes):
        bytes.withUnsafeBufferPointer { setTextResult(context, $0) }
    case .blob(let bytes):
        bytes.withUnsafeBytes { raw in
            // A nil pointer would be NULL, not the empty blob.
            guard let base = raw.baseAddress, raw.count > 0 else { return sqlite3_result_zeroblob(context, 0) }
            sqlite3_result_blob64(context, base, UInt64(raw.count), csqlite_transient())
        }
    }
}

private func setTextResult(_ context: OpaquePointer?, _ bytes: UnsafeBufferPointer<UInt8>) {
    guard let base = bytes.baseAddress, bytes.count > 0 else {
        sqlite3_result_text(context, "", 0, csqlite_transient())
        return
    }
    base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { start in
        sqlite3_result_text64(context, start, UInt64(bytes.count), csqlite_transient(), UInt8(SQLITE_UTF8))
    }
}

/// Fails the statement with `error`'s text, prefixed with the function's name, and records
/// `error` for the statement's ``SQLiteError/underlying`` (``FunctionFailure``). An
/// ``SQLiteError`` with an SQLite error code keeps its code (a function may report
/// `constraint`); any other error fails it with `SQLITE_ERROR`.
private func setFunctionError(_ context: OpaquePointer?, function name: String, _ error: any Error) {
    let text: String
    if let error = error as? SQLiteError {
        text = error.message
    } else {
        text = String(describing: error)
    }
    let message = "\(name)(): \(text)"
    sqlite3_result_error(context, message, -1)
    FunctionFailure.record(message: message, error: error)
    if let error = error as? SQLiteError, let code = error.code.resultCode, (1...28).contains(code & 0xff) {
        sqlite3_result_error_code(context, code)
    }
}
