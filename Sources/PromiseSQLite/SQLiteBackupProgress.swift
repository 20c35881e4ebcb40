/// How far an online backup (``SQLiteDatabase/backup(to:pagesPerStep:on:progress:)-(String,_,_,_)``) has
/// come, reported after each step.
public struct SQLiteBackupProgress: Hashable, Sendable, CustomStringConvertible {
    /// The pages copied so far.
    public let copiedPages: Int
    /// The pages the source database has, as of this step (a source that grows or shrinks
    /// during the backup changes it).
    public let totalPages: Int

    /// Creates a report.
    ///
    /// - Parameters:
    ///   - copiedPages: The pages copied so far.
    ///   - totalPages: The pages the source has.
    public init(copiedPages: Int, totalPages: Int) {
        self.copiedPages = copiedPages
        self.totalPages = totalPages
    }

    /// Whether every page is copied: the last report of a backup that succeeds.
    public var isComplete: Bool { copiedPages >= totalPages }

    /// The share copied, from 0 to 1 (1 for an empty source).
    public var fractionCompleted: Double {
        totalPages > 0 ? Double(copiedPages) / Double(totalPages) : 1
    }

    /// `copied/total pages`.
    public var description: String { "\(copiedPages)/\(totalPages) pages" }
}
