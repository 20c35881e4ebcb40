extension SQLiteError {
    /// `sqlite.code_name` (``Code-swift.struct/name``), `sqlite.code` (the extended result
    /// code, absent for PromiseSQLite's own codes), `sqlite.message`, and `sqlite.sql`: the statement's text, which
    /// holds `?` and `:name` placeholders, never the values bound to them.
    public var logFields: [String: String] {
        var fields = ["sqlite.code_name": code.name, "sqlite.message": message]
        if let resultCode = code.resultCode { fields["sqlite.code"] = String(resultCode) }
        if let sql { fields["sqlite.sql"] = sql }
        return fields
    }
}
