extension UVError {
    /// `uv.code` (libuv's negative errno), `uv.code_name` (such as `EBUSY`), `uv.operation`,
    /// and `uv.detail` when there is one.
    public var logFields: [String: String] {
        var fields = ["uv.code": String(code.rawValue), "uv.code_name": name, "uv.operation": operation]
        if !detail.isEmpty { fields["uv.detail"] = detail }
        return fields
    }
}
