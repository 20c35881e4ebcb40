public import PromiseCore

extension UVLoop: GracefullyStoppable {
    /// shutdown().
    public func stopGracefully() -> Promise<Void> {
        shutdown()
    }
}
