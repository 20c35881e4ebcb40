public import PromiseCore

extension FileIOPool: GracefullyStoppable {
    /// ``shutdown()``; for ``shared``, which every `PromiseFileSystem()` without a pool of its own
    /// uses and which is never shut down, a fulfilled promise.
    public func stopGracefully() -> Promise<Void> {
        self === FileIOPool.shared ? Promise(()) : shutdown()
    }
}
