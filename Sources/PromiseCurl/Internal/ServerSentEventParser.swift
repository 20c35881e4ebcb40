/// Reads the `text/event-stream` format (the HTML standard's "event stream interpretation")
/// from a body fed in chunks of any size: lines end at CRLF, LF or CR (a CR at the end of one
/// chunk and an LF at the start of the next are one line end), a leading byte-order mark is
/// dropped, `:` starts a comment, and a blank line dispatches the event being built.
///
/// A pure value, fed by ``CurlServerSentEvents``; what it keeps is bounded by `limit` bytes
/// (the line being read plus the event's data), past which ``feed(_:)`` throws.
struct ServerSentEventParser {
    /// The most bytes of one event (its data and the line being read).
    let limit: Int
    /// The stream's last event ID: the `id` in force when the last event was dispatched, sent
    /// back as `Last-Event-ID` on reconnect. An `id:` line takes effect only when its event is
    /// dispatched (a blank line), as the standard says: an event cut off by the end of the
    /// stream does not move it, so the server sends that event again.
    private(set) var lastEventID: String?
    /// The standard's "last event ID buffer": the last `id:` read, dispatched or not.
    private var idBuffer: String?
    /// The reconnection time the stream asked for with `retry:`.
    private(set) var retry: Duration?

    private var line: [UInt8] = []
    private var data: [UInt8] = []
    /// Whether the event being built has a data line.
    private var dataLines = 0
    private var type = ""
    private var lineStart = LineStart.afterLF
    private var streamStart = StreamStart.mayHaveBOM

    /// Where the next line begins.
    private enum LineStart {
        case afterLF
        /// The last line ended with a CR: an LF next belongs to it.
        case afterCR
    }

    /// Whether the byte-order mark can still come.
    private enum StreamStart {
        case mayHaveBOM
        case pastBOM
    }

    init(limit: Int, lastEventID: String? = nil) {
        self.limit = max(1, limit)
        self.lastEventID = lastEventID
        self.idBuffer = lastEventID
    }

    /// Takes the next bytes of the body and returns the events they complete.
    mutating func feed(_ bytes: [UInt8]) throws(CurlError) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            if case .mayHaveBOM = streamStart {
                // The mark may arrive split across chunks; bytes that turn out not to be it
                // stay in the line they begin.
                if line.count < 3, byte == Self.byteOrderMark[line.count] {
                    line.append(byte)
                    if line.count == 3 {
                        line.removeAll()
                        streamStart = .pastBOM
                    }
                    continue
                }
                streamStart = .pastBOM
            }
            try take(byte, into: &events)
        }
        return events
    }

    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// The stream ended: an event not ended by a blank line is dropped, as the standard says.
    mutating func endOfStream() {
        idBuffer = lastEventID
        line = []
        data = []
        dataLines = 0
        type = ""
        lineStart = .afterLF
        streamStart = .mayHaveBOM
    }

    private mutating func take(_ byte: UInt8, into events: inout [ServerSentEvent]) throws(CurlError) {
        switch byte {
        case 0x0A:
            if case .afterCR = lineStart {
                lineStart = .afterLF
                return
            }
            endLine(into: &events)
        case 0x0D:
            endLine(into: &events)
            lineStart = .afterCR
        default:
            lineStart = .afterLF
            line.append(byte)
            guard line.count + data.count <= limit else {
                throw CurlError(.responseTooLarge, message: "an event of the event stream is larger than the limit of \(limit) bytes")
            }
        }
    }

    private mutating func endLine(into events: inout [ServerSentEvent]) {
        lineStart = .afterLF
        defer { line.removeAll(keepingCapacity: true) }
        guard !line.isEmpty else {
            dispatch(into: &events)
            return
        }
        guard line.first != UInt8(ascii: ":") else { return }  // a comment
        let colon = line.firstIndex(of: UInt8(ascii: ":"))
        let name = String(decoding: line[..<(colon ?? line.endIndex)], as: UTF8.self)
        var valueStart = colon.map { line.index(after: $0) } ?? line.endIndex
        if valueStart < line.endIndex, line[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
        let value = line[valueStart...]
        switch name {
        case "data":
            if dataLines > 0 { data.append(0x0A) }
            data += value
            dataLines += 1
        case "event":
            type = String(decoding: value, as: UTF8.self)
        case "id":
            if !value.contains(0) { idBuffer = String(decoding: value, as: UTF8.self) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), value.count <= 15 {
                retry = .milliseconds(value.reduce(0) { $0 * 10 + Int($1 - 0x30) })
            }
        default:
            break  // unknown fields are ignored
        }
    }

    private mutating func dispatch(into events: inout [ServerSentEvent]) {
        lastEventID = idBuffer
        defer {
            data.removeAll(keepingCapacity: true)
            dataLines = 0
            type = ""
        }
        guard dataLines > 0 else { return }
        events.append(ServerSentEvent(type: type.isEmpty ? "message" : type, data: String(decoding: data, as: UTF8.self), id: idBuffer))
    }
}
