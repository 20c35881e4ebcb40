internal import Glibc

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

    /// `host[:port]`: the authority without its user information, for messages.
    var hostAndPort: String {
        let bytes = Array(authority.utf8)[...]
        guard let at = bytes.lastIndex(of: UInt8(ascii: "@")) else { return authority }
        return String(decoding: bytes[(at + 1)...], as: UTF8.self)
    }

    /// The host without userinfo and port, brackets of an IPv6 literal kept.
    /// Found on UTF-8 bytes: a delimiter followed by a combining mark is still a delimiter.
    var host: String {
        var hostPort = Array(authority.utf8)[...]
        if let at = hostPort.lastIndex(of: UInt8(ascii: "@")) { hostPort = hostPort[(at + 1)...] }
        if hostPort.first == UInt8(ascii: "["), let close = hostPort.firstIndex(of: UInt8(ascii: "]")) {
            return String(decoding: hostPort[...close], as: UTF8.self)
        }
        if let colon = hostPort.lastIndex(of: UInt8(ascii: ":")) { return String(decoding: hostPort[..<colon], as: UTF8.self) }
        return String(decoding: hostPort, as: UTF8.self)
    }

    static func parse(_ text: String) -> Result<URLParts, Problem> {
        parseNotingForm(text).map(\.parts)
    }

    /// ``parse(_:)``, and whether `text` is already in the form ``string`` gives (a lowercase
    /// scheme, a path, no fragment), so a caller can keep `text` instead of building it again.
    static func parseNotingForm(_ text: String) -> Result<(parts: URLParts, isNormal: Bool), Problem> {
        var contiguous = text
        return contiguous.withUTF8 { parse($0, text) }
    }

    /// Parses the UTF-8 bytes of `text`. Every delimiter is ASCII, so the parts cut at them are
    /// whole UTF-8 sequences and keep every byte.
    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>, _ text: String) -> Result<(parts: URLParts, isNormal: Bool), Problem> {
        let count = bytes.count
        for offset in 0..<count where bytes[offset] <= 0x20 || bytes[offset] == 0x7F {
            let byte = bytes[offset]
            let what = byte == 0x20 ? "a space" : "control character 0x\(String(byte, radix: 16, uppercase: true))"
            return .failure(Problem(message: "URL '\(printable(text))' contains \(what) at offset \(offset); percent-encode it"))
        }
        var separator = -1
        var i = 0
        while i + 2 < count {
            if bytes[i] == 0x3A && bytes[i + 1] == 0x2F && bytes[i + 2] == 0x2F { separator = i; break }
            i += 1
        }
        guard separator >= 0 else {
            return .failure(Problem(message: "URL '\(printable(text))' is not absolute; write it as scheme://host/path, e.g. http://127.0.0.1:8080/"))
        }
        func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
        let schemeBytes = UnsafeBufferPointer(rebasing: bytes[..<separator])
        guard let first = schemeBytes.first, isLetter(first),
            schemeBytes.allSatisfy({ isLetter($0) || (0x30...0x39).contains($0) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E })
        else {
            return .failure(
                Problem(message: "URL '\(printable(text))' has an invalid scheme '\(printable(String(decoding: schemeBytes, as: UTF8.self), limit: 32))'"))
        }
        let authorityStart = separator + 3
        var end = authorityStart
        while end < count, bytes[end] != 0x23 { end += 1 }
        var authorityEnd = authorityStart
        while authorityEnd < end, bytes[authorityEnd] != 0x2F, bytes[authorityEnd] != 0x3F { authorityEnd += 1 }
        var pathEnd = authorityEnd
        while pathEnd < end, bytes[pathEnd] != 0x3F { pathEnd += 1 }
        func string(_ range: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
        let isLowercase = !schemeBytes.contains { $0 >= 0x41 && $0 <= 0x5A }
        let scheme = isLowercase ? string(0..<separator) : String(decoding: schemeBytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
        if authorityEnd == authorityStart && scheme != "file" {
            return .failure(Problem(message: "URL '\(printable(text))' has no host"))
        }
        let parts = URLParts(
            scheme: scheme, authority: string(authorityStart..<authorityEnd),
            path: pathEnd == authorityEnd ? "/" : string(authorityEnd..<pathEnd),
            query: pathEnd < end ? string((pathEnd + 1)..<end) : nil)
        return .success((parts, isLowercase && end == count && pathEnd > authorityEnd))
    }

    /// `text` for an error message: control characters as `?`, cut after `limit` scalars
    /// (marked with `…`), so a message stays short whatever the input.
    private static func printable(_ text: String, limit: Int = 200) -> String {
        let scalars = redactingUserInfo(text).unicodeScalars
        let shown = String(scalars.prefix(limit).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
        return scalars.count > limit ? shown + "…" : shown
    }
}

/// `url` with the user information of its authority (`user:password@`) shown as `***@`, for
/// every place a URL is shown: error messages, descriptions, `CurlResponse.url`. Works on any
/// text, parsed or not: the authority runs from `://` to the first `/`, `?` or `#`, and the
/// user information ends at its last `@`.
func redactingUserInfo(_ url: String) -> String {
    // Most URLs have no `@` at all: nothing to look for then. A native string is searched
    // in place, with `memchr`.
    let hasAt =
        url.utf8.withContiguousStorageIfAvailable { bytes in
            bytes.baseAddress.map { memchr($0, Int32(UInt8(ascii: "@")), bytes.count) != nil } ?? false
        }
        ?? url.utf8.contains(UInt8(ascii: "@"))
    guard hasAt else { return url }
    var bytes = Array(url.utf8)[...]
    guard let start = firstIndex(of: Array("://".utf8), in: bytes) else { return url }
    let authorityStart = start + 3
    let authorityEnd =
        bytes[authorityStart...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
        ?? bytes.endIndex
    guard let at = bytes[authorityStart..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) else { return url }
    bytes.replaceSubrange(authorityStart..<at, with: Array("***".utf8))
    return String(decoding: bytes, as: UTF8.self)
}

/// Where `needle` first starts in `haystack`, or `nil`.
private func firstIndex(of needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
    guard haystack.count >= needle.count else { return nil }
    for start in haystack.startIndex...(haystack.endIndex - needle.count) where haystack[start..<(start + needle.count)].elementsEqual(needle) {
        return start
    }
    return nil
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
