/// An absolute URL split into the parts a request head needs. Deliberately small: libcurl
/// parses the URL again when it sends; this only finds what HTTP types need and refuses what
/// must never be sent (spaces and control characters, which would be header injection in the
/// request line).
struct URLParts: Sendable, Equatable {
    struct Problem: Error, Equatable {
        let message: String
    }

    /// Lowercased scheme, e.g. `http`.
    var scheme: String
    /// `host[:port]`, userinfo included if given; empty for `file:///path`.
    var authority: String
    /// The path, `/` when the URL has none.
    var path: String
    /// The query without `?`, or `nil` when there is none.
    var query: String?

    var pathAndQuery: String { query.map { path + "?" + $0 } ?? path }
    var string: String { "\(scheme)://\(authority)\(pathAndQuery)" }

    /// The host without userinfo and port, brackets of an IPv6 literal kept.
    var host: String {
        var hostPort = Substring(authority)
        if let at = hostPort.lastIndex(of: "@") { hostPort = hostPort[hostPort.index(after: at)...] }
        if hostPort.hasPrefix("["), let close = hostPort.firstIndex(of: "]") {
            return String(hostPort[...close])
        }
        if let colon = hostPort.lastIndex(of: ":") { return String(hostPort[..<colon]) }
        return String(hostPort)
    }

    static func parse(_ text: String) -> Result<URLParts, Problem> {
        var offset = 0
        for byte in text.utf8 {
            if byte <= 0x20 || byte == 0x7F {
                let what = byte == 0x20 ? "a space" : "control character 0x\(String(byte, radix: 16, uppercase: true))"
                return .failure(Problem(message: "URL '\(printable(text))' contains \(what) at offset \(offset); percent-encode it"))
            }
            offset += 1
        }
        guard let separator = text.firstRange(of: "://") else {
            return .failure(Problem(message: "URL '\(printable(text))' is not absolute; write it as scheme://host/path, e.g. http://127.0.0.1:8080/"))
        }
        let scheme = text[..<separator.lowerBound]
        let schemeBytes = Array(scheme.utf8)
        func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
        guard let first = schemeBytes.first, isLetter(first),
            schemeBytes.allSatisfy({ isLetter($0) || (0x30...0x39).contains($0) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E })
        else {
            return .failure(Problem(message: "URL '\(printable(text))' has an invalid scheme '\(scheme)'"))
        }
        var rest = text[separator.upperBound...]
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = String(rest[..<authorityEnd])
        var tail = rest[authorityEnd...]
        var query: String?
        if let mark = tail.firstIndex(of: "?") {
            query = String(tail[tail.index(after: mark)...])
            tail = tail[..<mark]
        }
        let lowered = scheme.lowercased()
        if authority.isEmpty && lowered != "file" {
            return .failure(Problem(message: "URL '\(printable(text))' has no host"))
        }
        return .success(URLParts(scheme: lowered, authority: authority, path: tail.isEmpty ? "/" : String(tail), query: query))
    }

    private static func printable(_ text: String) -> String {
        String(text.unicodeScalars.prefix(200).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
    }
}

/// Percent-encoding for query strings and form bodies (RFC 3986 unreserved characters stay).
enum PercentEncoding {
    private static let hex = Array("0123456789ABCDEF".utf8)

    /// Query component encoding: everything but `A-Z a-z 0-9 - . _ ~` as `%XX`.
    static func query(_ text: String) -> String {
        encode(text, spaceAsPlus: false)
    }

    /// `application/x-www-form-urlencoded`: as ``query(_:)`` but a space becomes `+`.
    static func form(_ text: String) -> String {
        encode(text, spaceAsPlus: true)
    }

    private static func encode(_ text: String, spaceAsPlus: Bool) -> String {
        var bytes = [UInt8]()
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "~"):
                bytes.append(byte)
            case UInt8(ascii: " ") where spaceAsPlus:
                bytes.append(UInt8(ascii: "+"))
            default:
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
