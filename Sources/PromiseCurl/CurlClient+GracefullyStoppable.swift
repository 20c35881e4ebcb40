public import PromiseCore

extension CurlClient: GracefullyStoppable {
    /// ``shutdown()``; for ``shared``, which is never shut down, a fulfilled promise: nothing
    /// of the program's own is left to stop.
    public func stopGracefully() -> Promise<Void> {
        self === CurlClient.shared ? Promise(()) : shutdown()
    }
}
