/// The one shape of every error swift-promise's products throw: ``PromiseError`` and the
/// adapters' `CurlError`, `SQLiteError`, `FSError` and `UVError`.
///
/// - ``code``: what went wrong, a struct that can grow without breaking a `switch`; match it
///   with `~=` in a `catch` clause (`catch UVError.Code.loopClosed`). It wraps the C library's
///   code where there is one.
/// - ``message``: the whole sentence a person can act on.
/// - Context fields of each product, named for what they hold (`operation`, `path`, `sql`,
///   `url`), and ``LogFieldsProviding/logFields`` for structured logs.
/// - `description`, one line in one format for every product:
///   `Type.code (C code): message — context`, such as
///   `CurlError.couldNotConnect (curl 7): Failed to connect to 127.0.0.1 port 9 — GET http://127.0.0.1:9/`
///   or `PromiseError.timedOut: still pending after 5 seconds; …`. The C code is left out
///   where there is none; the context where the message already names it.
/// - ``underlying``: the error that caused this one, when there was one.
/// - `Hashable`: two errors are equal when code, message, context and underlying error (by
///   its description) are.
///
/// Code that handles errors of several products at once can take them as one:
///
/// ```swift
/// func report(_ error: any Error) {
///     if let error = error as? any PromiseLibraryError {
///         log("\(error.code): \(error.message)", cause: error.underlying)
///     }
/// }
/// ```
public protocol PromiseLibraryError: LogFieldsProviding, Hashable, CustomStringConvertible {
    /// The type of ``code``.
    associatedtype Code: Hashable, Sendable, CustomStringConvertible

    /// What went wrong.
    var code: Code { get }
    /// The sentence a person can act on: what happened, to what, and what to do about it.
    var message: String { get }
    /// The error that caused this one, if any.
    var underlying: (any Error)? { get }
}

extension PromiseLibraryError {
    /// The one `description` format of every product's error, written here once:
    /// `Type.code (C code): message — context`, such as
    /// `SQLiteError.constraintUnique (SQLite 2067): UNIQUE constraint failed: users.email — INSERT INTO users …`.
    ///
    /// - Parameters:
    ///   - cCode: The C library's code in words (`curl 7`, `SQLite 2067`, `errno 13`,
    ///     `libuv EBUSY -16`), or `nil` for a condition the product detects itself.
    ///   - context: What the error was about, when the message does not already say it (a
    ///     request, a statement), or `nil`.
    /// - Returns: The line.
    @_alwaysEmitIntoClient
    package func libraryErrorDescription(cCode: String?, context: String? = nil) -> String {
        var line = "\(Self.self).\(code)"
        if let cCode { line += " (\(cCode))" }
        line += ": " + message
        if let context, !context.isEmpty { line += " — " + context }
        return line
    }
}

/// An error's ``PromiseLibraryError/underlying`` error as a stored value that is `Hashable`
/// (equal by the underlying error's type and description), so that each product's error
/// gets its `==` and `hash(into:)` synthesized.
@usableFromInline
package struct UnderlyingCause: Hashable, Sendable {
    /// The error, if any.
    @usableFromInline package let error: (any Error)?

    /// Wraps `error`.
    @_alwaysEmitIntoClient
    package init(_ error: (any Error)?) {
        self.error = error
    }

    /// The same type and description, or both absent.
    @_alwaysEmitIntoClient
    package static func == (lhs: UnderlyingCause, rhs: UnderlyingCause) -> Bool {
        switch (lhs.error, rhs.error) {
        case (nil, nil): true
        case (let a?, let b?): type(of: a) == type(of: b) && String(describing: a) == String(describing: b)
        default: false
        }
    }

    /// Feeds the error's type and description to `hasher`.
    @_alwaysEmitIntoClient
    package func hash(into hasher: inout Hasher) {
        guard let error else { return hasher.combine(0) }
        hasher.combine(ObjectIdentifier(type(of: error)))
        hasher.combine(String(describing: error))
    }
}
