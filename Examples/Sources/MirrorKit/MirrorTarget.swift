/// One line of input, checked and given its place in the output directory.
///
/// Only the shape is checked here (a scheme, `://`, no spaces or control characters); which
/// schemes may be fetched is PromiseCurl's decision, so its own error explains a refusal.
public struct MirrorTarget: Sendable, Hashable {
    /// The URL as given.
    public let url: String
    /// Where the body goes, relative to the output directory: `host[_port]/path`, each path
    /// component reduced to safe characters, `index.html` for a directory.
    public let relativePath: String

    /// Parses one input line.
    ///
    /// - Parameter line: A URL such as `https://example.org/a/b.html`.
    /// - Returns: The target, or why the line is not a URL.
    public static func parse(_ line: String) -> Result<MirrorTarget, MirrorError> {
        let text = line.trimmingWhitespace()
        guard let schemeEnd = text.firstRange(of: "://") else {
            return .failure(MirrorError("not a URL (expected scheme://host/path): \(quoted(text))"))
        }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard let first = scheme.unicodeScalars.first, first.properties.isAlphabetic,
            scheme.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || "+-.".unicodeScalars.contains($0) || ("0"..."9").contains($0) })
        else {
            return .failure(MirrorError("not a URL (bad scheme \(quoted(scheme))): \(quoted(text))"))
        }
        if let bad = text.unicodeScalars.first(where: { $0.value <= 0x20 || $0.value == 0x7F }) {
            return .failure(MirrorError("not a URL (contains \(bad == " " ? "a space" : "a control character"); percent-encode it): \(quoted(text))"))
        }
        let rest = text[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        var authority = String(rest[..<authorityEnd])
        if let at = authority.lastIndex(of: "@") { authority = String(authority[authority.index(after: at)...]) }
        guard !authority.isEmpty || scheme == "file" else {
            return .failure(MirrorError("not a URL (no host): \(quoted(text))"))
        }
        var path = rest[authorityEnd...]
        if let fragment = path.firstIndex(of: "#") { path = path[..<fragment] }
        var query = ""
        if let mark = path.firstIndex(of: "?") {
            query = String(path[path.index(after: mark)...])
            path = path[..<mark]
        }
        var components = path.split(separator: "/").map { safeComponent(String($0)) }
        if components.isEmpty || path.hasSuffix("/") { components.append("index.html") }
        if !query.isEmpty {
            components[components.count - 1] += "_q" + String(fnv1a(query), radix: 16)
        }
        let host = safeComponent(authority.isEmpty ? scheme : authority.replacingOccurrences(":", with: "_"))
        return .success(MirrorTarget(url: text, relativePath: ([host] + components).joined(separator: "/")))
    }

    /// Letters, digits and `._-~` are kept; everything else becomes `_`; `.` and `..` cannot
    /// climb out of the output directory, and names stay within 200 bytes.
    static func safeComponent(_ component: String) -> String {
        var safe = String(
            String.UnicodeScalarView(
                component.unicodeScalars.map { scalar in
                    scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "._-~".unicodeScalars.contains(scalar)) ? scalar : "_"
                }))
        if safe == "." || safe == ".." { safe = "_" + safe }
        if safe.hasPrefix(".") { safe = "_" + safe }  // no hidden files, no clash with PromiseFS's temporary files
        if safe.utf8.count > 200 { safe = String(safe.prefix(180)) + "_" + String(fnv1a(component), radix: 16) }
        return safe
    }

    static func fnv1a(_ text: String) -> UInt64 {
        text.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }

    static func quoted(_ text: some StringProtocol) -> String {
        "\"" + (text.count > 80 ? String(text.prefix(77)) + "..." : String(text)) + "\""
    }
}

extension String {
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let end = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        return String(scalars[start...end])
    }

    func replacingOccurrences(_ target: Character, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
