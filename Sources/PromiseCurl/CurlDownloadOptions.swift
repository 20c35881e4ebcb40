/// How ``CurlClient/download(_:to:options:)-(CurlRequest,_,_)`` stores a body.
public struct CurlDownloadOptions: Sendable {
    /// Flush the file and its directory to disk before the promise fulfils (`fsync`), so a
    /// power loss cannot leave a renamed but empty file. Default `true`.
    public var durable = true
    /// Store the body only for a 2xx status; otherwise reject with
    /// ``CurlError/Code/badStatus`` and leave the file as it was. Default `true`.
    public var requireSuccess = true

    /// The defaults: durable, 2xx only.
    public init() {}
}
