internal import PromiseSystem

extension FSFile {
    /// The lines from the current position to the end, as an asynchronous sequence, read in
    /// chunks on demand so memory stays bounded whatever the file's size.
    ///
    /// ```swift
    /// let file = try await fs.open("access.log").get()
    /// var errors = 0
    /// for try await line in file.lines() where line.contains(" 500 ") {
    ///     errors += 1
    /// }
    /// try await file.close().get()
    /// ```
    ///
    /// A line ends at `\n`, `\r\n` or a lone `\r` (so files from any system read the same);
    /// the ending is not part of the line. A last line without an ending is still a line; a
    /// file that ends with an ending has no empty line after it. The next chunk is read only
    /// when the lines of the current one are used up.
    ///
    /// - Parameters:
    ///   - maxLength: The longest line accepted, in bytes (its ending not counted). A longer
    ///     line fails the iteration with ``FSError/Code-swift.struct/tooLarge`` naming the line
    ///     number and the limit ("line longer than the 64-byte line limit reading line 2 of
    ///     log.txt …"), instead of growing memory without bound.
    ///   - chunkSize: How many bytes each read asks for.
    /// - Returns: The lines. Iterating throws ``FSError/Code-swift.struct/invalidUTF8`` for a
    ///   line that is not UTF-8, an ``FSError`` for a failed read, or `CancellationError` when
    ///   the task is cancelled (checked between chunks).
    ///
    /// Corresponds to `read(2)`, one per chunk, split at line endings.
    public func lines(maxLength: Int = 1 << 20, chunkSize: Int = 64 << 10) -> Lines {
        Lines(chunks: chunks(size: chunkSize), path: path, maxLength: max(maxLength, 0))
    }

    /// The lines of a file, read on demand; see ``FSFile/lines(maxLength:chunkSize:)``.
    public struct Lines: AsyncSequence, Sendable {
        /// One line, without its ending.
        public typealias Element = String

        let chunks: Chunks
        let path: String
        let maxLength: Int

        /// Makes an iterator.
        ///
        /// - Returns: The iterator.
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(chunks: chunks.makeAsyncIterator(), splitter: LineSplitter(maxLength: maxLength), path: path)
        }

        /// Splits the chunks into lines as they are asked for.
        public struct AsyncIterator: AsyncIteratorProtocol {
            var chunks: Chunks.AsyncIterator
            var splitter: LineSplitter
            let path: String
            var endOfFile = false

            /// The next line, or `nil` at the end of the file.
            ///
            /// - Returns: The line.
            /// - Throws: An ``FSError`` or `CancellationError`.
            public mutating func next() async throws -> String? {
                while true {
                    if let line = try splitLine() { return try text(line) }
                    if endOfFile { return nil }
                    if let chunk = try await chunks.next() {
                        splitter.append(chunk)
                    } else {
                        splitter.finish()
                        endOfFile = true
                    }
                }
            }

            private mutating func splitLine() throws(FSError) -> [UInt8]? {
                do {
                    return try splitter.nextLine()
                } catch {
                    throw FSError(
                        .tooLarge, phrase: "line longer than the \(error.maxLength)-byte line limit", operation: "lines",
                        path: path, activity: "reading line \(error.lineNumber) of \(path) (lines(maxLength:) sets the limit)"
                    )
                }
            }

            private func text(_ line: [UInt8]) throws(FSError) -> String {
                guard let text = line.withUnsafeBufferPointer({ UTF8Text.string(validating: $0) }) else {
                    throw FSError(
                        .invalidUTF8, operation: "lines", path: path,
                        activity: "reading line \(splitter.lineNumber) of \(path): it is not valid UTF-8"
                    )
                }
                return text
            }
        }
    }
}

/// Splits bytes into lines at `\n`, `\r\n` and lone `\r`, holding at most one partial line
/// (bounded by `maxLength`) plus the chunk being split.
struct LineSplitter: Sendable {
    /// A line grew past the limit.
    struct TooLong: Error {
        let lineNumber: Int
        let maxLength: Int
    }

    private let maxLength: Int
    private var buffer: [UInt8] = []
    /// Where the current line starts in `buffer`.
    private var start = 0
    /// Where the search for the current line's end goes on (bytes before it hold no ending).
    private var scanned = 0
    /// The last byte was `\r`: a `\n` at the start of the next chunk belongs to it.
    private var pendingCarriageReturn = false
    private var finished = false
    /// The number of the last line returned (the first line is 1).
    private(set) var lineNumber = 0

