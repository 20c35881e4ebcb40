/// A problem the mirror itself found (as opposed to the libraries' own errors), with a message
/// a person can act on.
public struct MirrorError: Error, CustomStringConvertible {
    /// What went wrong and what to do about it.
    public let description: String

    /// An error with `message` as its description.
    public init(_ message: String) {
        description = message
    }
}

/// A response that arrived but is not a success: kept apart from transport errors so that
/// 5xx and 429 can be retried and 4xx cannot.
struct HTTPStatusError: Error, CustomStringConvertible {
    let status: Int
    let reason: String
    let finalURL: String

    var isTransient: Bool { status == 429 || status == 502 || status == 503 || status == 504 }
    var description: String { "HTTP \(status) \(reason)" }
}
