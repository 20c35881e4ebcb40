/// The one shape of every error swift-promise's products throw: ``PromiseError`` and the
/// adapters' `CurlError`, `SQLiteError`, `FSError` and `UVError`.
///
/// - ``code``: what went wrong, a struct that can grow without breaking a `switch`; match it
///   with `~=` in a `catch` clause (`catch UVError.Code.loopClosed`). It wraps the C library's
///   code where there is one.
/// - ``message``: the whole sentence a person can act on.
/// - Context fields of each product, named for what they hold (`operation`, `path`, `sql`,
///   `url`), and ``LogFieldsProviding/logFields`` for structured logs.
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

/// An error's ``PromiseLibraryError/underlying`` error as a stored value that is `Hashable`
/// (equal by the underlying error's type and description), so that each product's error
/// gets its `==` and `hash(into:)` synthesized.
package struct UnderlyingCause: Hashable, Sendable {
    /// The error, if any.
    package let error: (any Error)?

    /// Wraps `error`.
    package init(_ error: (any Error)?) {
        self.error = error
    }

    /// The same type and description, or both absent.
    package static func == (lhs: UnderlyingCause, rhs: UnderlyingCause) -> Bool {
        switch (lhs.error, rhs.error) {
        case (nil, nil): true
        case (let a?, let b?): type(of: a) == type(of: b) && String(describing: a) == String(describing: b)
        default: false
        }
    }

    /// Feeds the error's type and description to `hasher`.
    package func hash(into hasher: inout Hasher) {
        guard let error else { return hasher.combine(0) }
        hasher.combine(ObjectIdentifier(type(of: error)))
        hasher.combine(String(describing: error))
    }
}
