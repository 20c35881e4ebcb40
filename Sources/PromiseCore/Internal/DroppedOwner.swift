/// The one deinit policy of the owner types (`CurlClient`, `ScriptedCurlClient`,
/// `SQLiteDatabase`, `FileIOPool`, `FSFile`, `UVLoop`): what deallocating an owner without its
/// `shutdown()` or `close()` does, and the one place its report is worded.
///
/// The policy:
///
/// 1. Deallocating an owner starts what its `shutdown()` or `close()` starts: new work is
///    refused, work that call lets finish finishes, and every other promise the owner was to
///    settle is rejected with the product's `shutdown` code. No promise it owes stays pending.
/// 2. The owner's threads end and its handles are freed, each on the thread that owns it; a
///    `deinit` never calls into a C library from another thread. An owner whose resource no
///    thread owns any more (a `UVLoop` that no thread runs) is closed on the deallocating
///    thread, which becomes its only thread for that.
/// 3. What that loses, promises rejected or a close that failed with nobody waiting to hear
///    it, is reported once as a ``PromiseDiagnostic/Kind/notShutDown`` diagnostic naming the
///    type, which one it was, and what was lost. An owner that loses nothing is not reported.
///
/// `package` access: the adapters' owners call it, users never see it.
@usableFromInline
package struct DroppedOwner: Sendable {
    /// The owner's public type name, such as `UVLoop`.
    @usableFromInline package let type: String
    /// Which one it is, such as `thread 'promise-curl'` or `'/tmp/app.sqlite'`.
    @usableFromInline package let name: String
    /// The call that ends it: `shutdown()` or `close()`.
    @usableFromInline package let call: String

    /// Describes one owner.
    ///
    /// - Parameters:
    ///   - type: The owner's public type name.
    ///   - name: Which one it is, as a reader of the report can find it.
    ///   - call: The call that ends it: `shutdown()` or `close()`.
    @_alwaysEmitIntoClient
    package init(_ type: String, named name: String, call: String) {
        self.type = type
        self.name = name
        self.call = call
    }

    /// The report's sentence: what the owner was, that it was ended as its `call` ends it,
    /// what that lost, and what to do instead.
    ///
    /// - Parameter lost: What was lost, as one clause (``rejected(_:_:_:code:)`` words the
    ///   usual one).
    /// - Returns: `a UVLoop (thread 'api-loop') was deallocated without shutdown() and shut
    ///   down as shutdown() does: 2 timers were rejected with loopClosed. Keep the UVLoop until
    ///   its work is done, then call shutdown()`.
    @_alwaysEmitIntoClient
    package func message(_ lost: String) -> String {
        "\(article) \(type) (\(name)) was deallocated without \(call) and \(call == "close()" ? "closed" : "shut down") as \(call) does: \(lost). Keep the \(type) until its work is done, then call \(call)"
    }

    /// `an` before a vowel sound, including initialisms read letter by letter (`an FSFile`,
    /// `an SQLiteDatabase`), `a` otherwise (`a UVLoop`, `a CurlClient`).
    @_alwaysEmitIntoClient
    var article: String {
        type.first.map { "AEIO".contains($0) } == true || type.hasPrefix("FS") || type.hasPrefix("SQL") ? "an" : "a"
    }

    /// Reports `error`, the product's own error built from ``message(_:)``, as a
    /// ``PromiseDiagnostic/Kind/notShutDown`` diagnostic.
    ///
    /// - Parameter error: What was lost, with the product's `shutdown` code or the error the
    ///   close failed with.
    @_alwaysEmitIntoClient
    package func report(_ error: any Error) {
        Promises.reportNotShutDown(error)
    }

    /// The usual loss, worded once: `1 request in flight was rejected with shutdown`,
    /// `2 timers and 1 pool job were rejected with loopClosed`.
    ///
    /// - Parameters:
    ///   - items: How many promises of each kind were rejected, with the kind's singular and
    ///     plural names (`request in flight`, `requests in flight`); kinds with none are left out.
    ///   - code: The name of the code they were rejected with.
    /// - Returns: The clause, or `nil` when nothing was rejected.
    @_alwaysEmitIntoClient
    package static func rejected(_ items: [(count: Int, singular: String, plural: String)], code: String) -> String? {
        let named = items.filter { $0.count > 0 }.map { $0.count == 1 ? "1 \($0.singular)" : "\($0.count) \($0.plural)" }
        guard !named.isEmpty else { return nil }
        let total = items.reduce(0) { $0 + $1.count }
        let list = named.count == 1 ? named[0] : named.dropLast().joined(separator: ", ") + " and " + named[named.count - 1]
        return "\(list) \(total == 1 ? "was" : "were") rejected with \(code)"
    }

    /// ``rejected(_:code:)`` for one kind of promise.
    ///
    /// - Parameters:
    ///   - count: How many promises were rejected (at least 1).
    ///   - singular: What one of them was, such as `request in flight`.
    ///   - plural: What several were, such as `requests in flight`.
    ///   - code: The name of the code they were rejected with.
    /// - Returns: The clause.
    @_alwaysEmitIntoClient
    package static func rejected(_ count: Int, _ singular: String, _ plural: String, code: String) -> String {
        rejected([(count, singular, plural)], code: code) ?? "nothing was rejected"
    }
}
