/// A point in time as the file system records it: seconds and nanoseconds since 1970-01-01 UTC.
public struct FSFileTime: Sendable, Hashable, Comparable {
    /// Whole seconds since the epoch.
    public var seconds: Int64
    /// Nanoseconds past `seconds` (0 ..< 1 000 000 000).
    public var nanoseconds: Int64

    /// Creates a time.
    ///
    /// - Parameters:
    ///   - seconds: Whole seconds since the epoch.
    ///   - nanoseconds: Nanoseconds past them.
    public init(seconds: Int64, nanoseconds: Int64) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    /// Orders times chronologically.
    public static func < (lhs: FSFileTime, rhs: FSFileTime) -> Bool {
        (lhs.seconds, lhs.nanoseconds) < (rhs.seconds, rhs.nanoseconds)
    }
}
