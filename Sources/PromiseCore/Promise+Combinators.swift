// The combinators as static members of `Promise`, beside the free functions they call:
// `Promise.any(…)` reads unambiguously next to `any Error`, and `Promise.` completion lists them.

extension Promise {
    /// Waits for every promise and fulfils with their values, in the same order; the static
    /// spelling of ``PromiseCore/all(_:)->Promise<[Value]>``.
    ///
    /// ```swift
    /// Promise.all(ids.map(fetchUser)).then { users in … }
    /// ```
    ///
    /// - Parameter promises: The promises to wait for.
    /// - Returns: A promise for all the values; rejected with the first rejection.
    @_alwaysEmitIntoClient
    public static func all(_ promises: [Promise<Value>]) -> Promise<[Value]> {
        PromiseCore.all(promises)
    }

    /// Waits until every promise has settled and fulfils with each outcome unless all were
    /// rejected; the static spelling of ``PromiseCore/any(_:)->Promise<[Result<Value,Error>]>``.
    ///
    /// - Parameter promises: The promises to wait for.
    /// - Returns: A promise for the outcomes, in the same order.
    @_alwaysEmitIntoClient
    public static func any(_ promises: [Promise<Value>]) -> Promise<[Result<Value, any Error>]> {
        PromiseCore.any(promises)
    }

    /// Waits for every promise to settle and fulfils with each outcome, never rejecting; the
    /// static spelling of ``PromiseCore/allSettled(_:)->Promise<[Result<Value,Error>]>``.
    ///
    /// - Parameter promises: The promises to wait for.
    /// - Returns: A promise for the outcomes, in the same order.
    @_alwaysEmitIntoClient
    public static func allSettled(_ promises: [Promise<Value>]) -> Promise<[Result<Value, any Error>]> {
        PromiseCore.allSettled(promises)
    }

    /// Settles like the first promise to settle; the static spelling of ``PromiseCore/race(_:)``.
    ///
    /// - Parameter promises: The competitors.
    /// - Returns: A promise resolved like the winner.
    @_alwaysEmitIntoClient
    public static func race(_ promises: [Promise<Value>]) -> Promise<Value> {
        PromiseCore.race(promises)
    }

    /// Fulfils with the first promise to be fulfilled, rejecting only when all are rejected;
    /// the static spelling of ``PromiseCore/race(fulfilled:)``.
    ///
    /// - Parameter promises: The competitors.
    /// - Returns: A promise for the first value.
    @_alwaysEmitIntoClient
    public static func race(fulfilled promises: [Promise<Value>]) -> Promise<Value> {
        PromiseCore.race(fulfilled: promises)
    }
}

extension Promise where Value == Void {
    /// Waits for promises of different types and fulfils with a tuple of their values; the
    /// static spelling of ``PromiseCore/all(_:)->Promise<(Value)>``.
    ///
    /// ```swift
    /// Promise.all(fetchUser(id), fetchAvatar(id)).then { user, avatar in … }
    /// ```
    ///
    /// The members for several types are declared where `Value` is `Void` so that
    /// `Promise.all(a, b)` needs no type before the dot.
    ///
    /// - Parameter promises: The promises to wait for.
    /// - Returns: A promise for a tuple of the values; rejected with the first rejection.
    @_alwaysEmitIntoClient
    public static func all<each Element: Sendable>(
        _ promises: repeat Promise<each Element>
    ) -> Promise<(repeat each Element)> {
        PromiseCore.all(repeat each promises)
    }

    /// Waits until promises of different types have settled and fulfils with their outcomes
    /// unless all were rejected; the static spelling of ``PromiseCore/any(_:)->Promise<(Result<Value,Error>)>``.
    ///
    /// - Parameter promises: The promises to wait for.
    /// - Returns: A promise for a tuple of the outcomes.
    @_alwaysEmitIntoClient
    public static func any<each Element: Sendable>(
        _ promises: repeat Promise<each Element>
    ) -> Promise<(repeat Result<each Element, any Error>)> {
        PromiseCore.any(repeat each promises)
    }

    /// Waits for promises of different types to settle and fulfils with their outcomes, never
    /// rejecting; the static spelling of ``PromiseCore/allSettled(_:)->Promise<(Result<Value,Error>)>``.
    ///
    /// - Parameter promises: The promises to wait for.
    /// - Returns: A promise for a tuple of the outcomes.
    @_alwaysEmitIntoClient
    public static func allSettled<each Element: Sendable>(
        _ promises: repeat Promise<each Element>
    ) -> Promise<(repeat Result<each Element, any Error>)> {
        PromiseCore.allSettled(repeat each promises)
    }
}
