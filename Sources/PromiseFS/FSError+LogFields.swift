extension FSError {
    /// `fs.code_name` (``Code-swift.struct/name``), `fs.code` (the `errno` value, absent for
    /// PromiseFS's own codes), `fs.operation` and `fs.path`.
    public var logFields: [String: String] {
        var fields = ["fs.code_name": code.name, "fs.operation": operation, "fs.path": path]
        if let errno = code.errno { fields["fs.code"] = String(errno) }
        return fields
    }
}
