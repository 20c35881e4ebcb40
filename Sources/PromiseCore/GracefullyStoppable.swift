/// An owner of threads or resources that can be asked to stop: an HTTP client, a database, a
/// file I/O pool, an event loop.
///
/// Each product's long-lived type adopts it with its own shutdown (`CurlClient.shutdown()`,
/// `SQLiteDatabase.close()`, `FileIOPool.shutdown()`, `UVLoop.shutdown()`), so code that runs
/// a program's services (the PromiseServiceLifecycle product with swift-service-lifecycle, or
/// your own) can stop them in order without knowing what they are.
public protocol GracefullyStoppable: Sendable {
    /// Stops taking new work, lets or makes in-flight work settle (as the type's own shutdown
    /// documents), releases the resources, and fulfils once all that is done. Calling it again
    /// gives a promise settled the same way.
    func stopGracefully() -> Promise<Void>
}
