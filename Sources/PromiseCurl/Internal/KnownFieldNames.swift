internal import Glibc

/// The response field names servers send most, each in its usual spelling (`Content-Type`)
/// and in lowercase (`content-type`, as HTTP/2 and HTTP/3 send every name). A header line
/// whose name matches one of them byte for byte gets a prebuilt `HTTPField.Name`: no new
/// strings, no lowercasing and no validation, which otherwise cost about a third of a line's
/// parsing. The match is exact, so `rawName` keeps the bytes the server sent; a name in any
/// other spelling takes the general path.
struct KnownFieldNames: Sendable {
    static let shared = KnownFieldNames()

    private static let usualSpellings = [
        "Date", "Server", "Content-Type", "Content-Length", "Connection", "Last-Modified", "ETag",
        "Accept-Ranges", "Cache-Control", "Transfer-Encoding", "Content-Encoding", "Location",
        "Set-Cookie", "Vary", "Expires", "Keep-Alive", "Age", "Via", "Pragma", "Alt-Svc",
        "Content-Disposition", "Content-Language", "Content-Range", "Strict-Transport-Security",
        "X-Content-Type-Options", "X-Frame-Options", "Access-Control-Allow-Origin",
        "Access-Control-Allow-Credentials", "WWW-Authenticate", "Retry-After", "Link",
    ]

    /// Every spelling's bytes, one after another.
    private let bytes: [UInt8]
    /// Where each spelling is in ``bytes``, sorted by length.
    private let spans: [Range<Int>]
    /// The name of each entry of ``spans``.
    private let names: [HTTPField.Name]
    /// For a length `n`, the entries of that length are `firstOfLength[n]..<firstOfLength[n + 1]`.
    private let firstOfLength: [Int]

    private init() {
        var spellings = Self.usualSpellings + Self.usualSpellings.map { $0.lowercased() }
        spellings.sort { $0.utf8.count < $1.utf8.count }
        var bytes: [UInt8] = []
        var spans: [Range<Int>] = []
        for spelling in spellings {
            spans.append(bytes.count..<(bytes.count + spelling.utf8.count))
            bytes += spelling.utf8
        }
        let longest = spellings.last?.utf8.count ?? 0
        var firstOfLength = [Int](repeating: spans.count, count: longest + 2)
        for (index, span) in spans.enumerated().reversed() { firstOfLength[span.count] = index }
        // A length no spelling has starts where the next longer one does (an empty range).
        for length in stride(from: longest, through: 0, by: -1) where firstOfLength[length] > firstOfLength[length + 1] {
            firstOfLength[length] = firstOfLength[length + 1]
        }
        self.bytes = bytes
        self.spans = spans
        self.names = spellings.map { HTTPField.Name($0)! }
        self.firstOfLength = firstOfLength
    }

    /// The prebuilt name spelled exactly as `name`, or `nil`.
    func name(spelled name: Slice<UnsafeRawBufferPointer>) -> HTTPField.Name? {
        let count = name.count
        guard count + 1 < firstOfLength.count, let start = name.base.baseAddress?.advanced(by: name.startIndex) else { return nil }
        return bytes.withUnsafeBytes { table -> HTTPField.Name? in
            for index in firstOfLength[count]..<firstOfLength[count + 1] where memcmp(table.baseAddress! + spans[index].lowerBound, start, count) == 0 {
                return names[index]
            }
            return nil
        }
    }
}
