internal import PromiseCore

/// The header fields of a received response, kept as the lines libcurl delivered
/// (``ResponseHeadParser/fieldLines``) and parsed into `HTTPFields` the first time they are
/// read, on the reader's thread. Immutable from outside; the parsed fields are computed once
/// under a lock and shared by every copy of the response.
final class ReceivedFields: Sendable {
    private let lines: [UInt8]
    private let parsed = Lock<HTTPFields?>(nil)

    init(lines: [UInt8]) { self.lines = lines }

    var fields: HTTPFields {
        parsed.withLock { parsed in
            if let parsed { return parsed }
            let fields = FieldLines.parse(lines)
            parsed = fields
            return fields
        }
    }
}