    init(maxLength: Int) {
        self.maxLength = maxLength
    }

    /// Adds the next chunk of bytes.
    mutating func append(_ chunk: [UInt8]) {
        if start > 0 {
            buffer.removeFirst(start)
            scanned -= start
            start = 0
        }
        var bytes = chunk[...]
        if pendingCarriageReturn, bytes.first == UInt8(ascii: "\n") { bytes = bytes.dropFirst() }
        pendingCarriageReturn = false
        buffer.append(contentsOf: bytes)
    }

    /// Marks the end of the input: what is left is the last line.
    mutating func finish() {
        finished = true
    }

    /// The next complete line, or `nil` when more bytes are needed (or none are left).
    mutating func nextLine() throws(TooLong) -> [UInt8]? {
        let newline = UInt8(ascii: "\n"), carriageReturn = UInt8(ascii: "\r")
        while scanned < buffer.count {
            let byte = buffer[scanned]
            guard byte == newline || byte == carriageReturn else {
                scanned += 1
                continue
            }
            try check(scanned - start)
            let line = Array(buffer[start..<scanned])
            var next = scanned + 1
            if byte == carriageReturn {
                if next < buffer.count {
                    if buffer[next] == newline { next += 1 }
                } else {
                    pendingCarriageReturn = true
                }
            }
            start = next
            scanned = next
            lineNumber += 1
            return line
        }
        try check(buffer.count - start)
        guard finished, start < buffer.count else { return nil }
        let last = Array(buffer[start...])
        start = buffer.count
        scanned = start
        lineNumber += 1
        return last
    }

    private func check(_ length: Int) throws(TooLong) {
        if length > maxLength { throw TooLong(lineNumber: lineNumber + 1, maxLength: maxLength) }
    }
}

extension PromiseFileSystem {
    /// The lines of the file at `path`, read in chunks on demand; the file is opened when
    /// iteration starts and closed when it ends (or when the iterator is dropped early).
    ///
    /// ```swift
    /// for try await line in fs.lines("/etc/hosts") where !line.hasPrefix("#") {
    ///     print(line)
    /// }
    /// ```
    ///
    /// Lines end and are limited as for ``FSFile/lines(maxLength:chunkSize:)``.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - maxLength: The longest line accepted, in bytes.
    /// - Returns: The lines; iterating throws what opening or reading the file throws.
    ///
    /// Corresponds to `read(2)`, one per chunk, split at line endings.
    public func lines(_ path: FSPath, maxLength: Int = 1 << 20) -> FileLines {
        FileLines(fileSystem: self, path: path, maxLength: maxLength)
    }

    /// ``lines(_:maxLength:)-(FSPath,_)`` for a path given as text.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - maxLength: The longest line accepted, in bytes.
    /// - Returns: The lines.
    ///
    /// Corresponds to `read(2)`, one per chunk, split at line endings.
    public func lines(_ path: String, maxLength: Int = 1 << 20) -> FileLines {
        lines(FSPath(path), maxLength: maxLength)
    }
}

/// The lines of a file that the sequence opens and closes itself; see
/// ``PromiseFileSystem/lines(_:maxLength:)-(FSPath,_)``.
public struct FileLines: AsyncSequence, Sendable {
    /// One line, without its ending.
    public typealias Element = String

    let fileSystem: PromiseFileSystem
    let path: FSPath
    let maxLength: Int

    /// Makes an iterator; the file is opened on its first `next()`.
    ///
    /// - Returns: The iterator.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(sequence: self)
    }

    /// Opens the file, then reads its lines.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let sequence: FileLines
        var lines: FSFile.Lines.AsyncIterator?
        let closer = Closer()

        /// The next line, or `nil` at the end of the file (which is then closed).
        ///
        /// - Returns: The line.
        /// - Throws: An ``FSError`` or `CancellationError`.
        public mutating func next() async throws -> String? {
            if lines == nil {
                let file = try await sequence.fileSystem.open(sequence.path).get()
                closer.file = file
                lines = file.lines(maxLength: sequence.maxLength).makeAsyncIterator()
            }
            do {
                guard let line = try await lines?.next() else {
                    try await closer.close()
                    return nil
                }
                return line
            } catch {
                try? await closer.close()
                throw error
            }
        }
    }

    /// Closes the file once: at the end, on an error, or when the iterator goes away.
    final class Closer {
        var file: FSFile?

        func close() async throws {
            guard let file else { return }
            self.file = nil
            try await file.close().get()
        }

        deinit {
            _ = file?.close()
        }
    }
}
