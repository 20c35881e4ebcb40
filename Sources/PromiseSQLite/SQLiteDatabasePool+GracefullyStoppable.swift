public import PromiseCore

extension SQLiteDatabasePool: GracefullyStoppable {
    /// close().
    public func stopGracefully() -> Promise<Void> {
        close()
    }
}
