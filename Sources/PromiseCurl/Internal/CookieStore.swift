internal import CCurl

/// A client's cookie store (``CurlConfiguration/keepsCookies``): a libcurl share handle that
/// shares cookies among the client's easy handles.
///
/// `@unchecked Sendable`: created by the client's initializer before the driver thread starts,
/// then used only on the driver thread (attaching handles, and the cleanup after the last
/// handle is gone). The driver is single-threaded, so the share needs no lock callbacks.
struct CookieStore: @unchecked Sendable {
    private let share: UnsafeMutableRawPointer

    /// A new, empty store, or `nil` when libcurl cannot make one.
    init?() {
        guard let share = curl_share_init() else { return nil }
        guard ccurl_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_COOKIE.rawValue)) == CURLSHE_OK else {
            curl_share_cleanup(share)
            return nil
        }
        self.share = share
    }

    /// Makes `easy` read and write this store: its cookie engine on (`CURLOPT_COOKIEFILE` with
    /// no file), and the share attached. Driver thread only.
    func attach(_ easy: UnsafeMutableRawPointer) throws(CurlError) {
        try curlCheck(ccurl_easy_setopt_string(easy, CURLOPT_COOKIEFILE, ""), "CURLOPT_COOKIEFILE")
        try curlCheck(ccurl_easy_setopt_pointer(easy, CURLOPT_SHARE, share), "CURLOPT_SHARE")
    }

    /// Frees the store, once no easy handle uses it any more. Driver thread only.
    func close() {
        curl_share_cleanup(share)
    }
}
