import PromiseCore

/// The changes to a watched file or directory as an asynchronous sequence; made by
/// ``UVLoop/changes(of:recursive:keepsLoopAlive:)``.
///
/// Each iterator starts its own watch when it is made and stops it when it is dropped or when
/// the iterating task is cancelled (the sequence then ends). Changes wait for the consumer
/// merged one per name, at most ``UVFileChanges/waitingLimit`` names apart. The iterator
/// throws a ``UVError`` when the watch cannot start, when its directory goes away, and when
/// the loop shuts down. One task reads an iterator: a copy of it waiting while another copy
/// waits is refused with ``UVError/Code-swift.struct/invalidArgument``.
public struct UVFileChanges: AsyncSequence, Sendable {
    /// A change to the watched file or directory.
    public typealias Element = UVFileChange

    /// How many names' changes wait apart for a slow consumer; changes to further names wait
    /// merged into one change whose name is `nil` ("list the directory again").
    public static let waitingLimit = ChangeCoalescer.defaultLimit

    let loop: UVLoop
    let path: String
    let recursive: Bool
    let keepsLoopAlive: Bool

    /// Starts a watch and returns the iterator that reads its changes.
    public func makeAsyncIterator() -> Iterator {
        Iterator(FileChangeReader(loop: loop, path: path, recursive: recursive, keepsLoopAlive: keepsLoopAlive))
    }

    /// Reads one watch's changes.
    public struct Iterator: AsyncIteratorProtocol {
        private let reader: FileChangeReader

        init(_ reader: FileChangeReader) {
            self.reader = reader
        }

        /// The next change, waiting for one if none is ready; `nil` once the sequence has
        /// ended (the task was cancelled, or an error was thrown before).
        ///
        /// - Throws: ``UVError`` when the watch could not start or ended on its own.
        public mutating func next() async throws -> UVFileChange? {
            try await reader.next()
        }
    }
}

/// One iterator's watch and the inbox it fills. Stops the watch when the iterator is dropped.
final class FileChangeReader: Sendable {
    private let inbox: FileChangeInbox
    private let watch: FileWatchHandle

    init(loop: UVLoop, path: String, recursive: Bool, keepsLoopAlive: Bool) {
        // The watch holds the inbox, not the reader: once the iterator is gone, the reader's
        // deinit stops the watch, which then lets the inbox go.
        let inbox = FileChangeInbox(path: path)
        self.inbox = inbox
        watch = FileWatchHandle(
            core: loop.core, path: path, operation: "changes", keepsLoopAlive: keepsLoopAlive, recursive: recursive,
            consumer: FileWatch.Consumer(
                deliver: { changes in
                    inbox.deliver(changes)
                    return true
                },
                end: { error in inbox.end(error) }
            ))
    }

    deinit {
        watch.cancel()
    }

    func next() async throws -> UVFileChange? {
        try await withTaskCancellationHandler {
            try await inbox.next()
        } onCancel: {
            inbox.end(nil)
            watch.cancel()
        }
    }
}

/// Where a watch leaves changes, merged while they wait, or the continuation of a waiting
/// `next()`.
final class FileChangeInbox: Sendable {
    private struct State {
        var waiting: ChangeCoalescer
        var waiter: CheckedContinuation<UVFileChange?, any Error>?
        /// Set when the watch ended: `.failure` until the error has been thrown once.
        var end: Result<Void, UVError>?
    }

    private let state: Lock<State>

    init(path: String) {
        state = Lock(State(waiting: ChangeCoalescer(overflowPath: path)))
    }

    func next() async throws -> UVFileChange? {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<UVFileChange?, any Error>) in
            let immediate: Result<UVFileChange?, UVError>? = state.withLock { state in
                if let change = state.waiting.takeFirst() { return .success(change) }
                switch state.end {
                case .failure(let error):
                    state.end = .success(())
                    return .failure(error)
                case .success: return .success(nil)
                case nil:
                    // Copies of one iterator waiting at once: the first keeps waiting.
                    guard state.waiter == nil else {
                        return .failure(
                            UVError(
                                .invalidArgument, operation: "changes",
                                detail: "another task is waiting on this iterator's changes already: read them from one task"))
                    }
                    state.waiter = continuation
                    return nil
                }
            }
            if let immediate { continuation.resume(with: immediate.mapError { $0 as any Error }) }
        }
    }

    func deliver(_ changes: [UVFileChange]) {
        let handOver: (CheckedContinuation<UVFileChange?, any Error>, UVFileChange)? = state.withLock { state in
            guard state.end == nil else { return nil }
            for change in changes { state.waiting.add(change) }
            guard let waiter = state.waiter, let first = state.waiting.takeFirst() else { return nil }
            state.waiter = nil
            return (waiter, first)
        }
        if let (waiter, change) = handOver { waiter.resume(returning: change) }
    }

    func end(_ error: UVError?) {
        let waiter: CheckedContinuation<UVFileChange?, any Error>? = state.withLock { state in
            guard state.end == nil else { return nil }
            state.end = error.map { .failure($0) } ?? .success(())
            // Cancelled: the sequence ends now. An error comes after the changes before it.
            if error == nil { _ = state.waiting.takeAll() }
            guard let waiter = state.waiter, state.waiting.isEmpty else { return nil }
            state.waiter = nil
            if error != nil { state.end = .success(()) }
            return waiter
        }
        if let waiter {
            if let error { waiter.resume(throwing: error) } else { waiter.resume(returning: nil) }
        }
    }
}
