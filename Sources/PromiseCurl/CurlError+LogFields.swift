extension CurlError {
    /// `curl.code_name` (``Code-swift.struct/name``), `curl.code` (the `CURLcode`, absent for
    /// PromiseCurl's own codes), `curl.message`, and when the error is about
    /// a request `http.method` and `http.url` (user information shown as `***@`), and
    /// `http.status` when a response arrived.
    public var logFields: [String: String] {
        var fields = ["curl.code_name": code.name, "curl.message": message]
        if let curlCode = code.curlCode { fields["curl.code"] = String(curlCode) }
        if !method.isEmpty { fields["http.method"] = method }
        if !url.isEmpty { fields["http.url"] = url }
        if let response { fields["http.status"] = String(response.status.code) }
        return fields
    }
}
