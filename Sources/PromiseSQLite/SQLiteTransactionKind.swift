/// How a transaction takes its locks (`BEGIN DEFERRED | IMMEDIATE | EXCLUSIVE`).
public struct SQLiteTransactionKind: Hashable, Sendable, CustomStringConvertible {
    let keyword: String

    /// Takes no lock until the first statement needs one. A deferred transaction that reads
    /// and then writes fails with ``SQLiteError/Code-swift.struct/busy`` at once, without
    /// waiting, when another connection wrote meanwhile: use it for reads only.
    public static let deferred = SQLiteTransactionKind(keyword: "DEFERRED")
    /// Takes the write lock at `BEGIN`, waiting up to the busy timeout: the default, and the
    /// right kind for any transaction that may write.
    public static let immediate = SQLiteTransactionKind(keyword: "IMMEDIATE")
    /// Like ``immediate``; in rollback-journal modes it also keeps readers out.
    public static let exclusive = SQLiteTransactionKind(keyword: "EXCLUSIVE")

    /// `DEFERRED`, `IMMEDIATE` or `EXCLUSIVE`.
    public var description: String { keyword }
}
