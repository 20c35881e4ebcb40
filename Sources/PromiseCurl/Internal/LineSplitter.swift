/// Splits a body fed in chunks of any size into lines: each ends at LF, and a CR right before
/// the LF is dropped with it; what follows the last LF is a line of its own at the end of the
/// body. Pure; what it holds is bounded by `limit` bytes, past which ``feed(_:)`` throws.
struct LineSplitter {
    /// The most bytes of one line.
    let limit: Int
    private var partial: [UInt8] = []

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Takes the next bytes and returns the lines they complete.
    mutating func feed(_ bytes: [UInt8]) throws(CurlError) -> [String] {
        var lines: [String] = []
        var start = bytes.startIndex
        while let end = bytes[start...].firstIndex(of: 0x0A) {
            partial += bytes[start..<end]
            try check()
            lines.append(takeLine())
            start = end + 1
        }
        partial += bytes[start...]
        try check()
        return lines
    }

    /// The body ended: the text after the last LF, if any.
    mutating func endOfBody() -> String? {
        partial.isEmpty ? nil : takeLine()
    }

    private func check() throws(CurlError) {
        // A CR at the end may be the CR of a CRLF, which is not part of the line.
        let length = partial.last == 0x0D ? partial.count - 1 : partial.count
        guard length <= limit else {
            throw CurlError(.responseTooLarge, message: "a line of the response body is longer than the limit of \(limit) bytes")
        }
    }

    private mutating func takeLine() -> String {
        if partial.last == 0x0D { partial.removeLast() }
        let line = String(decoding: partial, as: UTF8.self)
        partial.removeAll(keepingCapacity: true)
        return line
    }
}
