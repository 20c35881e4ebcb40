/// The tables a read used, as SQLite's authorizer reports them while its statements are
/// prepared (`SQLITE_READ`, for every table a statement reads, through views and subqueries,
/// and for `count(*)`): what a value observation re-runs for.
final class ReadRegion {
    /// The tables read, lower-cased.
    private(set) var tables: Set<String> = []

    func read(table: UnsafePointer<CChar>) {
        tables.insert(asciiLowercased(String(cString: table)))
    }

    /// Runs `body` on `connection` and returns what it returned with the tables it read.
    ///
    /// Installing the region on the connection's authorizer, and removing it after, expires
    /// the connection's prepared statements, so every statement `body` runs is prepared (and
    /// reported) again, cached or not.
    static func tracking<T>(_ connection: Connection, _ body: () throws -> T) throws -> (value: T, tables: Set<String>) {
        let region = ReadRegion()
        let previous = connection.authorizer.reads
        connection.authorizer.reads = region
        defer { connection.authorizer.reads = previous }
        let value = try body()
        return (value, region.tables)
    }
}
