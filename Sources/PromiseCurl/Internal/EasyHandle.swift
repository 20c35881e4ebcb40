internal import CCurl

/// One libcurl easy handle and the memory libcurl points into while it is configured: the
/// error buffer, the header list and the copy of a request body. The driver thread alone
/// creates, resets, reuses and closes it.
///
/// A handle lives longer than a transfer: the driver keeps finished ones (``resetForReuse()``)
/// because resetting costs less than `curl_easy_cleanup` plus `curl_easy_init`. It is closed
/// explicitly, with ``close()``, on the driver thread; its `deinit` never calls libcurl, and
/// frees only the memory of a handle that was closed.
final class EasyHandle {
    /// The `CURL *`.
    let pointer: UnsafeMutableRawPointer
    /// `CURLOPT_ERRORBUFFER`: libcurl's message for the last failure.
    let errorBuffer: UnsafeMutablePointer<CChar>
    /// `CURLOPT_HTTPHEADER`, built by ``appendHeaderLine(_:)``.
    private(set) var headerList: UnsafeMutablePointer<curl_slist>?
    /// `CURLOPT_POSTFIELDS`: the request body, kept until the transfer ends (a redirect that
    /// keeps the body sends it again from here).
    private var uploadBytes: UnsafeMutableRawBufferPointer?
    private var closed = false
    /// The options the handle holds when they are those of a plain request (see
    /// ``KeptOptions``): a later transfer with equal ones skips `curl_easy_reset` and sets only
    /// what differs per transfer. `nil` when the handle holds anything else, or is reset.
    var kept: KeptOptions?

    /// A new handle (`curl_easy_init`), or `nil` when libcurl cannot make one (out of memory).
    init?() {
        guard let pointer = curl_easy_init() else { return nil }
        self.pointer = pointer
        errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(ccurl_error_size()))
        errorBuffer.initialize(to: 0)
    }

    deinit {
        // A handle dropped without close() (never on purpose) leaks the C handle rather than
        // call libcurl from whichever thread releases it; the buffers are libcurl-free.
        guard closed else { return }
        errorBuffer.deallocate()
    }

    /// The last failure's message from libcurl, or empty.
    var errorMessage: String { String(cString: errorBuffer) }

    /// Adds a line to the header list.
    func appendHeaderLine(_ line: String) {
        headerList = curl_slist_append(headerList, line)
    }

    /// A copy of `bytes` that stays put until the handle is reset for reuse, made once per
    /// transfer however many hops send it.
    func uploadCopy(of bytes: [UInt8]) -> UnsafeMutableRawBufferPointer {
        if let uploadBytes { return uploadBytes }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
        bytes.withUnsafeBytes { buffer.copyMemory(from: $0) }
        uploadBytes = buffer
        return buffer
    }

    /// Clears the options (`curl_easy_reset`), the header list and the error message before
    /// the next hop of the same transfer; the body copy stays.
    func resetForNextHop() {
        // libcurl 7.88's curl_easy_reset leaves the list of cookie files (CURLOPT_COOKIEFILE,
        // which a client that keeps cookies sets to "") allocated and forgotten; libcurl 8.0
        // frees it (curl pull request #10709). Setting the option to NULL first frees it, and
        // leaves a shared cookie store as it is.
        _ = ccurl_easy_setopt_pointer(pointer, CURLOPT_COOKIEFILE, nil)
        curl_easy_reset(pointer)
        freeHeaderList()
        errorBuffer[0] = 0
        kept = nil
    }

    /// Ready for another transfer that sets ``kept`` options again: only the error message is
    /// cleared; the options stay.
    func prepareForKeptReuse() {
        errorBuffer[0] = 0
    }

    /// ``resetForNextHop()``, and the body copy freed: ready for another transfer.
    func resetForReuse() {
        resetForNextHop()
        uploadBytes?.deallocate()
        uploadBytes = nil
    }

    /// Frees the header list; libcurl must no longer point at it (reset or cleaned up first).
    private func freeHeaderList() {
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
    }

    /// `curl_easy_cleanup` and every buffer. Driver thread only, after
    /// `curl_multi_remove_handle`; once.
    func close() {
        guard !closed else { return }
        closed = true
        curl_easy_cleanup(pointer)
        freeHeaderList()
        uploadBytes?.deallocate()
        uploadBytes = nil
    }
}
