internal import PromiseSystem

/// An open file: positional and sequential reads and writes, each a job on a ``FileIOPool``.
///
/// Named `FSFile` so it never clashes with Foundation's `FileHandle`. Operations on one
/// file run one at a time, in the order you call them; several queued operations run in one
/// pool job. ``close()`` runs after every operation queued before it.
///
/// ```swift
/// let file = try await fs.open("big.log").get()
/// var lines = 0
/// for try await chunk in file.chunks(size: 1 << 20) {   // memory stays flat
///     lines += chunk.lazy.filter { $0 == UInt8(ascii: "\n") }.count
/// }
/// try await file.close().get()
/// ```
public final class FSFile: Sendable {
    /// The path the file was opened with, as text: opened with an ``FSPath``, its
    /// ``FSPath/description`` (a byte that is not UTF-8 shows as `\xFF`).
    public let path: String
    private let pool: FileIOPool

    private struct State {
        var fd: Int32?
        var closeRequested = false
        var closed: Promise<Void>?
        var queue = FIFO<Job>()
        var running = false
    }

    private let state: Lock<State>

    init(fd: Int32, path: String, pool: FileIOPool) {
        self.path = path
        self.pool = pool
        state = Lock(State(fd: fd))
    }

    /// `DroppedOwner`'s policy: only reachable when no operation is queued (each holds the
    /// file), so no pool thread uses the descriptor: closes it as ``close()`` does, and reports
    /// an error of close(2) (such as EIO for data a network file system could not write back).
    deinit {
        if let fd = state.withLock({ $0.fd }), let code = Sys.closeReportingError(fd) {
            let dropped = DroppedOwner("FSFile", named: "'\(path)'", call: "close()")
            dropped.report(
                FSError(
                    FSError.Code(errno: code), operation: "close", path: path,
                    activity: dropped.message("closing it failed with \(FSError.Code(errno: code))")))
        }
    }

    // MARK: Positional

    /// Reads up to `count` bytes at `offset`, without moving the sequential position.
    ///
    /// - Parameters:
    ///   - offset: Where to start.
    ///   - count: How many bytes at most, 0 or more; fewer only at the end of the file. The
    ///     buffer grows with the bytes read, so a count past the end costs only what is there.
    /// - Returns: A promise for the bytes (empty at or past the end).
    ///
    /// Corresponds to `pread(2)`.
    public func read(at offset: Int64, count: Int) -> Promise<[UInt8]> {
        submit("read") { [path] fd, _ in try Sys.read(fd, count: count, offset: offset, path: path) }
    }

    /// Writes all of `bytes` at `offset`, without moving the sequential position.
    ///
    /// - Parameters:
    ///   - bytes: What to write.
    ///   - offset: Where to write it.
    /// - Returns: A promise fulfilled once every byte is written.
    ///
    /// Corresponds to `pwrite(2)`.
    public func write(_ bytes: some Collection<UInt8> & Sendable, at offset: Int64) -> Promise<Void> {
        submit("write") { [path] fd, _ in try Sys.write(fd, bytes, offset: offset, path: path) }
    }

    // MARK: Sequential

    /// Reads up to `count` bytes from the current position and advances it.
    ///
    /// - Parameter count: How many bytes at most, 0 or more (a negative count rejects with
    ///   ``FSError/Code-swift.struct/invalidArgument``); fewer only at the end of the file.
    ///   The buffer grows with the bytes read, so a count past the end costs only what is there.
    /// - Returns: A promise for the bytes (empty at the end).
    ///
    /// Corresponds to `read(2)`.
    public func read(count: Int) -> Promise<[UInt8]> {
        submit("read") { [path] fd, _ in try Sys.read(fd, count: count, offset: nil, path: path) }
    }

    /// Writes all of `bytes` at the current position (the end, for an append-mode file).
    ///
    /// - Parameter bytes: What to write.
    /// - Returns: A promise fulfilled once every byte is written.
    ///
    /// Corresponds to `write(2)`.
    public func write(_ bytes: some Collection<UInt8> & Sendable) -> Promise<Void> {
        submit("write") { [path] fd, _ in try Sys.write(fd, bytes, offset: nil, path: path) }
    }

