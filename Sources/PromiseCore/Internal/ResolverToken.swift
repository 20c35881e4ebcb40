/// Owned by the fulfil/reject closures handed to producers (`Promise(on:) { fulfill, reject in }`,
/// `wrap`). When the last closure is released and the promise is still pending, nobody can
/// resolve it any more: it is rejected as broken, even if consumers still hold the promise.
@usableFromInline
final class ResolverToken<Value: Sendable>: Sendable {
    @usableFromInline let promise: Promise<Value>

    @usableFromInline
    init(_ promise: Promise<Value>) {
        self.promise = promise
    }

    deinit {
        guard promise.isPending else { return }
        promise.resolve(.failure(reportReleasedResolver(Value.self)), by: .outside)
    }

    @_alwaysEmitIntoClient func fulfill(_ value: Value) { promise.resolve(.success(value), by: .outside) }
    @_alwaysEmitIntoClient func reject(_ error: any Error) { promise.resolve(.failure(error), by: .outside) }
    @_alwaysEmitIntoClient func resolve(_ result: Result<Value, any Error>) { promise.resolve(result, by: .outside) }
}

/// Reports the fulfil and reject closures of a pending `Promise<valueType>` released without
/// either being called, and returns the error it is rejected with. Not generic, so every value
/// type's token shares it.
func reportReleasedResolver(_ valueType: Any.Type) -> PromiseError {
    let error = PromiseError(
        .brokenPromise,
        message: "the fulfill and reject closures of a Promise<\(valueType)> were released without either being called, "
            + "so it can never be resolved; call one of them on every path of the work"
    )
    Promises.report(PromiseDiagnostic(kind: .brokenPromise, error: error, valueType: "\(valueType)"))
    return error
}
