extension SQLiteError {
    /// `sqlite.code` (the extended result code, negative for PromiseSQLite's own),
    /// `sqlite.code_name`, `sqlite.message`, and `sqlite.sql`: the statement's text, which
    /// holds `?` and `:name` placeholders, never the values bound to them.
    public var logFields: [String: String] {
        var fields = ["sqlite.code": String(code.rawValue), "sqlite.code_name": code.description, "sqlite.message": message]
        if let sql { fields["sqlite.sql"] = sql }
        return fields
    }
}
