/// An error that describes itself as named fields, for structured logs.
///
/// Every error type of swift-promise's products adopts it, so a log handler (the
/// PromiseLogging product, or your own ``Promises/diagnosticsHandler``) can record the code,
/// the operation and what it was about as separate fields instead of parsing a sentence:
///
/// ```swift
/// if let error = error as? any LogFieldsProviding {
///     for (name, value) in error.logFields { print("\(name)=\(value)") }
/// }
/// ```
///
/// Fields never carry data the error was not already showing: URLs have their user
/// information replaced (`***@`), SQL is the statement text without its bound values.
public protocol LogFieldsProviding: Error {
    /// The error's fields, named `<product>.<field>` in lower snake case, such as
    /// `sqlite.code` or `http.url`.
    var logFields: [String: String] { get }
}

extension PromiseError {
    /// `promise.code` (such as `timed out`) and `promise.message`.
    @_alwaysEmitIntoClient
    public var logFields: [String: String] {
        ["promise.code": code.description, "promise.message": message]
    }
}
