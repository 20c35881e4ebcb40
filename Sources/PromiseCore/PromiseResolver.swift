public import Synchronization

/// The one way to settle a promise made with ``Promise/pending()``: fulfil it, reject it, or
/// resolve it with a `Result`.
///
/// ```swift
/// let (promise, resolver) = Promise<Data>.pending()
/// legacyDownload(url) { data, error in
///     if let data { resolver.fulfill(data) } else { resolver.reject(error ?? DownloadError.unknown) }
/// }
/// return promise
/// ```
///
/// Hand the promise to consumers and keep the resolver with the work. Only the first call
/// counts; later ones are ignored. The resolver keeps its promise alive, and its copies are
/// one resolver. When the last copy is released while the promise is still pending, nobody
/// can settle the promise any more: it is rejected with
/// ``PromiseError/Code-swift.struct/brokenPromise`` at once, even while consumers still hold
/// it, and the release is reported to ``Promises/diagnosticsHandler``.
///
/// A resolver is `Sendable`: settle it from any thread.
public struct PromiseResolver<Value: Sendable>: Sendable {
    /// The one object every copy of this resolver shares: its release is the resolver's.
    @usableFromInline let lifetime: ResolverLifetime

    @_alwaysEmitIntoClient
    init(_ promise: Promise<Value>, holder: ResolverHolder) {
        lifetime = ResolverLifetime(promise, holder: holder)
    }

    /// The promise this resolver settles.
    @_alwaysEmitIntoClient
    var promise: Promise<Value> { unsafeDowncast(lifetime.promise, to: Promise<Value>.self) }

    /// Fulfils the promise with `value`, unless it is already settled.
    ///
    /// Callbacks are handed to their contexts after this returns (inline ones run first).
    ///
    /// - Parameter value: The value.
    @_alwaysEmitIntoClient
    public func fulfill(_ value: Value) {
        lifetime.settled()
        promise.resolve(.success(value), by: .outside)
    }

    /// Rejects the promise with `error`, unless it is already settled.
    ///
    /// - Parameter error: The reason. A `CancellationError` cancels the promise.
    @_alwaysEmitIntoClient
    public func reject(_ error: any Error) {
        lifetime.settled()
        promise.resolve(.failure(error), by: .outside)
    }

    /// Fulfils or rejects the promise with `result`, unless it is already settled.
    ///
    /// - Parameter result: The outcome.
    @_alwaysEmitIntoClient
    public func resolve(_ result: Result<Value, any Error>) {
        lifetime.settled()
        promise.resolve(result, by: .outside)
    }

    /// Whether the promise is still waiting to be settled: `false` once it is fulfilled,
    /// rejected or cancelled (a consumer may cancel it before the work settles it).
    @_alwaysEmitIntoClient
    public var isPending: Bool { promise.isPending }
}

/// What a ``PromiseResolver`` and all its copies share: the promise, and the check, when the
/// last copy goes, that the promise was settled.
///
/// Not generic, so creating and releasing one costs no generic metadata lookup: its
/// deinitializer, which always runs unspecialized, returns at once when the resolver settled
/// the promise, and reaches the promise's own (generic) check only when it did not.
@usableFromInline
final class ResolverLifetime: Sendable {
    /// The promise, a `Promise<Value>` of the resolver's `Value`. Held as a plain reference:
    /// an existential would look up `Promise<Value>`'s conformance on every resolver made,
    /// where only a resolver released unsettled needs it.
    @usableFromInline let promise: any AnyObject & Sendable
    let holder: ResolverHolder
    /// Whether a settling method was called; relaxed, since only the deinitializer reads it,
    /// after the last release.
    @usableFromInline let settledByResolver: Atomic<Bool>

    @usableFromInline
    init(_ promise: any AnyObject & Sendable, holder: ResolverHolder) {
        self.promise = promise
        self.holder = holder
        settledByResolver = Atomic(false)
    }

    /// Records that a settling method was called (the promise is settled now, by this call or
    /// an earlier settlement).
    @_alwaysEmitIntoClient
    func settled() {
        settledByResolver.store(true, ordering: .relaxed)
    }

    deinit {
        guard !settledByResolver.load(ordering: .relaxed) else { return }
        (promise as? any PromiseNode)?.resolverReleased(heldBy: holder)
    }
}

extension PromiseResolver where Value == Void {
    /// Fulfils a `Promise<Void>`, unless it is already settled.
    @_alwaysEmitIntoClient
    public func fulfill() {
        lifetime.settled()
        promise.resolve(.success(()), by: .outside)
    }
}

/// Who holds a ``PromiseResolver``, for the report of its release without settling: the
/// caller of ``Promise/pending()``, or the closures of a closure initializer
/// (`Promise { fulfill, reject in … }`, `wrap`).
@usableFromInline
enum ResolverHolder: Sendable {
    case resolver
    case closures
}

/// Reports a resolver (or the fulfil and reject closures) of a pending `Promise<valueType>`
/// released without settling it, and returns the error the promise is rejected with. Not
/// generic, so every value type's resolver shares it.
func reportReleasedResolver(_ valueType: Any.Type, holder: ResolverHolder) -> PromiseError {
    let what: String
    switch holder {
    case .resolver:
        what = "the resolver of a Promise<\(valueType)> was released without settling it"
    case .closures:
        what = "the fulfill and reject closures of a Promise<\(valueType)> were released without either being called"
    }
    let error = PromiseError(
        .brokenPromise,
        message: what + ", so it can never be resolved; settle it on every path of the work"
    )
    Promises.report(PromiseDiagnostic(kind: .brokenPromise, error: error, valueType: "\(valueType)"))
    return error
}
