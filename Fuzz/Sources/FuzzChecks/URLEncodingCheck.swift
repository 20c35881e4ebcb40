internal import HTTPTypes
@testable internal import PromiseCurl

/// Everything that turns caller strings into a request: `URLParts.parse`, the query and form
/// percent-encodings, `CurlRequest`'s query items and header fields, and `CurlBody.form`.
///
/// Properties:
/// - Percent-encoding emits only unreserved characters and `%XX` (and `+` in forms), and
///   decoding it gives back exactly the input's UTF-8 bytes.
/// - A parsed URL has a lowercase RFC 3986 scheme, no byte a request line must not carry
///   (space, control characters), a path starting with `/`, an authority without `/ ? #`, and
///   parsing its `string` again gives the same parts. A refused URL has a message that is
///   short and free of control characters, whatever the input.
/// - A request either reports why it is invalid, or its URL is clean, its query ends with the
///   appended items (which decode back to what was given) and no header value carries CR, LF
///   or NUL.
enum URLEncodingCheck {
    static func run(_ data: UnsafeRawBufferPointer) throws(FuzzFailure) {
        var input = FuzzInput(data)
        let url = input.string(maxCount: 200)
        try checkEncodings(url)
        try checkURL(url)

        var items: [(String, String?)] = []
        for _ in 0..<input.int(below: 4) {
            let name = input.string(maxCount: 24)
            items.append((name, input.byte() & 1 == 0 ? input.string(maxCount: 24) : nil))
        }
        var headers: [(String, String)] = []
        for _ in 0..<input.int(below: 3) {
            headers.append((input.string(maxCount: 16), input.string(maxCount: 32)))
        }
        try checkRequest(url: url, items: items, headers: headers)

        var fields: [(String, String)] = []
        while !input.isAtEnd, fields.count < 8 {
            fields.append((input.string(maxCount: 24), input.string(maxCount: 24)))
        }
        try checkForm(fields)
    }

