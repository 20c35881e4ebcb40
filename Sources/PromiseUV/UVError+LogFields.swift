extension UVError {
    /// `uv.code_name` (``name``: libuv's, such as `EBUSY`, or `loopClosed`), `uv.code`
    /// (libuv's negative errno, absent for PromiseUV's own code), `uv.operation`, and
    /// `uv.detail` when there is one.
    public var logFields: [String: String] {
        var fields = ["uv.code_name": name, "uv.operation": operation]
        if let uvCode = code.uvCode { fields["uv.code"] = String(uvCode) }
        if !detail.isEmpty { fields["uv.detail"] = detail }
        return fields
    }
}
