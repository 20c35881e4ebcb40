public import PromiseCore

extension SQLiteDatabase: GracefullyStoppable {
    /// close().
    public func stopGracefully() -> Promise<Void> {
        close()
    }
}
