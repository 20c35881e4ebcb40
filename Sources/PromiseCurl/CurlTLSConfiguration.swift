/// TLS settings of a ``CurlClient``.
public struct CurlTLSConfiguration: Sendable {
    /// A PEM file of CA certificates to trust instead of the system's (`CURLOPT_CAINFO`), for
    /// a private CA or a self-signed server certificate.
    public var caFile: String?
    /// Verify the server's certificate chain. Default `true`; turning it off makes TLS
    /// worthless against an active attacker.
    public var verifyPeer = true
    /// Verify that the certificate names the host. Default `true`.
    public var verifyHost = true

    /// The defaults: system trust store, full verification.
    public init() {}
}
