/// How far a transfer has come, as reported to ``CurlRequest/onProgress(on:_:)``.
public struct CurlProgress: Sendable, Hashable {
    /// Body bytes received so far, as sent on the wire (before gzip or deflate decoding).
    public var downloaded: Int64
    /// The expected body size on the wire (`Content-Length`), or `nil` while unknown
    /// (chunked, or not yet received).
    public var expectedDownload: Int64?
    /// Request-body bytes sent so far.
    public var uploaded: Int64
    /// The request-body size, or `nil` when there is no body.
    public var expectedUpload: Int64?

    /// Creates a progress report.
    ///
    /// - Parameters:
    ///   - downloaded: Bytes received.
    ///   - expectedDownload: Bytes expected, if known.
    ///   - uploaded: Bytes sent.
    ///   - expectedUpload: Bytes to send, if known.
    public init(downloaded: Int64, expectedDownload: Int64?, uploaded: Int64, expectedUpload: Int64?) {
        self.downloaded = downloaded
        self.expectedDownload = expectedDownload
        self.uploaded = uploaded
        self.expectedUpload = expectedUpload
    }

    /// The downloaded fraction from 0 to 1, or `nil` when the size is unknown.
    public var fractionDownloaded: Double? {
        guard let expected = expectedDownload, expected > 0 else { return nil }
        return Double(downloaded) / Double(expected)
    }
}