    /// Moves the sequential position.
    ///
    /// - Parameter offset: The new position, from the start of the file.
    /// - Returns: A promise fulfilled once moved.
    ///
    /// Corresponds to `lseek(2)` with `SEEK_SET`.
    public func seek(to offset: Int64) -> Promise<Void> {
        submit("seek") { [path] fd, _ in try Sys.seek(fd, to: offset, path: path) }
    }

    // MARK: The whole file

    /// Flushes the file's data and metadata to disk (`fsync`).
    ///
    /// - Returns: A promise fulfilled once flushed.
    ///
    /// Corresponds to `fsync(2)`.
    public func sync() -> Promise<Void> {
        submit("fsync") { [path] fd, _ in try Sys.fsync(fd, path: path) }
    }

    /// Cuts or extends the file to `size` bytes.
    ///
    /// - Parameter size: The new size.
    /// - Returns: A promise fulfilled once done.
    ///
    /// Corresponds to `ftruncate(2)`.
    public func truncate(to size: Int64) -> Promise<Void> {
        submit("truncate") { [path] fd, _ in try Sys.ftruncate(fd, size, path: path) }
    }

    /// The file's attributes (`fstat`).
    ///
    /// - Returns: A promise for them.
    ///
    /// Corresponds to `fstat(2)`.
    public func info() -> Promise<FSFileInfo> {
        submit("fstat") { [path] fd, _ in try Sys.fstat(fd, path: path) }
    }

    /// Closes the file once every operation queued before this call has finished; operations
    /// called afterwards reject with ``FSError/Code-swift.struct/closed``.
    ///
    /// - Returns: A promise fulfilled once the descriptor is closed. Calling it again returns
    ///   the same promise.
    ///
    /// Corresponds to `close(2)`.
    @discardableResult
    public func close() -> Promise<Void> {
        let (promise, isNew) = state.withLock { state -> (Promise<Void>, Bool) in
            if let closed = state.closed { return (closed, false) }
            let closed = Promise<Void>.pending(resolvedOn: nil)
            state.closed = closed
            return (closed, true)
        }
        guard isNew else { return promise }
        enqueue("close", closing: true) { [self] _ in
            // Closed here whatever happened before: even a refused job must not leak the descriptor.
            if let fd = state.withLock({ state -> Int32? in
                defer { state.fd = nil }
                return state.fd
            }) {
                Sys.close(fd)
            }
            promise.fulfill(())
        }
        return promise
    }

    // MARK: Chunks

    /// Reads from the current position to the end in chunks, one job per chunk, as an
    /// asynchronous sequence. Memory holds one chunk at a time; cancelling the task stops
    /// between chunks.
    ///
    /// - Parameter size: The chunk size in bytes (the last chunk may be shorter).
    /// - Returns: The chunks.
    ///
    /// Corresponds to `read(2)`, one per chunk.
    public func chunks(size: Int) -> Chunks {
        Chunks(file: self, size: max(size, 1))
    }

    /// The chunks of a file, read on demand; see ``FSFile/chunks(size:)``.
    public struct Chunks: AsyncSequence, Sendable {
        /// A chunk of bytes.
        public typealias Element = [UInt8]
        let file: FSFile
        let size: Int

        /// Reads the next chunk when asked.
        public struct AsyncIterator: AsyncIteratorProtocol {
            let file: FSFile
            let size: Int
            var finished = false

            /// The next chunk, or `nil` at the end of the file.
            ///
            /// - Returns: The chunk.
            /// - Throws: An ``FSError``, or `CancellationError` if the task is cancelled.
            public mutating func next() async throws -> [UInt8]? {
                guard !finished else { return nil }
                try Task.checkCancellation()  // stop between chunks, even if the next read would be quick
                let chunk = try await file.read(count: size).get()
                if chunk.isEmpty {
                    finished = true
                    return nil
                }
                return chunk
            }
        }

