extension Promise {
    /// Runs `work` on `context` and resolves the promise through the closures it is given.
    ///
    /// ```swift
    /// let promise = Promise<Data> { fulfill, reject in
    ///     legacyDownload(url) { data, error in
    ///         if let data { fulfill(data) } else { reject(error ?? DownloadError.unknown) }
    ///     }
    /// }
    /// ```
    ///
    /// Only the first call of either closure counts. If both closures are released without
    /// being called, the promise is broken: its dependents are rejected with
    /// ``PromiseError/Code-swift.struct/brokenPromise``.
    ///
    /// - Parameters:
    ///   - context: Where `work` starts; `nil` means ``Promises/defaultContext``.
    ///   - work: Starts the work. Throwing rejects the promise.
    @_alwaysEmitIntoClient
    public convenience init(
        on context: (any ExecutionContext)? = nil,
        work:
            @escaping @Sendable (
                _ fulfill: @escaping @Sendable (Value) -> Void,
                _ reject: @escaping @Sendable (any Error) -> Void
            ) throws -> Void
    ) {
        let context = context ?? Promises.defaultContext
        self.init(resolvingContextID: context.executionContextID)
        trackIfTesting()
        let token = PromiseResolver(self, holder: .closures)
        Scheduler.submit(context, owner: self) {
            do {
                try work({ token.fulfill($0) }, { token.reject($0) })
            } catch {
                token.reject(error)
            }
        }
    }

    /// Runs `work` on `context` and fulfils the promise with its result ("do").
    ///
    /// - Parameters:
    ///   - context: Where `work` runs; `nil` means ``Promises/defaultContext``.
    ///   - work: Computes the value. Throwing rejects the promise.
    @_disfavoredOverload  // `Promise { makePromise() }` means the promise-adopting form
    @_alwaysEmitIntoClient
    public convenience init(on context: (any ExecutionContext)? = nil, work: @escaping @Sendable () throws -> Value) {
        let context = context ?? Promises.defaultContext
        self.init(resolvingContextID: context.executionContextID)
        Scheduler.submit(context, owner: self) { [self] in
            guard self.isPending else { return }
            self.resolve(Result { try work() }, by: .chain)
        }
    }

    /// Runs `work` on `context` and resolves the promise like the promise it returns.
    ///
    /// - Parameters:
    ///   - context: Where `work` runs; `nil` means ``Promises/defaultContext``.
    ///   - work: Starts the work. Throwing rejects the promise.
    @_alwaysEmitIntoClient
    public convenience init(on context: (any ExecutionContext)? = nil, work: @escaping @Sendable () throws -> Promise<Value>) {
        let context = context ?? Promises.defaultContext
        self.init(resolvingContextID: context.executionContextID)
        Scheduler.submit(context, owner: self) { [self] in
            guard self.isPending else { return }
            do {
                self.adopt(try work())
            } catch {
                self.resolve(.failure(error), by: .chain)
            }
        }
    }
}

// `init(_ value:)` and `init(_ error:)` are disfavored, so that `Promise { … }` means one of the
// closure initializers and `Promise(x)` inside a chain costs nothing when a better match exists.
// This initializer is that better match for `Int`, the default literal type: `Promise(1)` and
// `Promise(i)` then fix the value type at once instead of leaving it open while the compiler
// weighs every operator in the chain. Only `Int` has one: a copy for `Double` makes
// `flatMap { Promise($0 * 2) }` weigh both types at every later link.

extension Promise where Value == Int {
    /// Creates a promise fulfilled with `value`.
    ///
    /// - Parameter value: The value.
    @_alwaysEmitIntoClient
    public convenience init(_ value: Int) { self.init(state: State(result: .success(value))) }
}
