// Compiled only with the ServiceLifecycle trait (Package.swift): without it this module is empty and
// the package it needs is neither resolved nor built.
#if ServiceLifecycle
    public import PromiseCore
    public import ServiceLifecycle

    /// A `CurlClient`, `SQLiteDatabase`, `SQLiteDatabasePool`, `FileIOPool` or `UVLoop` (any
    /// `GracefullyStoppable`) as a swift-service-lifecycle `Service`.
    ///
    /// ```swift
    /// let loop = try UVLoop()
    /// try loop.startThread()
    /// let db = SQLiteDatabase(path: "app.sqlite")
    /// let client = try CurlClient()
    ///
    /// let group = ServiceGroup(
    ///     services: [PromiseService(loop), PromiseService(db), PromiseService(client), server],
    ///     gracefulShutdownSignals: [.sigterm, .sigint],
    ///     logger: logger
    /// )
    /// try await group.run()
    /// ```
    ///
    /// The service's `run()` waits until the group shuts down gracefully (a signal, or another
    /// service ending), then stops the resource with its own shutdown and returns once that has
    /// finished. A `ServiceGroup` shuts services down one at a time in reverse order, so list the
    /// resources before the services that use them: above, the server stops first, then the HTTP
    /// client fails what it still has in flight, then the database lets its queued operations
    /// finish and closes, and the loop shuts down last.
    ///
    /// If the group cancels the service instead (a cancellation signal, or a service failing),
    /// the resource is stopped all the same: its shutdown is not cancelled with the task.
    public struct PromiseService<Resource: GracefullyStoppable>: Service, CustomStringConvertible {
        /// The resource this service stops.
        public let resource: Resource

        /// A service that stops `resource` when the group shuts down.
        ///
        /// - Parameter resource: The client, database, pool or loop. Start it first (a `UVLoop`
        ///   needs a thread of its own, from `startThread()`, to serve a group).
        public init(_ resource: Resource) {
            self.resource = resource
        }

        /// Waits for graceful shutdown or cancellation, then stops the resource.
        ///
        /// - Throws: What the resource's shutdown rejected with.
        public func run() async throws {
            // Returns at graceful shutdown; throws CancellationError when the task is cancelled.
            // Either way the resource has to stop.
            try? await gracefulShutdown()
            let stopped = resource.stopGracefully()
            // Not `get()`: a cancelled task would cancel the shutdown itself.
            let outcome: Result<Void, any Error> = await withCheckedContinuation { continuation in
                stopped
                    .then(on: .inline) { continuation.resume(returning: .success(())) }
                    .catch(on: .inline, policy: .allErrors) { continuation.resume(returning: .failure($0)) }
            }
            try outcome.get()
        }

        /// `PromiseService(<resource type>)`, as service-lifecycle's logs name it.
        public var description: String { "PromiseService(\(Resource.self))" }
    }
#endif  // ServiceLifecycle
