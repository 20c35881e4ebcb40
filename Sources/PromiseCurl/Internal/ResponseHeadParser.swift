internal import Glibc

/// Collects a response head from the header lines libcurl hands to `CURLOPT_HEADERFUNCTION`,
/// one call per line, CRLF included. Pure and allocation-light, so it can be tested and
/// fuzzed alone.
///
/// - A status line (`HTTP/1.1 301 Moved`, `HTTP/2 200`) starts a new head: after a redirect
///   or a `100 Continue` only the last response's fields are kept. Its code and reason are
///   read at once.
/// - The other lines are kept as they came (``fieldLines``) and become `HTTPFields` only when
///   they are read (``fields``, ``ReceivedFields``): a response whose fields nobody reads
///   costs one copy of their bytes, not a string per name and value.
/// - The bytes of one head are capped; past the cap ``feed(_:)`` returns `false`, and the
///   transfer is aborted.
struct ResponseHeadParser {
    private(set) var status = 0
    private(set) var reason = ""
    private(set) var headBytes = 0
    let limit: Int
    /// The lines of the last head after its status line, each as its byte count (4 bytes,
    /// little-endian) and its bytes: the form ``FieldLines/parse(_:)`` reads.
    private(set) var fieldLines: [UInt8] = []

    /// The fields of the last head, parsed from ``fieldLines`` (each time it is read).
    var fields: HTTPFields { FieldLines.parse(fieldLines) }

    init(limit: Int) { self.limit = limit }

    /// Takes one line. Returns `false` when the head grew past the limit.
    mutating func feed(_ line: UnsafeRawBufferPointer) -> Bool {
        if line.starts(with: Self.httpPrefix) {
            startHead(line)
            headBytes = line.count
            return headBytes <= limit
        }
        headBytes += line.count
        guard headBytes <= limit else { return false }
        FieldLines.append(line, to: &fieldLines)
        return true
    }

    /// Hands over ``fieldLines``, leaving them empty.
    mutating func takeFieldLines() -> [UInt8] {
        var taken: [UInt8] = []
        swap(&taken, &fieldLines)
        return taken
    }

    private static let httpPrefix: StaticString = "HTTP/"

    /// `HTTP/1.1 200 OK`: the code is the second word, the reason the rest.
    private mutating func startHead(_ line: UnsafeRawBufferPointer) {
        fieldLines.removeAll(keepingCapacity: true)
        status = 0
        reason = ""
        var end = line.count
        while end > 0, line[end - 1] == 0x0A || line[end - 1] == 0x0D { end -= 1 }
        let bytes = line[0..<end]
        guard let space = bytes.firstIndex(of: 0x20) else { return }
        var rest = bytes[bytes.index(after: space)...]
        while rest.first == 0x20 { rest = rest.dropFirst() }
        let codeBytes = rest.prefix(while: { $0 >= 0x30 && $0 <= 0x39 })
        guard codeBytes.count == 3 else { return }
        status = codeBytes.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        reason = String(decoding: FieldLines.trimmed(rest.dropFirst(3)), as: UTF8.self)
    }
}

extension UnsafeRawBufferPointer {
    /// Whether the bytes begin with `prefix`'s.
    fileprivate func starts(with prefix: StaticString) -> Bool {
        count >= prefix.utf8CodeUnitCount && memcmp(baseAddress!, prefix.utf8Start, prefix.utf8CodeUnitCount) == 0
    }
}

/// The field lines of a head in the form ``ResponseHeadParser`` keeps them, and how they
/// become `HTTPFields`:
/// - A field line is split at the first colon; surrounding spaces and tabs are trimmed. A line
///   whose name is not an HTTP token is skipped (libcurl has already accepted the response).
/// - A line starting with a space or tab continues the previous field (obsolete folding),
///   joined with one space. The pieces are gathered in a buffer and the field is rebuilt once,
///   so any number of folded lines parses in linear time.
enum FieldLines {
    /// Appends `line` to `lines`, after its byte count.
    static func append(_ line: UnsafeRawBufferPointer, to lines: inout [UInt8]) {
        if lines.isEmpty { lines.reserveCapacity(512) }
        let count = UInt32(truncatingIfNeeded: line.count)
        withUnsafeBytes(of: count.littleEndian) { lines.append(contentsOf: $0) }
        lines.append(contentsOf: line)
    }

    /// The fields of `lines`.
    static func parse(_ lines: [UInt8]) -> HTTPFields {
        var builder = Builder()
        lines.withUnsafeBytes { buffer in
            var offset = 0
            while offset + 4 <= buffer.count {
                var count: UInt32 = 0
                withUnsafeMutableBytes(of: &count) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + 4)])) }
                let start = offset + 4
                let end = min(buffer.count, start + Int(UInt32(littleEndian: count)))
                builder.add(UnsafeRawBufferPointer(rebasing: buffer[start..<end]))
                offset = end
            }
        }
        return builder.finish()
    }

    typealias Line = Slice<UnsafeRawBufferPointer>

    /// `bytes` without leading and trailing spaces and tabs.
    static func trimmed(_ bytes: Line) -> Line {
        var slice = bytes
        while let first = slice.first, first == 0x20 || first == 0x09 { slice = slice.dropFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 { slice = slice.dropLast() }
        return slice
    }

    /// Turns field lines into fields, one line at a time.
    private struct Builder {
        /// The fields, all but a folded last one's continuations (see ``folded``).
        private var parsed = HTTPFields()
        /// The value of the last field with its continuation lines, while any were read.
        private var folded: [UInt8]?

        mutating func add(_ line: UnsafeRawBufferPointer) {
            var end = line.count
            while end > 0, line[end - 1] == 0x0A || line[end - 1] == 0x0D { end -= 1 }
            let bytes = line[0..<end]
            guard let first = bytes.first else {  // the blank line ending a head
                finishFolding()
                return
            }
            if first == 0x20 || first == 0x09 {
                continueLastField(trimmed(bytes))
                return
            }
            finishFolding()
            guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return }
            let nameBytes = trimmed(bytes[..<colon])
            guard !nameBytes.isEmpty,
                let name = KnownFieldNames.shared.name(spelled: nameBytes) ?? HTTPField.Name(String(decoding: nameBytes, as: UTF8.self))
            else { return }
            if parsed.isEmpty { parsed.reserveCapacity(16) }
            let value = trimmed(bytes[(colon + 1)...])
            // An ASCII value becomes its `String` here, in code specialized for these bytes:
            // the byte-collection initializer validates UTF-8 through an unspecialized generic
            // call, about 1 000 instructions a field. Either way the value keeps every byte.
            if value.allSatisfy({ $0 < 0x80 }) {
                parsed.append(HTTPField(name: name, value: String(decoding: value, as: UTF8.self)))
            } else {
                parsed.append(HTTPField(name: name, value: value))
            }
        }

        /// The fields, a folded last one included.
        mutating func finish() -> HTTPFields {
            finishFolding()
            return parsed
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
            guard let folded, let lastIndex = parsed.indices.last else { return }
            parsed[lastIndex] = HTTPField(name: parsed[lastIndex].name, value: folded)
            self.folded = nil
        }
    }
}
