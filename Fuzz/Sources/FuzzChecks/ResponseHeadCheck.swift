internal import HTTPTypes
@testable internal import PromiseCurl

/// Feeds `ResponseHeadParser` the lines of the input, one call per LF-terminated line the way
/// libcurl's header callback does, and compares it after every line with a plain model of
/// what it must do.
///
/// The first byte picks the head's byte limit (small ones, so the cap is reached often).
/// The model is written from the parser's documented rules, not from its code:
/// - a line starting `HTTP/` starts a new head; its status is the second word when that is
///   exactly three digits, else 0; the limit counts the bytes since that line;
/// - any other line counts towards the limit; past it the parser must say stop;
/// - a line with a colon whose trimmed name is an HTTP token adds one field; a line starting
///   with a space or tab continues the last one; anything else is skipped.
///
/// For every field the parser keeps: the name is a token, and the value holds no CR, LF or
/// NUL (PromiseCurl's users forward these fields, so one would be header injection) and no
/// leading or trailing space. The head must also build an `HTTPResponse` without trapping.
enum ResponseHeadCheck {
    static func run(_ data: UnsafeRawBufferPointer) throws(FuzzFailure) {
        guard let first = data.first else { return }
        let limit = first < 0xC0 ? 16 + Int(first) * 4 : 1 << 20
        var parser = ResponseHeadParser(limit: limit)
        var model = Model(limit: limit)
        var start = 1
        var lines = 0
        while start < data.count {
            var end = start
            while end < data.count, data[end] != 0x0A { end += 1 }
            if end < data.count { end += 1 }
            let line = UnsafeRawBufferPointer(rebasing: data[start..<end])
            let accepted = parser.feed(line)
            let expected = model.feed(line)
            let shown = printable(line)
            try require(
                accepted == expected, "feed(\(shown)) returned \(accepted), the model says \(expected) (limit \(limit), model head bytes \(model.headBytes))")
            try require(parser.headBytes == model.headBytes, "after \(shown): head bytes \(parser.headBytes), the model counts \(model.headBytes)")
            try require(parser.status == model.status, "after \(shown): status \(parser.status), the model says \(model.status)")
            lines += 1
            // The fields are parsed from all the kept lines on every read: after each of the
            // first lines, then after every 16th and the last, so a long input stays linear.
            guard lines <= 64 || lines % 16 == 0 || end == data.count || !accepted else {
                start = end
                continue
            }
            let fields = parser.fields
            try require(fields.count == model.fieldCount, "after \(shown): \(fields.count) fields, the model expects \(model.fieldCount)")
            try checkFields(fields, after: shown)
            if let name = model.lastName, let last = fields.last {
                try require(
                    last.name.rawName.lowercased() == name.lowercased(), "after \(shown): the last field is \(last.name.rawName), the model expects \(name)")
            }
            // What a response's head is built from; must not trap on any head.
            let response = HTTPResponse(status: .init(code: max(0, min(parser.status, 999)), reasonPhrase: parser.reason), headerFields: fields)
            try require(
                !response.status.reasonPhrase.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }),
                "reason phrase \(printable(parser.reason)) keeps CR, LF or NUL")
            if !accepted { break }  // libcurl aborts the transfer here
            start = end
        }
    }

    private static func checkFields(_ fields: HTTPFields, after line: String) throws(FuzzFailure) {
        for field in fields {
            try require(
                !field.name.rawName.isEmpty && field.name.rawName.utf8.allSatisfy(isTokenByte),
                "field name \(printable(field.name.rawName)) is not an HTTP token")
            let value = Array(field.value.utf8)
            try require(
                !value.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }),
                "after \(line): field \(field.name) has CR, LF or NUL in \(printable(field.value))")
            if let first = value.first, let last = value.last {
                try require(!isBlank(first) && !isBlank(last), "after \(line): field \(field.name) value \(printable(field.value)) is not trimmed")
            }
        }
    }

    /// The parser's rules, restated.
    private struct Model {
        let limit: Int
        var headBytes = 0
        var status = 0
        var fieldCount = 0
        var lastName: String?
        var stopped = false

        init(limit: Int) { self.limit = limit }

        mutating func feed(_ line: UnsafeRawBufferPointer) -> Bool {
            var content = Array(line)
            while let last = content.last, last == 0x0A || last == 0x0D { content.removeLast() }
            if content.starts(with: Array("HTTP/".utf8)) {
                headBytes = line.count
                fieldCount = 0
                lastName = nil
                status = statusCode(content)
                return headBytes <= limit
            }
            headBytes += line.count
            if headBytes > limit { return false }
            guard let first = content.first else { return true }
            if isBlank(first) { return true }  // continues the last field: count unchanged
            guard let colon = content.firstIndex(of: UInt8(ascii: ":")) else { return true }
            let name = trimmed(content[..<colon])
            if !name.isEmpty, name.allSatisfy(isTokenByte) {
                fieldCount += 1
                lastName = String(decoding: name, as: UTF8.self)
            }
            return true
        }

        private func statusCode(_ line: [UInt8]) -> Int {
            guard let space = line.firstIndex(of: 0x20) else { return 0 }
            let rest = line[(space + 1)...].drop(while: { $0 == 0x20 })
            let digits = rest.prefix(while: { (0x30...0x39).contains($0) })
            guard digits.count == 3 else { return 0 }
            return digits.reduce(0) { $0 * 10 + Int($1) - 0x30 }
        }
    }
}

/// RFC 9110 `tchar`.
func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
        return true
    default:
        return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
    }
}

func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
    var slice = bytes
    while let first = slice.first, isBlank(first) { slice = slice.dropFirst() }
    while let last = slice.last, isBlank(last) { slice = slice.dropLast() }
    return slice
}

/// Bytes as a quoted, escaped string for failure messages, cut at 200 bytes.
func printable(_ bytes: some Collection<UInt8>) -> String {
    var text = "\""
    for byte in bytes.prefix(200) {
        if byte >= 0x20 && byte < 0x7F && byte != 0x22 && byte != 0x5C {
            text.unicodeScalars.append(Unicode.Scalar(byte))
        } else {
            text += "\\x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16)
        }
    }
    return text + (bytes.count > 200 ? "\"…" : "\"")
}

func printable(_ text: String) -> String { printable(Array(text.utf8)) }
