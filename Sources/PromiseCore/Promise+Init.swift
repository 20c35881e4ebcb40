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
    public convenience init(
        on context: (any ExecutionContext)? = nil,
        _ work:
            @escaping @Sendable (
                _ fulfill: @escaping @Sendable (Value) -> Void,
                _ reject: @escaping @Sendable (any Error) -> Void
            ) throws -> Void
    ) {
        let context = context ?? Promises.defaultContext
        self.init(resolvingContextID: context.executionContextID)
        trackIfTesting()
        let token = ResolverToken(self)
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
    public convenience init(on context: (any ExecutionContext)? = nil, _ work: @escaping @Sendable () throws -> Value) {
        let context = context ?? Promises.defaultContext
        self.init(resolvingContextID: context.executionContextID)
        Scheduler.submit(context, owner: self) { [self] in
            guard self.isPending else { return }
            self.resolve(Result { try work() }, fromUpstream: true)
        }
    }

    /// Runs `work` on `context` and resolves the promise like the promise it returns.
    ///
    /// - Parameters:
    ///   - context: Where `work` runs; `nil` means ``Promises/defaultContext``.
    ///   - work: Starts the work. Throwing rejects the promise.
    public convenience init(on context: (any ExecutionContext)? = nil, _ work: @escaping @Sendable () throws -> Promise<Value>) {
        let context = context ?? Promises.defaultContext
        self.init(resolvingContextID: context.executionContextID)
        Scheduler.submit(context, owner: self) { [self] in
            guard self.isPending else { return }
            do {
                self.adopt(try work())
            } catch {
                self.resolve(.failure(error), fromUpstream: true)
            }
        }
    }
}

// `init(_ value:)` is disfavored so that `Promise { … }` means one of the closure initializers.
// A literal argument (`Promise(1)`) would then leave the literal's type open while the compiler
// weighs every operator in the chain that follows, and a four-link chain stopped compiling.
// These initializers give the default literal types a favored match; they are the same
// initializer, spelled for one type each.

extension Promise where Value == Int {
    /// Creates a promise fulfilled with `value`.
    ///
    /// - Parameter value: The value.
    @inlinable
    public convenience init(_ value: Int) { self.init(state: State(result: .success(value))) }
}

extension Promise where Value == Double {
    /// Creates a promise fulfilled with `value`.
    ///
    /// - Parameter value: The value.
    @inlinable
    public convenience init(_ value: Double) { self.init(state: State(result: .success(value))) }
}

extension Promise where Value == String {
    /// Creates a promise fulfilled with `value`.
    ///
    /// - Parameter value: The value.
    @inlinable
    public convenience init(_ value: String) { self.init(state: State(result: .success(value))) }
}

extension Promise where Value == Bool {
    /// Creates a promise fulfilled with `value`.
    ///
    /// - Parameter value: The value.
    @inlinable
    public convenience init(_ value: Bool) { self.init(state: State(result: .success(value))) }
}
