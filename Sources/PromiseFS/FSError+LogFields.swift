extension FSError {
    /// `fs.code` (the errno value, negative for PromiseFS's own codes), `fs.code_name`,
    /// `fs.operation` and `fs.path`.
    public var logFields: [String: String] {
        ["fs.code": String(code.rawValue), "fs.code_name": code.description, "fs.operation": operation, "fs.path": path]
    }
}
