internal import CCurl

/// libcurl's global state, set up once per process before the first handle (thread-safe:
/// a Swift global is initialized once).
let curlGlobalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_ALL))

/// Turns a `curl_easy_setopt`/`getinfo` return code into a ``CurlError``, naming the option.
///
/// - Parameters:
///   - code: What libcurl returned.
///   - what: The option, for the message (`CURLOPT_URL`).
/// - Throws: ``CurlError`` unless `code` is `CURLE_OK`.
func curlCheck(_ code: CURLcode, _ what: @autoclosure () -> String) throws(CurlError) {
    guard code != CURLE_OK else { return }
    throw CurlError(CurlError.Code(curlCode: Int32(bitPattern: code.rawValue)), message: "\(what()) failed: \(String(cString: curl_easy_strerror(code)))")
}

/// The same for `curl_multi_*` codes.
func curlMultiCheck(_ code: CURLMcode, _ what: @autoclosure () -> String) throws(CurlError) {
    guard code != CURLM_OK else { return }
    throw CurlError(.internalError, message: "\(what()) failed: \(String(cString: curl_multi_strerror(code)))")
}

/// The version string, e.g. `libcurl/7.88.1 OpenSSL/3.0.17 zlib/1.2.13 …`.
func curlVersion() -> String {
    String(cString: curl_version())
}
