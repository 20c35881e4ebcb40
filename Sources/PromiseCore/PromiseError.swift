/// An error produced by the promise machinery itself (not by the work behind a promise).
///
/// Match on the code:
///
/// ```swift
/// promise.catch { error in
///     if let error = error as? PromiseError, error.code == .timedOut { … }
/// }
/// // or
/// do { _ = try await promise.get() } catch PromiseError.Code.timedOut { … }
/// ```
public struct PromiseError: PromiseLibraryError {
    /// What went wrong. New codes may be added; switch with a `default` case.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        @usableFromInline
        enum Raw: String, Hashable, Sendable {
            case timedOut, validationFailure, brokenPromise, deadlock, chainingCycle, invalidArgument, contextInvalidated
        }
        @usableFromInline let raw: Raw
        @_alwaysEmitIntoClient init(_ raw: Raw) { self.raw = raw }

        /// The promise was still pending when its `timeout` expired.
        @_alwaysEmitIntoClient
        public static var timedOut: Code { Code(.timedOut) }
        /// A `validate` predicate returned `false`.
        @_alwaysEmitIntoClient
        public static var validationFailure: Code { Code(.validationFailure) }
        /// The promise was deallocated while pending: nothing could ever resolve it.
        @_alwaysEmitIntoClient
        public static var brokenPromise: Code { Code(.brokenPromise) }
        /// A blocking wait would have waited on the context that has to resolve the promise.
        @_alwaysEmitIntoClient
        public static var deadlock: Code { Code(.deadlock) }
        /// A promise was resolved with itself.
        @_alwaysEmitIntoClient
        public static var chainingCycle: Code { Code(.chainingCycle) }
        /// The context that was to run the callback was invalidated (``InvalidatableQueue``).
        @_alwaysEmitIntoClient
        public static var contextInvalidated: Code { Code(.contextInvalidated) }
        /// An operator was called with arguments it cannot work with (for example `race([])`).
        @_alwaysEmitIntoClient
        public static var invalidArgument: Code { Code(.invalidArgument) }

        /// The code's name, as written after `PromiseError.Code.`: `timedOut`.
        @_alwaysEmitIntoClient
        public var description: String { raw.rawValue }

        /// Lets `catch PromiseError.Code.timedOut` match a thrown ``PromiseError``.
        @_alwaysEmitIntoClient
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? PromiseError)?.code == code
        }
    }

    /// What went wrong.
    public let code: Code
    /// A sentence that says what happened and what to do about it.
    public let message: String
    /// The error that caused this one, if any.
    @_alwaysEmitIntoClient
    public var underlying: (any Error)? { cause.error }
    @usableFromInline let cause: UnderlyingCause

    /// Creates an error, with the labels every product's error takes.
    ///
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - message: What happened and what to do about it.
    ///   - underlying: The error that caused this one, if any.
    @_alwaysEmitIntoClient
    public init(_ code: Code, message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = UnderlyingCause(underlying)
    }

    /// Creates an error; the message without its label.
    ///
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - message: What happened and what to do about it.
    @available(*, deprecated, renamed: "init(_:message:underlying:)", message: "every product's error labels its message")
    @_alwaysEmitIntoClient
    public init(_ code: Code, _ message: String) {
        self.init(code, message: message)
    }

    /// One line in the format every product's error shares: `PromiseError.timedOut: <message>`.
    @_alwaysEmitIntoClient
    public var description: String { libraryErrorDescription(cCode: nil) }

    /// The error of a `timeout`: what was still pending, for how long, and what became of
    /// the work behind it.
    @usableFromInline
    static func timedOut(after interval: Duration, label: String?, source: SourceOutcome) -> PromiseError {
        let what = label.map { "\($0): still pending" } ?? "still pending"
        return PromiseError(.timedOut, message: "\(what) after \(interval); \(source.clause)")
    }

    static func broken(_ valueType: Any.Type) -> PromiseError {
        PromiseError(
            .brokenPromise,
            message: "a Promise<\(valueType)> was deallocated while pending, so it can never be resolved; "
                + "keep the promise (or the fulfill/reject closures) alive until the work finishes"
        )
    }
}
