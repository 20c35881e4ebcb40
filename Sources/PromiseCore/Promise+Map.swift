extension Promise {
    /// Transforms `items` with promise-returning work, at most `concurrency` at a time,
    /// starting each piece of work only when a slot is free.
    ///
    /// ```swift
    /// let pages = Promise.map(urls, concurrency: 8) { url in client.get(url) }
    /// ```
    ///
    /// Results come in input order. The first rejection rejects the returned promise, starts
    /// nothing more and withdraws from the work still running (cancelling it unless something
    /// else waits for it). Cancelling the returned promise does the same.
    ///
    /// - Parameters:
    ///   - context: Where `transform` runs; `nil` means ``Promises/defaultContext``.
    ///   - items: The inputs.
    ///   - concurrency: How many pieces of work may run at once; at least 1.
    ///   - transform: Starts the work for one item.
    /// - Returns: A promise for the results, in input order.
    @_alwaysEmitIntoClient
    public static func map<Item: Sendable, S: Sequence<Item>>(
        on context: (any ExecutionContext)? = nil,
        _ items: S,
        concurrency: Int,
        _ transform: @escaping @Sendable (Item) throws -> Promise<Value>
    ) -> Promise<[Value]> {
        guard concurrency >= 1 else {
            return Promise<[Value]>(PromiseError(.invalidArgument, message: "map: concurrency must be at least 1, got \(concurrency)"))
        }
        let items = Array(items)
        if items.isEmpty { return Promise<[Value]>([]) }
        let mapper = Mapper(context: context ?? Promises.defaultContext, items: items, transform: transform)
        mapper.result.onCancel { mapper.stop() }
        mapper.start(concurrency)
        return mapper.result
    }
}

extension Promise {
    /// Transforms `items` with promise-returning work, at most `concurrency` at a time, and
    /// fulfils with every outcome: the variant of ``map(on:_:concurrency:_:)`` that goes on
    /// after a failure.
    ///
    /// ```swift
    /// Promise.mapSettled(urls, concurrency: 8) { url in client.get(url) }.then { outcomes in
    ///     for case .failure(let error) in outcomes { print("failed:", error) }
    /// }
    /// ```
    ///
    /// Results come in input order and the returned promise never rejects: a rejected piece of
    /// work, or a `transform` that throws, is a `.failure` in its place. Cancelling the
    /// returned promise starts nothing more and withdraws from the work still running
    /// (cancelling it unless something else waits for it).
    ///
    /// - Parameters:
    ///   - context: Where `transform` runs; `nil` means ``Promises/defaultContext``.
    ///   - items: The inputs.
    ///   - concurrency: How many pieces of work may run at once; at least 1 (a smaller value
    ///     rejects the returned promise with ``PromiseError/Code-swift.struct/invalidArgument``).
    ///   - transform: Starts the work for one item.
    /// - Returns: A promise for every outcome, in input order.
    @_alwaysEmitIntoClient
    public static func mapSettled<Item: Sendable, S: Sequence<Item>>(
        on context: (any ExecutionContext)? = nil,
        _ items: S,
        concurrency: Int,
        _ transform: @escaping @Sendable (Item) throws -> Promise<Value>
    ) -> Promise<[Result<Value, any Error>]> {
        Promise<Result<Value, any Error>>.map(on: context, items, concurrency: concurrency) { item in
            let work: Promise<Value>
            do {
                work = try transform(item)
            } catch {
                return Promise<Result<Value, any Error>>(.failure(error))
            }
            return work.map(on: .inline) { Result<Value, any Error>.success($0) }
                .recover(on: .inline, policy: .allErrors) { .failure($0) }
        }
    }
}

/// The state of one concurrency-limited `map`.
@usableFromInline
final class Mapper<Item: Sendable, Value: Sendable>: Sendable {
    /// The map's progress, under ``state``'s lock.
    @usableFromInline
    struct State {
        /// The index of the next item to start.
        @usableFromInline var next: Int
        /// How many items have finished.
        @usableFromInline var done: Int
        /// The values, by item index.
        @usableFromInline var results: [Value?]
        /// The promises of the items running now, by index, held weakly.
        @usableFromInline var running: [Int: WeakNode]
        /// Whether the map stopped (failed or cancelled): nothing more starts.
        @usableFromInline var stopped: Bool

        @_alwaysEmitIntoClient
        init(count: Int) {
            next = 0
            done = 0
            results = Array(repeating: nil, count: count)
            running = [:]
            stopped = false
        }
    }

    @usableFromInline let result: Promise<[Value]>
    @usableFromInline let context: any ExecutionContext
    @usableFromInline let items: [Item]
    @usableFromInline let transform: @Sendable (Item) throws -> Promise<Value>
    @usableFromInline let state: Lock<State>

    @_alwaysEmitIntoClient
    init(context: any ExecutionContext, items: [Item], transform: @escaping @Sendable (Item) throws -> Promise<Value>) {
        self.result = Promise(resolvingContextID: context.executionContextID)
        self.context = context
        self.items = items
        self.transform = transform
        self.state = Lock(State(count: items.count))
    }

    @_alwaysEmitIntoClient
    func start(_ concurrency: Int) {
        for _ in 0..<min(concurrency, items.count) {
            launchNext()
        }
    }

    /// Claims the next item, if any, and starts its work on the context.
    @_alwaysEmitIntoClient
    func launchNext() {
        let index: Int? = state.withLock { state in
            guard !state.stopped, state.next < items.count else { return nil }
            defer { state.next += 1 }
            return state.next
        }
        guard let index else { return }
        Scheduler.submit(context, owner: result) { [self] in run(index) }
    }

    @_alwaysEmitIntoClient
    func run(_ index: Int) {
        guard result.isPending else { return }
        let promise: Promise<Value>
        do {
            promise = try transform(items[index])
        } catch {
            fail(error)
            return
        }
        let pending = promise.subscribe(on: nil) { [self] outcome in
            switch outcome {
            case .success(let value):
                let finished: [Value]? = state.withLock { state in
                    state.running[index] = nil
                    state.results[index] = value
                    state.done += 1
                    guard state.done == items.count else { return nil }
                    return state.results.map { $0! }
                }
                if let finished {
                    result.resolve(.success(finished), by: .chain)
                } else {
                    launchNext()
                }
            case .failure(let error):
                fail(error)
            }
        }
        if pending {
            let stopped = state.withLock { state in
                if !state.stopped { state.running[index] = WeakNode(promise) }
                return state.stopped
            }
            if stopped { withdrawUpward(from: promise) }
        }
    }

    @_alwaysEmitIntoClient
    func fail(_ error: any Error) {
        result.resolve(.failure(error), by: .chain)
        stop()
    }

    /// Starts nothing more and withdraws from the work still running.
    @_alwaysEmitIntoClient
    func stop() {
        let running: [WeakNode] = state.withLock { state in
            state.stopped = true
            defer { state.running = [:] }
            return Array(state.running.values)
        }
        for node in running {
            node.withdraw()
        }
    }
}
