internal import PromiseSystem

/// A proxy that requests go through: an HTTP or HTTPS proxy (plain `http` requests are sent
/// to it whole, `https` ones through a `CONNECT` tunnel) or a SOCKS5 one.
///
/// ```swift
/// var configuration = CurlConfiguration()
/// configuration.proxy = .through(try CurlProxy(url: proxyURL))   // "socks5h://user:secret@127.0.0.1:1080", say
/// let proxied = try CurlClient(configuration: configuration)
/// ```
///
/// The password never appears in ``description``, in an error's message or in anything else
/// the library prints: it is shown as `***`. The values are checked when the proxy is made, so
/// a request never starts with a proxy libcurl would refuse.
public struct CurlProxy: Sendable, Hashable, CustomStringConvertible {
    /// How the proxy is spoken to.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// An HTTP proxy, over plain TCP (`http://`).
        case http
        /// An HTTP proxy, over TLS to the proxy (`https://`), verified as
        /// ``CurlConfiguration/tls`` says.
        case https
        /// A SOCKS5 proxy that is given the address this machine resolved (`socks5://`).
        case socks5
        /// A SOCKS5 proxy that is given the host name and resolves it itself (`socks5h://`):
        /// the choice when the proxy can reach names this machine cannot resolve.
        case socks5Hostname = "socks5h"
    }

    /// How the proxy is spoken to.
    public let kind: Kind
    /// The proxy's host name or IP address (an IPv6 address without brackets).
    public let host: String
    /// The proxy's port.
    public let port: Int
    /// The user name the proxy asks for, if any.
    public let username: String?
    /// The password the proxy asks for, if any. Never printed.
    public let password: String?
    /// The hosts reached directly, not through the proxy, as libcurl's `CURLOPT_NOPROXY` and
    /// the curl CLI's `--noproxy` read them: a host name matches itself and its subdomains
    /// (`example.com` and `.example.com` both match `www.example.com`), without regard to
    /// ASCII case; an IP address matches itself; `*`, alone in the list, matches every host.
    public let bypass: [String]

    /// A proxy from its parts.
    ///
    /// - Parameters:
    ///   - kind: How the proxy is spoken to.
    ///   - host: Its host name or IP address; an IPv6 address with or without brackets.
    ///   - port: Its port, 1 to 65535.
    ///   - username: The user name it asks for, if any.
    ///   - password: The password it asks for, if any; needs a `username`.
    ///   - bypass: Hosts reached directly (see ``bypass``).
    /// - Throws: ``CurlError/Code/invalidArgument`` naming what is wrong: an empty host, one
    ///   with a character a host cannot hold, a port out of range, a password without a user
    ///   name, or a NUL byte or comma where libcurl cannot take one.
    public init(
        _ kind: Kind, host: String, port: Int, username: String? = nil, password: String? = nil, bypass: [String] = []
    ) throws(CurlError) {
        var host = host
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw CurlError(.invalidArgument, message: "the proxy's host is empty") }
        if let bad = host.unicodeScalars.first(where: { $0.value <= 0x20 || "/?#@[]\\".unicodeScalars.contains($0) }) {
            throw CurlError(.invalidArgument, message: "the proxy's host '\(host)' holds '\(bad.escaped(asASCII: true))', which a host cannot")
        }
        guard (1...65_535).contains(port) else {
            throw CurlError(.invalidArgument, message: "the proxy's port \(port) is not between 1 and 65535")
        }
        if password != nil, username == nil {
            throw CurlError(.invalidArgument, message: "the proxy has a password but no user name")
        }
        if let username, AdapterPaths.containsNUL(username) {
            throw CurlError(.invalidArgument, message: "the proxy's user name holds a NUL byte")
        }
        if let password, AdapterPaths.containsNUL(password) {
            throw CurlError(.invalidArgument, message: "the proxy's password holds a NUL byte")
        }
        for entry in bypass where entry.isEmpty || entry.contains(where: { ",/ \t".contains($0) }) || AdapterPaths.containsNUL(entry) {
            throw CurlError(
                .invalidArgument,
                message: "the proxy's bypass entry '\(entry)' is empty or holds a comma, slash, space or NUL byte; give one host or address per entry")
        }
        if bypass.count > 1, bypass.contains("*") {
            throw CurlError(.invalidArgument, message: "the proxy's bypass list has '*' beside other entries; '*' alone bypasses every host")
        }
        self.kind = kind
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.bypass = bypass
    }

    /// A proxy from its URL, as the curl CLI's `--proxy` takes it:
    /// `scheme://[user[:password]@]host[:port]`, with `http`, `https`, `socks5` or `socks5h`
    /// as the scheme (`http` when there is none). The user name and password are
    /// percent-decoded. The port defaults to 1080 for SOCKS5, 443 for `https` and 1080 for
    /// `http`, as libcurl's do.
    ///
    /// - Parameters:
    ///   - url: The proxy's URL.
    ///   - bypass: Hosts reached directly (see ``bypass``).
    /// - Throws: ``CurlError/Code/invalidArgument`` naming what is wrong: an unknown scheme, a
    ///   path after the host, a port that is not a number, or what ``init(_:host:port:username:password:bypass:)`` refuses.
    ///   The message never holds the password.
    public init(url: String, bypass: [String] = []) throws(CurlError) {
        var rest = Substring(url)
        var kind = Kind.http
        if let colon = rest.firstIndex(of: ":"), rest[colon...].hasPrefix("://") {
            let scheme = rest[..<colon].lowercased()
            guard let known = Kind(rawValue: scheme) else {
                throw CurlError(
                    .invalidArgument,
                    message: "the proxy scheme '\(scheme)' is not one of \(Kind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            kind = known
            rest = rest[rest.index(colon, offsetBy: 3)...]
        }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        var username: String?
        var password: String?
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = credentials.firstIndex(of: ":") {
                username = Self.percentDecoded(credentials[..<colon])
                password = Self.percentDecoded(credentials[credentials.index(after: colon)...])
            } else {
                username = Self.percentDecoded(credentials)
            }
        }
        if let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) {
            throw CurlError(
                .invalidArgument, message: "the proxy URL has '\(rest[slash...])' after its host; a proxy URL ends at its port")
        }
        var host = rest
        var port = kind == .https ? 443 : 1080
        let portStart: Substring.Index?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else {
                throw CurlError(.invalidArgument, message: "the proxy's IPv6 address '\(rest)' has no closing ']'")
            }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest.index(after: close)
            portStart = after < rest.endIndex && rest[after] == ":" ? rest.index(after: after) : nil
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            portStart = rest.index(after: colon)
        } else {
            portStart = nil
        }
        if let portStart {
            let digits = rest[portStart...]
            guard let number = Int(digits), digits.allSatisfy(\.isASCII) else {
                throw CurlError(.invalidArgument, message: "the proxy's port '\(digits)' is not a number")
            }
            port = number
        }
        try self.init(kind, host: String(host), port: port, username: username, password: password, bypass: bypass)
    }

    /// `scheme://user:***@host:port`: the URL with the password hidden.
    public var description: String {
        var text = kind.rawValue + "://"
        if let username {
            text += Self.percentEncoded(username)
            if password != nil { text += ":***" }
            text += "@"
        }
        return text + hostAndPort
    }

    /// Whether a request to `host` (brackets of an IPv6 literal kept or not) goes directly, by
    /// ``bypass``: the rule libcurl applies to `CURLOPT_NOPROXY`.
    func bypasses(host: String) -> Bool {
        if bypass == ["*"] { return true }
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        for entry in bypass {
            var name = entry.lowercased()
            if name.hasPrefix("[") && name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
            while name.hasPrefix(".") { name.removeFirst() }
            if host == name || host.hasSuffix("." + name) { return true }
        }
        return false
    }

    /// `host:port`, an IPv6 address in brackets.
    var hostAndPort: String { (host.contains(":") ? "[\(host)]" : host) + ":\(port)" }

    /// What libcurl's `CURLOPT_PROXY` is set to: the scheme, host and port, without the
    /// credentials, which go in their own options.
    var curlURL: String { kind.rawValue + "://" + hostAndPort }

    private static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var utf8 = text.utf8[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func percentEncoded(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            let scalar = Unicode.Scalar(byte)
            if byte < 0x80, scalar.properties.isAlphabetic || ("0"..."9").contains(Character(scalar)) || "-._~".unicodeScalars.contains(scalar) {
                encoded.unicodeScalars.append(scalar)
            } else {
                encoded += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return encoded
    }
}

extension String {
    /// The string with `0`s before it up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

/// Whether requests go through a proxy, and which.
public enum CurlProxySetting: Sendable, Hashable {
    /// Every request connects directly, whatever the environment says. The default.
    case direct
    /// Every request goes through `proxy`, except to the hosts in its ``CurlProxy/bypass``.
    case through(CurlProxy)
    /// The proxy the environment names for each request, read by libcurl as the curl CLI
    /// reads it: `http_proxy` for `http` URLs (lowercase only), `https_proxy` or
    /// `HTTPS_PROXY` for `https` ones, `all_proxy` or `ALL_PROXY` for both, and `no_proxy` or
    /// `NO_PROXY` for the hosts reached directly. The variables are read when each request
    /// starts.
    case fromEnvironment
}
