/// Builds a response head from the header lines libcurl hands to `CURLOPT_HEADERFUNCTION`,
/// one call per line, CRLF included. Pure and allocation-light, so it can be tested and
/// fuzzed alone.
///
/// - A status line (`HTTP/1.1 301 Moved`, `HTTP/2 200`) starts a new head: after a redirect
///   or a `100 Continue` only the last response's fields are kept.
/// - A field line is split at the first colon; surrounding spaces and tabs are trimmed. A line
///   whose name is not an HTTP token is skipped (libcurl has already accepted the response).
/// - A line starting with a space or tab continues the previous field (obsolete folding),
///   joined with one space. The pieces are gathered in a buffer and the field is rebuilt once,
///   so any number of folded lines parses in linear time.
/// - The bytes of one head are capped; past the cap ``feed(_:)`` returns `false`, and the
///   transfer is aborted.
struct ResponseHeadParser {
    private(set) var status = 0
    private(set) var reason = ""
    private(set) var headBytes = 0
    let limit: Int
    /// The fields, all but a folded last one's continuations (see ``folded``).
    private var parsed = HTTPFields()
    /// The value of the last field with its continuation lines, while any were read.
    private var folded: [UInt8]?

    /// The fields of the last head.
    var fields: HTTPFields {
        guard let folded, let lastIndex = parsed.indices.last else { return parsed }
        var fields = parsed
        fields[lastIndex] = HTTPField(name: fields[lastIndex].name, value: folded)
        return fields
    }

    init(limit: Int) { self.limit = limit }

    /// Takes one line. Returns `false` when the head grew past the limit.
    mutating func feed(_ line: UnsafeRawBufferPointer) -> Bool {
        var end = line.count
        while end > 0, line[end - 1] == 0x0A || line[end - 1] == 0x0D { end -= 1 }
        let bytes = line[0..<end]
        if bytes.starts(with: Self.httpPrefix) {
            startHead(bytes)
            headBytes = line.count
            return headBytes <= limit
        }
        headBytes += line.count
        guard headBytes <= limit else { return false }
        guard let first = bytes.first else {  // the blank line ending a head
            finishFolding()
            return true
        }
        if first == 0x20 || first == 0x09 {
            continueLastField(trimmed(bytes))
            return true
        }
        finishFolding()
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return true }
        let nameBytes = trimmed(bytes[..<colon])
        guard !nameBytes.isEmpty,
            let name = KnownFieldNames.shared.name(spelled: nameBytes) ?? HTTPField.Name(String(decoding: nameBytes, as: UTF8.self))
        else { return true }
        if parsed.isEmpty { parsed.reserveCapacity(16) }
        let value = trimmed(bytes[(colon + 1)...])
        // An ASCII value becomes its `String` here, in code specialized for these bytes: the
        // byte-collection initializer validates UTF-8 through an unspecialized generic call,
        // about 1 000 instructions a field. Either way the value keeps every byte.
        let field =
            value.allSatisfy({ $0 < 0x80 })
            ? HTTPField(name: name, value: String(decoding: value, as: UTF8.self)) : HTTPField(name: name, value: value)
        parsed.append(field)
        return true
    }

    private typealias Line = Slice<UnsafeRawBufferPointer>

    /// `bytes` without leading and trailing spaces and tabs.
    private func trimmed(_ bytes: Line) -> Line {
        var slice = bytes
        while let first = slice.first, first == 0x20 || first == 0x09 { slice = slice.dropFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 { slice = slice.dropLast() }
        return slice
    }

    private static let httpPrefix = Array("HTTP/".utf8)

    /// `HTTP/1.1 200 OK`: the code is the second word, the reason the rest.
    private mutating func startHead(_ line: Line) {
        parsed = HTTPFields()
        folded = nil
        status = 0
        reason = ""
        guard let space = line.firstIndex(of: 0x20) else { return }
        var rest = line[line.index(after: space)...]
        while rest.first == 0x20 { rest = rest.dropFirst() }
        let codeBytes = rest.prefix(while: { $0 >= 0x30 && $0 <= 0x39 })
        guard codeBytes.count == 3 else { return }
        status = codeBytes.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        reason = String(decoding: trimmed(rest.dropFirst(3)), as: UTF8.self)
    }

    /// Appends a continuation line to the last field's value (amortized constant time per byte).
    private mutating func continueLastField(_ more: Line) {
        guard let lastIndex = parsed.indices.last else { return }
        if folded == nil { folded = parsed[lastIndex].withUnsafeBytesOfValue { Array($0) } }
        folded!.append(0x20)
        folded!.append(contentsOf: more)
    }

    /// Writes a folded value into its field, before another line is read.
    private mutating func finishFolding() {
        guard folded != nil else { return }
        parsed = fields
        folded = nil
    }
}