    private static func checkEncodings(_ text: String) throws(FuzzFailure) {
        let query = PercentEncoding.query(text)
        try require(
            query.utf8.allSatisfy { isUnreserved($0) || $0 == UInt8(ascii: "%") },
            "query encoding of \(printable(text)) leaves reserved bytes: \(printable(query))")
        try require(
            percentDecoded(query, plusIsSpace: false) == Array(text.utf8), "query encoding of \(printable(text)) does not decode back: \(printable(query))")
        let form = PercentEncoding.form(text)
        try require(
            form.utf8.allSatisfy { isUnreserved($0) || $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") },
            "form encoding of \(printable(text)) leaves reserved bytes: \(printable(form))")
        try require(percentDecoded(form, plusIsSpace: true) == Array(text.utf8), "form encoding of \(printable(text)) does not decode back: \(printable(form))")
    }

    private static func checkURL(_ text: String) throws(FuzzFailure) {
        switch URLParts.parse(text) {
        case .failure(let problem):
            try require(!problem.message.isEmpty, "URL \(printable(text)) refused with an empty message")
            try require(
                problem.message.utf8.count <= 1_000,
                "URL \(printable(text)) refused with a \(problem.message.utf8.count)-byte message: messages must stay short whatever the input")
            try require(
                !problem.message.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }),
                "URL refusal \(printable(problem.message)) carries control characters into logs")
        case .success(let parts):
            try checkParts(parts, from: text)
        }
    }

    private static func checkParts(_ parts: URLParts, from text: String) throws(FuzzFailure) {
        let scheme = Array(parts.scheme.utf8)
        try require(
            scheme.first.map(isLowercaseLetter) == true && scheme.allSatisfy { isLowercaseLetter($0) || isDigit($0) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E },
            "URL \(printable(text)) parsed with scheme \(printable(parts.scheme))")
        try require(
            !parts.string.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }),
            "URL \(printable(text)) parsed into \(printable(parts.string)), which a request line must not carry")
        try require(parts.path.utf8.first == UInt8(ascii: "/"), "URL \(printable(text)) parsed with path \(printable(parts.path))")
        try require(
            !parts.authority.utf8.contains(where: { $0 == 0x2F || $0 == 0x3F || $0 == 0x23 }),
            "URL \(printable(text)) parsed with authority \(printable(parts.authority))")
        try require(!(parts.query ?? "").utf8.contains(0x23), "URL \(printable(text)) kept a fragment in its query \(printable(parts.query ?? ""))")
        try require(
            parts.host.isEmpty || containsBytes(parts.authority, parts.host),
            "URL \(printable(text)): host \(printable(parts.host)) is not in authority \(printable(parts.authority))")
        switch URLParts.parse(parts.string) {
        case .success(let again):
            try require(again == parts, "URL \(printable(text)) parsed into \(printable(parts.string)), which parses differently again")
        case .failure(let problem):
            try require(false, "URL \(printable(text)) parsed into \(printable(parts.string)), which is then refused: \(problem.message)")
        }
    }

    private static func checkRequest(url: String, items: [(String, String?)], headers: [(String, String)]) throws(FuzzFailure) {
        var request = CurlRequest(.get, url)
        let before = request.parts?.query
        request.appendQuery(items)
        for (name, value) in headers { request.setHeader(name, value) }
        if let reason = request.invalidity {
            try require(!reason.isEmpty, "request for \(printable(url)) invalid with an empty reason")
            return
        }
        guard let parts = request.parts else {
            throw FuzzFailure("request for \(printable(url)) has neither parts nor a reason it is invalid")
        }
        try checkParts(parts, from: url)
        try require(request.url == parts.string, "request URL \(printable(request.url)) differs from its parts \(printable(parts.string))")
        for field in request.headerFields {
            try require(
                !field.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }),
                "header \(field.name) value \(printable(field.value)) reached a valid request")
        }
        guard !items.isEmpty else { return }
        let query = parts.query ?? ""
        let expected = items.map { name, value in
            value.map { PercentEncoding.query(name) + "=" + PercentEncoding.query($0) } ?? PercentEncoding.query(name)
        }.joined(separator: "&")
        try require(
            Array(query.utf8).suffix(expected.utf8.count).elementsEqual(expected.utf8),
            "query \(printable(query)) does not end with the appended items \(printable(expected))")
        if let before, !before.isEmpty {
            try require(query == before + "&" + expected, "query \(printable(query)) lost the URL's own query \(printable(before))")
        }
        let pairs = expected.split(separator: "&", omittingEmptySubsequences: false)
        try require(pairs.count == items.count, "query \(printable(query)) splits into \(pairs.count) items, \(items.count) were appended")
        for (pair, item) in zip(pairs, items) {
            let sides = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            try require(
                percentDecoded(String(sides[0]), plusIsSpace: false) == Array(item.0.utf8),
                "query item name \(printable(item.0)) does not decode back from \(printable(String(pair)))")
            try require((sides.count == 2) == (item.1 != nil), "query item \(printable(String(pair))) lost or gained its '='")
            if let value = item.1 {
                try require(
                    percentDecoded(String(sides[1]), plusIsSpace: false) == Array(value.utf8),
                    "query item value \(printable(value)) does not decode back from \(printable(String(pair)))")
            }
        }
    }

    private static func checkForm(_ fields: [(String, String)]) throws(FuzzFailure) {
        let body = CurlBody.form(fields)
        guard case .bytes(let bytes) = body.storage else {
            throw FuzzFailure("a form body is not held in memory")
        }
        let text = String(decoding: bytes, as: UTF8.self)
        let pairs = fields.isEmpty ? [] : text.split(separator: "&", omittingEmptySubsequences: false)
        try require(pairs.count == fields.count, "form body \(printable(bytes)) has \(pairs.count) fields, \(fields.count) were given")
        for (pair, field) in zip(pairs, fields) {
            let sides = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            try require(sides.count == 2, "form field \(printable(String(pair))) has no '='")
            try require(
                percentDecoded(String(sides[0]), plusIsSpace: true) == Array(field.0.utf8)
                    && percentDecoded(String(sides[1]), plusIsSpace: true) == Array(field.1.utf8),
                "form field \(printable(field.0))=\(printable(field.1)) does not decode back from \(printable(String(pair)))")
        }
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        isLowercaseLetter(byte) || (0x41...0x5A).contains(byte) || isDigit(byte) || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
    }

    private static func isLowercaseLetter(_ byte: UInt8) -> Bool { (0x61...0x7A).contains(byte) }
    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    /// Decodes `%XX` (and `+` as a space in forms); `nil` when a `%` is not followed by two hex digits.
    private static func percentDecoded(_ text: String, plusIsSpace: Bool) -> [UInt8]? {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "%"):
                guard i + 2 < bytes.count, let high = hexValue(bytes[i + 1]), let low = hexValue(bytes[i + 2]) else { return nil }
                out.append(high << 4 | low)
                i += 3
            case UInt8(ascii: "+") where plusIsSpace:
                out.append(0x20)
                i += 1
            case let byte:
                out.append(byte)
                i += 1
            }
        }
        return out
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - 0x30
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - 0x41 + 10
        default: nil
        }
    }
}
