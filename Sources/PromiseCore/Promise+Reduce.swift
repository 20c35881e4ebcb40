extension Promise {
    /// Folds `items` into this promise's value, one asynchronous step at a time
    /// (google/promises' `reduce`).
    ///
    /// ```swift
    /// Promise(0).reduce([1, 2, 3]) { total, n in Promise(total + n) }   // 6
    /// ```
    ///
    /// - Parameters:
    ///   - context: Where `combine` runs; `nil` means ``Promises/defaultContext``.
    ///   - items: The elements to fold in, in order.
    ///   - combine: Takes the running value and the next element; returns the next running value.
    /// - Returns: A promise for the final value; the first rejection stops the fold.
    @_alwaysEmitIntoClient
    public func reduce<Element: Sendable>(
        on context: (any ExecutionContext)? = nil,
        _ items: some Sequence<Element>,
        _ combine: @escaping @Sendable (Value, Element) throws -> Promise<Value>
    ) -> Promise<Value> {
        let context = context ?? Promises.defaultContext
        return items.reduce(self) { partial, item in
            partial.then(on: context) { (value: Value) throws -> Promise<Value> in
                try combine(value, item)
            }
        }
    }
}