        /// Makes an iterator.
        ///
        /// - Returns: The iterator.
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(file: file, size: size)
        }
    }

    /// Reads from the current position to the end in chunks, one promise (one job) per chunk,
    /// calling `body` with each.
    ///
    /// - Parameters:
    ///   - context: Where `body` runs; `nil` means `Promises.defaultContext`.
    ///   - size: The chunk size in bytes.
    ///   - body: Handles a chunk; throwing stops the reading and rejects the result.
    /// - Returns: A promise for the number of bytes read. Cancelling it stops between chunks
    ///   and cancels the read in flight.
    ///
    /// Corresponds to `read(2)`, one per chunk.
    public func forEachChunk(
        on context: (any ExecutionContext)? = nil,
        size: Int,
        _ body: @escaping @Sendable ([UInt8]) throws -> Void
    ) -> Promise<Int64> {
        let result = Promise<Int64>.pending(resolvedOn: nil)
        let inFlight = Lock<Promise<[UInt8]>?>(nil)
        result.onCancel { inFlight.withLock { $0 }?.cancel() }
        let size = max(size, 1)
        @Sendable func step(_ total: Int64) {
            guard result.isPending else { return }
            let read = self.read(count: size)
            inFlight.withLock { $0 = read }
            read.then(on: context) { chunk in
                guard result.isPending else { return }
                guard !chunk.isEmpty else { return result.fulfill(total) }
                try body(chunk)
                step(total + Int64(chunk.count))
            }
            .catch(on: .inline, policy: .allErrors) { result.reject($0) }
        }
        step(0)
        return result
    }

    /// Reads from the current position to the end in chunks, calling `body` with each on
    /// `context`.
    ///
    /// - Parameters:
    ///   - size: The chunk size in bytes.
    ///   - context: Where `body` runs; `nil` means `Promises.defaultContext`.
    ///   - body: Handles a chunk.
    /// - Returns: A promise for the number of bytes read.
    ///
    /// Corresponds to `read(2)`, one per chunk.
    @available(*, deprecated, renamed: "forEachChunk(on:size:_:)", message: "the context comes first, as in then(on:_:)")
    public func forEachChunk(
        size: Int,
        on context: (any ExecutionContext)?,
        _ body: @escaping @Sendable ([UInt8]) throws -> Void
    ) -> Promise<Int64> {
        forEachChunk(on: context, size: size, body)
    }

    // MARK: The serial queue

    /// A queued operation: runs with the descriptor, or fails with why it cannot.
    private typealias Job = @Sendable (Result<Int32, FSError>) -> Void

    private func closedError(_ operation: String) -> FSError {
        FSError(.closed, operation: operation, path: path, activity: "\(operation) on \(path), which is closed")
    }

    /// Queues `body` to run with the descriptor, after every operation queued before it.
    private func submit<T: Sendable>(
        _ operation: String,
        _ body: @escaping @Sendable (Int32, CancelFlag) throws -> T
    ) -> Promise<T> {
        let promise = Promise<T>.pending(resolvedOn: nil)
        let flag = CancelFlag()
        promise.onCancel { flag.set() }
        enqueue(operation, closing: false) { descriptor in
            guard !flag.isSet else { return }
            switch descriptor {
            case .success(let fd): promise.resolve(Result { try body(fd, flag) })
            case .failure(let error): promise.reject(error)
            }
        }
        return promise
    }

    private func enqueue(_ operation: String, closing: Bool, _ job: @escaping Job) {
        enum Decision { case refuse, queued, start }
        let decision: Decision = state.withLock { state in
            if state.closeRequested { return .refuse }
            if closing { state.closeRequested = true }
            state.queue.append(job)
            if state.running { return .queued }
            state.running = true
            return .start
        }
        switch decision {
        case .queued:
            return
        case .refuse:
            job(.failure(closedError(operation)))
        case .start:
            guard !pool.submit({ [self] in drain() }) else { return }
            let jobs: [Job] = state.withLock { state in
                let jobs = state.queue.removeAll()
                state.running = false
                return jobs
            }
            let error = FSError(
                .poolUnavailable, operation: operation, path: path,
                activity: "\(operation) on \(path): its FileIOPool is shut down or its queue is full"
            )
            for job in jobs { job(.failure(error)) }
        }
    }

    /// Runs queued jobs, in order, until none is left (several per pool job).
    private func drain() {
        while true {
            let next: (job: Job, fd: Int32?)? = state.withLock { state in
                guard let job = state.queue.popFirst() else {
                    state.running = false
                    return nil
                }
                return (job, state.fd)
            }
            guard let next else { return }
            next.job(next.fd.map { .success($0) } ?? .failure(closedError("use")))
        }
    }
}
