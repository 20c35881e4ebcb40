import Dispatch
internal import PromiseCore

/// The fuzz targets: each one is a property of a piece of code that reads outside input,
/// checked on whatever bytes libFuzzer (or a replayed corpus file) hands it.
///
/// A target never trusts the code under test to crash on its own: it states what must hold
/// for every input (a parse round-trips, a limit is kept, a rejection names the problem) and
/// throws ``FuzzFailure`` when it does not. The fuzzer binary turns that into a crash, the
/// replay tests into a test failure.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// `ResponseHeadParser`: the response header lines libcurl hands PromiseCurl.
    case responseHead = "response-head"
    /// `URLParts`, `PercentEncoding`, `CurlRequest`'s query items and header fields, and
    /// `CurlBody.form`: what turns caller strings into a request.
    case urlEncoding = "url-encoding"
    /// PromiseSQLite's `RowDecoder`: rows of any shape and value decoded into `Decodable` types,
    /// both from materialized rows and from a live statement over a real in-memory database.
    case rowDecoding = "row-decoding"
    /// PromiseFS path handling: the split into directory and name, and whole-file writes,
    /// directory creation and reads on real files under a scratch directory.
    case paths

    /// Checks one input.
    ///
    /// - Parameter data: The input bytes.
    /// - Throws: ``FuzzFailure`` naming the property that did not hold.
    public func check(_ data: UnsafeRawBufferPointer) throws(FuzzFailure) {
        switch self {
        case .responseHead: try ResponseHeadCheck.run(data)
        case .urlEncoding: try URLEncodingCheck.run(data)
        case .rowDecoding: try RowDecodingCheck.run(data)
        case .paths: try PathCheck.run(data)
        }
    }

    /// Checks one input held in an array.
    ///
    /// - Parameter bytes: The input bytes.
    /// - Throws: ``FuzzFailure`` naming the property that did not hold.
    public func check(_ bytes: [UInt8]) throws(FuzzFailure) {
        do {
            try bytes.withUnsafeBytes { buffer in try check(buffer) }
        } catch let failure as FuzzFailure {
            throw failure
        } catch {
            throw FuzzFailure("unexpected error \(error)")
        }
    }
}

/// A property that did not hold for one input.
public struct FuzzFailure: Error, CustomStringConvertible {
    /// What did not hold, with the values involved.
    public let message: String

    /// Creates a failure.
    ///
    /// - Parameter message: What did not hold.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}

/// Throws a ``FuzzFailure`` with `message` unless `condition` holds.
@inline(__always)
func require(_ condition: Bool, _ message: @autoclosure () -> String) throws(FuzzFailure) {
    if !condition { throw FuzzFailure(message()) }
}

/// Reads structured values off the front of a fuzz input; past the end every read gives zero
/// or empty, so any input decodes to something.
struct FuzzInput {
    private let bytes: UnsafeRawBufferPointer
    private var position = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var isAtEnd: Bool { position >= bytes.count }

    mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    /// A value in `0..<bound`.
    mutating func int(below bound: Int) -> Int {
        bound <= 1 ? 0 : Int(byte()) % bound
    }

    mutating func int64() -> Int64 {
        var value: UInt64 = 0
        for _ in 0..<8 { value = value << 8 | UInt64(byte()) }
        return Int64(bitPattern: value)
    }

    /// Up to `maxCount` bytes: the length is the next byte.
    mutating func bytes(maxCount: Int) -> [UInt8] {
        let count = min(int(below: 256), maxCount, bytes.count - min(position, bytes.count))
        defer { position += count }
        return Array(bytes[position..<(position + count)])
    }

    /// A string of up to `maxCount` bytes, invalid UTF-8 repaired the way Swift repairs it.
    mutating func string(maxCount: Int) -> String {
        String(decoding: bytes(maxCount: maxCount), as: UTF8.self)
    }
}

/// What a promise settled with, waited for on the calling thread. The rejection counts as
/// handled, so expected failures print no "unhandled rejection" diagnostics.
func settled<T: Sendable>(_ promise: Promise<T>) -> (value: T?, error: (any Error)?) {
    let done = DispatchSemaphore(value: 0)
    promise.always(on: .inline) { done.signal() }.catch(on: .inline) { _ in }
    done.wait()
    return (promise.value, promise.error)
}

/// Substring search on UTF-8 bytes (`String.contains` compares `Character`s, so a match that
/// starts or ends inside a grapheme cluster, such as `/` before a combining mark, is missed).
func containsBytes(_ text: String, _ part: String) -> Bool {
    let haystack = Array(text.utf8), needle = Array(part.utf8)
    guard needle.count <= haystack.count else { return false }
    return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
}
