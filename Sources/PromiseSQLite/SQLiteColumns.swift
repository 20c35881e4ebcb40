/// The names of a result's columns, shared by all its rows.
public final class SQLiteColumns: Sendable, CustomStringConvertible {
    /// The names, in column order, as SQLite reports them (the `AS` alias when there is one).
    public let names: [String]
    private let exact: [String: Int]
    private let folded: [String: Int]

    init(_ names: [String]) {
        self.names = names
        var exact = [String: Int](minimumCapacity: names.count)
        var folded = [String: Int](minimumCapacity: names.count)
        for (index, name) in names.enumerated() {
            if exact[name] == nil { exact[name] = index }
            let lower = name.lowercased()
            if folded[lower] == nil { folded[lower] = index }
        }
        self.exact = exact
        self.folded = folded
    }

    /// The index of the first column called `name`; SQL names are case-insensitive, so an
    /// exact match is tried first, then one ignoring case.
    ///
    /// - Parameter name: The column name.
    /// - Returns: The index, or `nil` when no column has that name.
    public func index(of name: String) -> Int? {
        exact[name] ?? folded[name.lowercased()]
    }

    /// The names, comma-separated.
    public var description: String { names.joined(separator: ", ") }
}
